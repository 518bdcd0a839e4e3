/* report_rows.c - see report_rows.h. */
#include "report_rows.h"

#include "report_common.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const g_job_cols[N_JOB_COLS] = {"id", "stage", "task", "optim", "scale", "dk", "lr", "seed", "variant", "command"};
const MetricSpec g_metrics[N_METRICS] = {
    [M_STEPS] = {NULL, FROM_SUMMARY, SUMMARY_STEPS},
    [M_VAL_ACC] = {NULL, FROM_SUMMARY, SUMMARY_VAL_ACC},
    [M_VAL_LOSS] = {NULL, FROM_SUMMARY, SUMMARY_VAL_LOSS},
    [M_TEST_ACC] = {NULL, FROM_SUMMARY, SUMMARY_TEST_ACC},
    [M_TEST_LOSS] = {NULL, FROM_SUMMARY, SUMMARY_TEST_LOSS},
    [M_TEST_EXAMPLES] = {NULL, FROM_SUMMARY, SUMMARY_TEST_EXAMPLES},
    [M_FINAL_LOSS] = {NULL, FROM_SUMMARY, SUMMARY_FINAL_LOSS},
    [M_STEPS_TO_THRESHOLD] = {NULL, FROM_SUMMARY, SUMMARY_STEPS_TO_THRESHOLD},
    [M_NAN_COUNT] = {NULL, FROM_SUMMARY, SUMMARY_NAN_COUNT},
    [M_FP_OVERFLOWS] = {NULL, FROM_SUMMARY, SUMMARY_FP_OVERFLOWS},
    [M_FP_UNDERFLOWS] = {NULL, FROM_SUMMARY, SUMMARY_FP_UNDERFLOWS},
    [M_FP_NANS] = {NULL, FROM_SUMMARY, SUMMARY_FP_NANS},
    [M_TIME_S] = {NULL, FROM_SUMMARY, SUMMARY_TIME_S},
    [M_STD_INIT] = {"score_std_init", FROM_FIRST_ROW, LOG_SCORE_STD},
    [M_STD_END] = {"score_std_end", FROM_LAST_ROW, LOG_SCORE_STD},
    [M_QGRAD_INIT] = {"qgrad_median_init", FROM_FIRST_ROW, LOG_QGRAD_MEDIAN},
    [M_QGRAD_END] = {"qgrad_median_end", FROM_LAST_ROW, LOG_QGRAD_MEDIAN},
    [M_JAC_END] = {"jac_median_end", FROM_LAST_ROW, LOG_JAC_MEDIAN},
    [M_ENTROPY_END] = {"entropy_norm_end", FROM_LAST_ROW, LOG_ENTROPY_NORM},
    [M_WQ_GRAD_INIT] = {"wq_grad_norm_init", FROM_FIRST_ROW, LOG_GNORM_WQ},
    [M_SCALE_END] = {"scale_x_sqrt_dk_end", FROM_LAST_ROW, LOG_MULTIPLIER}, /* a learned s only */
};
const char *const g_metric_multiplier = "scale_x_sqrt_dk";

const char *metric_name(int m) { return g_metrics[m].name ? g_metrics[m].name : g_summary_fields[g_metrics[m].source].name; }

const char *metric_parse(int m, const char *text, double *v)
{
    const MetricSpec *spec = &g_metrics[m];
    LogRange range = spec->from == FROM_SUMMARY ? g_summary_fields[spec->source].range : g_log_columns[spec->source].range;
    if (!parse_number(text, v, NAN_AND_INF_TOO)) return "a number";
    return log_range_holds(range, *v) ? NULL : log_range_text(range);
}

/* ------------------------------------------------------------------ scales */

/* The scales are model/scale_table.h's rows; their order there is the order of tables and
 * plots, constants among themselves by value. */
bool scale_valid(const char *s, double *c) { return scale_row_find(s, c) != NULL; }

int scale_compare(const char *a, const char *b)
{
    double ca, cb;
    const ScaleRow *ra = scale_row_find(a, &ca), *rb = scale_row_find(b, &cb);
    assert(ra && rb);
    if (ra != rb) return ra < rb ? -1 : 1;
    if (ca != cb && isfinite(ca)) return ca < cb ? -1 : 1;
    return strcmp(a, b);
}

bool scale_is_rule(const char *s) { return !strcmp(s, g_scale_rule); }

bool scale_is_none(const char *s)
{
    double c;
    const ScaleRow *r = scale_row_find(s, &c);
    return r && r->no_scale;
}

double scale_learned_start(const char *s, int dk)
{
    double c;
    const ScaleRow *r = scale_row_find(s, &c);
    return r && r->mode == SCALE_LEARNED ? scale_row_s(r, c, dk) * sqrt((double)dk) : NAN;
}

const char *scale_label(const char *s, ScaleScript script)
{
    static char bufs[8][64];
    static int next;
    return scale_write_label(s, script, bufs[next++ % 8], sizeof bufs[0]);
}

const char *scale_names(void)
{
    static char list[256];
    size_t used = 0;
    for (int i = 0; i < g_n_scale_rows; i++)
        appendf(list, sizeof list, &used, "%s%s", i ? (i == g_n_scale_rows - 1 ? " or " : ", ") : "",
                g_scale_rows[i].mode == SCALE_CONST ? "a positive number" : g_scale_rows[i].name);
    return list;
}

/* ------------------------------------------------------------------ the order of the keys */

int stage_compare(const char *a, const char *b)
{
    int ra = !strcmp(a, LR_STAGE) ? 0 : !strcmp(a, "headline") ? 1 : 2;
    int rb = !strcmp(b, LR_STAGE) ? 0 : !strcmp(b, "headline") ? 1 : 2;
    return ra != rb ? ra - rb : strcmp(a, b);
}

/* strcmp, except that runs of digits compare as numbers: dmodel=64 < dmodel=128. */
static int natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
        if (da && db) {
            while (*a == '0') a++;
            while (*b == '0') b++;
            size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
            if (na != nb) return na < nb ? -1 : 1; /* more digits: larger */
            int c = strncmp(a, b, na);
            if (c) return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

int variant_compare(const char *a, const char *b)
{
    int ra = strcmp(a, "-") != 0, rb = strcmp(b, "-") != 0;
    if (ra != rb) return ra - rb;
    int c = natural_compare(a, b);
    return c ? c : strcmp(a, b); /* "01" and "1": still one order */
}
