/* log_columns.c - see log_columns.h. */
#include "log_columns.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* The columns of the CSV log, in file order (see log_columns.h for the blocks per layer). */
const LogField g_log_columns[N_LOG_COLUMNS] = {
    [LOG_STEP] = {"step", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "steps done"},
    [LOG_LOSS] = {"loss", "%.9g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "mean training loss since the last row (nats per target token)"},
    [LOG_LR] = {"lr", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "learning rate of the last step"},
    [LOG_GRAD_NORM] = {"grad_norm", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "global gradient norm of the last step, before clipping"},
    [LOG_TOKENS_PER_S] = {"tokens_per_s", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "training speed since the last row"},
    [LOG_TIME_S] = {"time_s", "%.3f", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_SECONDS, "seconds since the log was opened"},
    [LOG_SCORE_MEAN] = {"l%d_score_mean", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_ANY, "mean of the scaled scores s·q·k"},
    [LOG_SCORE_STD] = {"l%d_score_std", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "std of the scaled scores s·q·k"},
    [LOG_ENTROPY] = {"l%d_entropy", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "mean attention entropy per query (nats)"},
    [LOG_ENTROPY_NORM] = {"l%d_entropy_norm", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "entropy ÷ log(visible keys)"},
    [LOG_MAX_WEIGHT] = {"l%d_max_weight", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_FRACTION, "mean largest attention weight"},
    [LOG_GNORM_WQ] = {"l%d_gnorm_wq", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "gradient norm of Wq, before clipping"},
    [LOG_GNORM_WK] = {"l%d_gnorm_wk", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "gradient norm of Wk, before clipping"},
    [LOG_MULTIPLIER] = {"l%d_%s", "%.6g", LOG_REAL, LOG_LEARNED_MULTIPLIER, LOG_EVERY_ROW, RANGE_ANY, "mean of the learned multiplier over the heads, as its row logs it (s × √dk, τ)"},
    [LOG_QGRAD_MEDIAN] = {"l%d_qgrad_median", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "median over queries of ‖∂L/∂S_row‖"},
    [LOG_QGRAD_P10] = {"l%d_qgrad_p10", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "10th percentile of ‖∂L/∂S_row‖"},
    [LOG_JAC_MEDIAN] = {"l%d_jac_median", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "median softmax Jacobian norm"},
    [LOG_JAC_P10] = {"l%d_jac_p10", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "10th percentile of the Jacobian norm"},
    [LOG_FP_OVERFLOWS] = {"l%d_fp_overflows", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "values rounded to ±Inf so far"},
    [LOG_FP_UNDERFLOWS] = {"l%d_fp_underflows", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "nonzero values flushed to 0 so far"},
    [LOG_FP_NANS] = {"l%d_fp_nans", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "NaNs made so far"},
    [LOG_VAL_LOSS] = {"val_loss", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVAL_ROWS, RANGE_NONNEGATIVE, "held-out loss"},
    [LOG_VAL_ACC] = {"val_acc", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVAL_ROWS, RANGE_ACCURACY, "held-out exact-match accuracy"},
    [LOG_NAN_COUNT] = {"nan_count", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "steps with a NaN or Inf so far"},
};

/* The fields of the summary line, in the order printed. */
const LogField g_summary_fields[N_SUMMARY_FIELDS] = {
    [SUMMARY_STEPS] = {"steps", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "the step the run stopped at"},
    [SUMMARY_FINAL_LOSS] = {"final_loss", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "training loss of the last row (a resumed run with no row: the mean since the checkpoint's last row, else that row's; nan when none)"},
    [SUMMARY_VAL_LOSS] = {"val_loss", "%.6g", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "held-out loss at the end"},
    [SUMMARY_VAL_ACC] = {"val_acc", "%.4f", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_ACCURACY, "held-out exact-match accuracy at the end"},
    [SUMMARY_STEPS_TO_THRESHOLD] = {"steps_to_threshold", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_STEP, "first step whose mean training loss is below --loss-threshold; -1: never"},
    [SUMMARY_NAN_COUNT] = {"nan_count", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "steps with a NaN or Inf"},
    [SUMMARY_FP_OVERFLOWS] = {"fp_overflows", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "values rounded to ±Inf, all layers"},
    [SUMMARY_FP_UNDERFLOWS] = {"fp_underflows", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "nonzero values flushed to 0, all layers"},
    [SUMMARY_FP_NANS] = {"fp_nans", "%ld", LOG_COUNT, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_COUNT, "NaNs made, all layers"},
    [SUMMARY_EVAL_FP_OVERFLOWS] = {"eval_fp_overflows", "%ld", LOG_COUNT, LOG_WITH_PRECISION, LOG_EVERY_ROW, RANGE_COUNT, "values rounded to ±Inf in this run's evaluations (validation and test), all layers"},
    [SUMMARY_EVAL_FP_UNDERFLOWS] = {"eval_fp_underflows", "%ld", LOG_COUNT, LOG_WITH_PRECISION, LOG_EVERY_ROW, RANGE_COUNT, "nonzero values flushed to 0 in this run's evaluations"},
    [SUMMARY_EVAL_FP_NANS] = {"eval_fp_nans", "%ld", LOG_COUNT, LOG_WITH_PRECISION, LOG_EVERY_ROW, RANGE_COUNT, "NaNs made in this run's evaluations"},
    [SUMMARY_TEST_LOSS] = {"test_loss", "%.6g", LOG_REAL, LOG_WITH_TEST_SET, LOG_EVERY_ROW, RANGE_NONNEGATIVE, "test loss"},
    [SUMMARY_TEST_ACC] = {"test_acc", "%.4f", LOG_REAL, LOG_WITH_TEST_SET, LOG_EVERY_ROW, RANGE_FRACTION, "test exact-match accuracy"},
    [SUMMARY_TEST_EXAMPLES] = {"test_examples", "%ld", LOG_COUNT, LOG_WITH_TEST_SET, LOG_EVERY_ROW, RANGE_COUNT, "size of the test set"},
    [SUMMARY_TIME_S] = {"time_s", "%.1f", LOG_REAL, LOG_ALWAYS, LOG_EVERY_ROW, RANGE_SECONDS, "seconds the run took"},
};

bool log_column_per_layer(LogColumnId c) { return strstr(g_log_columns[c].name, "%d") != NULL; }

void log_column_name(char *buf, size_t n, LogColumnId c, int layer, const char *multiplier)
{
    assert(c != LOG_MULTIPLIER || multiplier); /* the column exists only in a run with a multiplier */
    if (c == LOG_MULTIPLIER) snprintf(buf, n, g_log_columns[c].name, layer, multiplier);
    else if (log_column_per_layer(c)) snprintf(buf, n, g_log_columns[c].name, layer);
    else snprintf(buf, n, "%s", g_log_columns[c].name);
}

static bool column_present(LogColumnId c, bool has_multiplier)
{
    LogPresence p = g_log_columns[c].present;
    return p == LOG_ALWAYS || (p == LOG_LEARNED_MULTIPLIER && has_multiplier);
}

void log_columns_each(int layers, bool has_multiplier, LogVisit *visit, void *ctx)
{
    for (int c = 0; c < N_LOG_COLUMNS;) {
        if (!log_column_per_layer(c)) {
            if (column_present(c, has_multiplier)) visit(ctx, c, -1);
            c++;
            continue;
        }
        /* a block: the per-layer columns from c on that share its presence, layer by layer */
        int end = c + 1;
        while (end < N_LOG_COLUMNS && log_column_per_layer(end) && g_log_columns[end].present == g_log_columns[c].present) end++;
        if (column_present(c, has_multiplier))
            for (int l = 0; l < layers; l++)
                for (int k = c; k < end; k++) visit(ctx, k, l);
        c = end;
    }
}

bool log_range_holds(LogRange r, double v)
{
    switch (r) {
    case RANGE_ANY: return true;
    case RANGE_COUNT: return isfinite(v) && v >= 0 && v == floor(v);
    case RANGE_STEP: return isfinite(v) && v >= -1 && v == floor(v);
    case RANGE_ACCURACY: return v >= 0 && v <= 1;
    case RANGE_FRACTION: return isnan(v) || (v >= 0 && v <= 1);
    case RANGE_NONNEGATIVE: return isnan(v) || v >= 0;
    case RANGE_SECONDS: return isfinite(v) && v >= 0;
    }
    return false;
}

const char *log_range_text(LogRange r)
{
    switch (r) {
    case RANGE_ANY: return "a number";
    case RANGE_COUNT: return "a whole number >= 0";
    case RANGE_STEP: return "a whole number >= -1";
    case RANGE_ACCURACY: return "an accuracy from 0 to 1";
    case RANGE_FRACTION: return "a number from 0 to 1 (or nan)";
    case RANGE_NONNEGATIVE: return "a number >= 0 (or inf, nan)";
    case RANGE_SECONDS: return "a finite number of seconds >= 0";
    }
    return "?";
}

int log_command_put(FILE *out, const char *command)
{
    int n = fprintf(out, "%s ", LOG_COMMENT);
    for (const char *c = command; *c && n >= 0; c++) n = fputc((unsigned char)*c < 0x20 ? '?' : *c, out) == EOF ? -1 : n + 1;
    return n < 0 || fputc('\n', out) == EOF ? -1 : n + 1;
}

int log_value_put(FILE *out, const LogField *f, LogValue v)
{
    if (v.empty) return 0;
    if (f->type == LOG_REAL && isnan(v.real)) return fprintf(out, "nan"); /* not "-nan": a NaN has no sign to read */
    return f->type == LOG_COUNT ? fprintf(out, f->format, v.count) : fprintf(out, f->format, v.real);
}

void summary_print(FILE *out, const LogValue values[N_SUMMARY_FIELDS])
{
    fputs(SUMMARY_PREFIX, out);
    for (int i = 0; i < N_SUMMARY_FIELDS; i++) {
        if (values[i].empty) continue;
        fprintf(out, " %s=", g_summary_fields[i].name);
        log_value_put(out, &g_summary_fields[i], values[i]);
    }
    fputc('\n', out);
}
