/* logbook.c - see logbook.h. */

#define _XOPEN_SOURCE 700 /* truncate */

#include "logbook.h"

#include "log_columns.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include "../tensor/openmp.h"
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Flushes the CSV file: false, with lb->failed, when a write to it failed. */
static bool csv_ok(Logbook *lb)
{
    if (fflush(lb->csv) == 0 && !ferror(lb->csv)) return true;
    snprintf(lb->failed, sizeof lb->failed, "--log=%s: a write failed (%s)", lb->csv_path, strerror(errno));
    return false;
}

bool logbook_stdout_ok(Logbook *lb)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) return true;
    snprintf(lb->failed, sizeof lb->failed, "standard output: a write failed (%s)", strerror(errno));
    return false;
}

/* The header, one column name at a time (a LogVisit), into a buffer. */
typedef struct HeaderText {
    char *buf;
    size_t len, n;
    const char *multiplier; /* the learned multiplier's column (its row's), or NULL */
} HeaderText;

static void put_column_name(void *ctx, LogColumnId column, int layer)
{
    HeaderText *h = ctx;
    char name[96];
    log_column_name(name, sizeof name, column, layer, h->multiplier);
    if (h->n < h->len) h->n += (size_t)snprintf(h->buf + h->n, h->len - h->n, "%s%s", h->n ? "," : "", name);
}

/* The CSV header this run writes, into buf. */
static void header_text(const Logbook *lb, char *buf, size_t len)
{
    HeaderText h = {buf, len, 0, lb->multiplier ? lb->multiplier->column : NULL};
    buf[0] = 0;
    log_columns_each(lb->layers, lb->multiplier != NULL, put_column_name, &h);
    if (h.n < len) snprintf(buf + h.n, len - h.n, "\n");
}

/* Reads the comment lines at the start of a log (LOG_COMMENT ...); returns their length in bytes. */
static size_t comment_lines(FILE *f)
{
    size_t n = 0;
    int c;
    while ((c = fgetc(f)) == LOG_COMMENT[0]) {
        n++;
        while ((c = fgetc(f)) != EOF) { /* the rest of the line, its line end included */
            n++;
            if (c == '\n') break;
        }
    }
    if (c != EOF) ungetc(c, f);
    return n;
}

/* A resumed run (at step `step`) that names the log of the run it continues: the rows up to
 * that step are kept, the file is cut after them (rows past it belong to steps this run does
 * again, with the same numbers) and the new rows are appended. Refused when the file is not
 * a log with this run's columns. Returns the stream, or NULL with lb->failed. */
static FILE *continue_log(Logbook *lb, const char *path, const char *header, int step)
{
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why);
    if (!f) {
        snprintf(lb->failed, sizeof lb->failed, "--log=%s: %s", path, why);
        return NULL;
    }
    size_t hlen = strlen(header), keep = comment_lines(f); /* the command that started the log: kept */
    char *first = mem_alloc(hlen + 2);
    bool ok = fgets(first, (int)hlen + 2, f) && !strcmp(first, header);
    mem_free(first);
    /* then the rows, "<step>,...\n": keep the leading ones of steps <= step */
    keep += hlen;
    long dropped = 0;
    int c = ok ? fgetc(f) : EOF;
    while (c != EOF) {
        long row_step = 0;
        size_t len = 0;
        bool in_step = true, whole = false;
        for (; c != EOF && !whole; c = fgetc(f), len++) {
            if (c == '\n') whole = true;
            else if (c == ',') in_step = false;
            else if (in_step && c >= '0' && c <= '9') row_step = row_step * 10 + (c - '0');
        }
        if (whole && row_step <= step && dropped == 0) keep += len;
        else dropped++;
    }
    bool read_error = ferror(f);
    fclose(f);
    if (!ok || read_error) {
        snprintf(lb->failed, sizeof lb->failed,
                 "--log=%s exists and is not the log of the run this continues (its columns differ): give another --log",
                 path);
        return NULL;
    }
    if (truncate(path, (off_t)keep) != 0 || !(f = fopen(path, "a"))) {
        snprintf(lb->failed, sizeof lb->failed, "--log=%s: cannot continue it: %s", path, strerror(errno));
        return NULL;
    }
    if (dropped)
        fprintf(stderr, "note: --log=%s: continued after step %d (%ld row%s past it dropped: this run does those steps again)\n",
                path, step, dropped, dropped == 1 ? "" : "s");
    else if (!lb->quiet)
        fprintf(stderr, "note: --log=%s: continued after step %d\n", path, step);
    return f;
}

double time_left(TimeLeft *t, int done, double elapsed, int stop)
{
    if (!t->from_step) {
        t->from_step = done;
        t->from_time = elapsed;
    }
    return done > t->from_step ? (elapsed - t->from_time) / (done - t->from_step) * (stop - done) : NAN;
}

bool logbook_open(Logbook *lb, const char *path, const GptConfig *c, bool quiet, int resume_step, const char *command)
{
    *lb = (Logbook){.quiet = quiet, .csv_path = path, .layers = c->layers,
                    .multiplier = attn_head_multiplier(c),
                    .t_start = omp_get_wtime(), .last_loss = NAN};
    if (!path[0]) return true;
    static char header[1 << 16];
    header_text(lb, header, sizeof header);
    struct stat st;
    if (resume_step > 0 && stat(path, &st) == 0 && st.st_size > 0) {
        lb->csv = continue_log(lb, path, header, resume_step);
        return lb->csv != NULL;
    }
    lb->csv = fopen(path, "w");
    if (!lb->csv) {
        snprintf(lb->failed, sizeof lb->failed, "--log=%s: cannot create the file: %s", path, strerror(errno));
        return false;
    }
    log_command_put(lb->csv, command);
    fputs(header, lb->csv);
    return csv_ok(lb);
}

void logbook_measure(Logbook *lb, const Gpt *m, const AttentionTrace *trace, const FormatCounts *rounding,
                     Arena *scratch, const unsigned char *valid, bool has_grads)
{
    for (int l = 0; l < m->cfg.layers; l++) {
        const GptLayer *ly = &m->layer[l];
        LayerMetrics *lm = &lb->layer[l];
        lm->att = attention_stats(scratch, &trace[l], valid);
        lm->gnorm_wq = has_grads ? l2_norm(ly->wq->grad, ly->wq->size) : NAN;
        lm->gnorm_wk = has_grads ? l2_norm(ly->wk->grad, ly->wk->size) : NAN;
        lm->multiplier = NAN;
        lm->rounding = rounding[l];
        if (!ly->scale) continue;
        double sum = 0;
        for (int h = 0; h < m->cfg.heads; h++) sum += gpt_head_scale(ly, &m->cfg, h);
        lm->multiplier = lb->multiplier->logged(sum / m->cfg.heads, &m->cfg);
    }
}

/* The value of one column in this row. */
static LogValue column_value(const Logbook *lb, const LogRow *row, LogColumnId column, int layer)
{
    const LayerMetrics *lm = layer >= 0 ? &lb->layer[layer] : NULL;
    switch (column) {
    case LOG_STEP: return log_count(row->step);
    case LOG_LOSS: return log_real(row->loss);
    case LOG_LR: return log_real(row->lr);
    case LOG_GRAD_NORM: return log_real(row->grad_norm);
    case LOG_TOKENS_PER_S: return log_real(row->tokens_per_s);
    case LOG_TIME_S: return log_real(row->elapsed);
    case LOG_SCORE_MEAN: return log_real(lm->att.score_mean);
    case LOG_SCORE_STD: return log_real(lm->att.score_std);
    case LOG_ENTROPY: return log_real(lm->att.entropy);
    case LOG_ENTROPY_NORM: return log_real(lm->att.entropy_norm);
    case LOG_MAX_WEIGHT: return log_real(lm->att.max_weight);
    case LOG_GNORM_WQ: return log_real(lm->gnorm_wq);
    case LOG_GNORM_WK: return log_real(lm->gnorm_wk);
    case LOG_MULTIPLIER: return log_real(lm->multiplier);
    case LOG_QGRAD_MEDIAN: return log_real(lm->att.qgrad_median);
    case LOG_QGRAD_P10: return log_real(lm->att.qgrad_p10);
    case LOG_JAC_MEDIAN: return log_real(lm->att.jac_median);
    case LOG_JAC_P10: return log_real(lm->att.jac_p10);
    case LOG_FP_OVERFLOWS: return log_count(lm->rounding.overflow);
    case LOG_FP_UNDERFLOWS: return log_count(lm->rounding.underflow);
    case LOG_FP_NANS: return log_count(lm->rounding.nan);
    case LOG_VAL_LOSS: return log_real(row->val_loss);
    case LOG_VAL_ACC: return log_real(row->val_acc);
    case LOG_NAN_COUNT: return log_count(row->nan_count);
    case N_LOG_COLUMNS: break;
    }
    assert(!"a column without a value");
    return log_empty();
}

/* A row, one value at a time (a LogVisit): empty where the column is filled at evaluation
 * steps only and this is none. */
typedef struct RowText {
    const Logbook *lb;
    const LogRow *row;
    int n;
} RowText;

static void put_column_value(void *ctx, LogColumnId column, int layer)
{
    RowText *t = ctx;
    const LogField *f = &g_log_columns[column];
    if (t->n++) fputc(',', t->lb->csv);
    bool empty = f->filled == LOG_EVAL_ROWS && !t->row->evaluated;
    log_value_put(t->lb->csv, f, empty ? log_empty() : column_value(t->lb, t->row, column, layer));
}

bool logbook_row(Logbook *lb, const LogRow *row)
{
    lb->last_loss = row->loss;
    lb->rows++;
    if (lb->csv) {
        RowText t = {lb, row, 0};
        log_columns_each(lb->layers, lb->multiplier != NULL, put_column_value, &t);
        fputc('\n', lb->csv);
        if (!csv_ok(lb)) return false;
    }
    if (!lb->quiet) {
        char acc[32] = "   -  "; /* measured on the rows that evaluate (--eval-every) only */
        if (row->evaluated && !isnan(row->val_acc)) snprintf(acc, sizeof acc, "%5.1f%%", 100 * row->val_acc);
        char left[32] = "    -"; /* not known yet */
        if (!isnan(row->seconds_left)) snprintf(left, sizeof left, "%4.0fs", row->seconds_left);
        printf("step %5d/%d  loss %.4f  acc %s  lr %.2e  |g| %7.3f  %6.1fk tok/s  %s left  std", row->step, row->stop,
               row->loss, acc, row->lr, row->grad_norm, row->tokens_per_s / 1000, left);
        for (int l = 0; l < lb->layers && l < 4; l++) printf(" %.2f", lb->layer[l].att.score_std);
        printf("  H/logn");
        for (int l = 0; l < lb->layers && l < 4; l++) printf(" %.2f", lb->layer[l].att.entropy_norm);
        printf("\n");
        return logbook_stdout_ok(lb);
    }
    return true;
}

void logbook_close(Logbook *lb)
{
    if (lb->csv) fclose(lb->csv);
    lb->csv = NULL;
}
