/* report_rows.h - the rows of a study, which every part of ./report reads: the columns of
 * jobs.tsv and runs.csv, one row per planned run, the scales, and the order of the table keys. */
#ifndef STUDY_REPORT_ROWS_H
#define STUDY_REPORT_ROWS_H

#include "../../model/scale_table.h"
#include "../../run/log_columns.h"

#include <stdbool.h>
#include <stddef.h>

/* The columns of jobs.tsv, in order. */
enum { JOB_ID, JOB_STAGE, JOB_TASK, JOB_OPTIM, JOB_SCALE, JOB_DK, JOB_LR, JOB_SEED, JOB_VARIANT, JOB_COMMAND, N_JOB_COLS };
extern const char *const g_job_cols[N_JOB_COLS];

/* The per-run numbers of runs.csv, in column order: from the summary line (M_STEPS ..
 * M_TIME_S), then from the CSV log (M_STD_INIT .. M_SCALE_END, means over layers of the first
 * and the last row; M_ENTROPY_END, the attention entropy / log(visible keys) at the last step;
 * M_WQ_GRAD_INIT, the norm of Wq's gradient at the first step; M_SCALE_END,
 * s·√dₖ at the end, only for a learned multiplier). */
enum Metric {
    M_STEPS, M_VAL_ACC, M_VAL_LOSS, M_TEST_ACC, M_TEST_LOSS, M_TEST_EXAMPLES, M_FINAL_LOSS, M_STEPS_TO_THRESHOLD,
    M_NAN_COUNT, M_FP_OVERFLOWS, M_FP_UNDERFLOWS, M_FP_NANS, M_TIME_S,
    M_STD_INIT, M_STD_END, M_QGRAD_INIT, M_QGRAD_END, M_JAC_END, M_ENTROPY_END, M_WQ_GRAD_INIT, M_SCALE_END, N_METRICS
};
/* Where a number of runs.csv comes from: a field of the run's summary line, or a column of its
 * CSV log (its mean over layers) in the first or the last row; both named in the tables of
 * run/log_columns.h, which ./train writes them by. */
typedef enum MetricFrom { FROM_SUMMARY, FROM_FIRST_ROW, FROM_LAST_ROW } MetricFrom;
typedef struct MetricSpec {
    const char *name; /* its column in runs.csv; NULL for a summary field: the field's own name */
    MetricFrom from;
    int source;       /* a SummaryFieldId, or a LogColumnId */
} MetricSpec;
extern const MetricSpec g_metrics[N_METRICS];
/* The learned multiplier whose log column (LOG_MULTIPLIER) M_SCALE_END reads: the learned s of
 * --scale=learned, "scale_x_sqrt_dk" as model/attn_scale.c's row names it. */
extern const char *const g_metric_multiplier;
/* The name of metric m's column in runs.csv. */
const char *metric_name(int m);
/* Reads the text of metric m into *v: NULL when it is a number in the range of the field it
 * comes from (log_columns.h), else what it should be ("a whole number >= 0"). */
const char *metric_parse(int m, const char *text, double *v);

/* One row of runs.csv: a planned run and, when it is done, its numbers. The text of every
 * field is kept as it is written in runs.csv (numbers too), so the tables made from the
 * folders and from runs.csv read exactly the same digits. */
typedef struct Row {
    char *job[N_JOB_COLS];    /* the jobs.tsv fields (owned) */
    double dk, lr, scale_c;   /* parsed: dk, lr; the constant c of scale "c" (NAN for the named ones) */
    long seed;
    bool done;
    char *metric[N_METRICS];  /* text ("" when absent: a missing run, or no log) (owned) */
    double value[N_METRICS];  /* parsed; NAN when absent */
} Row;

/* The statistics of one run's CSV log over the steps, for the curves plot. */
typedef struct Curve {
    char *id;
    int n;
    double *step, *score_std, *qgrad_median; /* means over layers, per logged row */
    double *loss;                            /* the training loss (nats per target token), per logged row */
    double vocab;                            /* the run's vocabulary size (its first output line); NAN: unknown */
} Curve;

/* Scales: the names of model/scale_table.h's rows, and any number c > 0 (s = 1/c); *c is c. */
bool scale_valid(const char *s, double *c);
/* Orders scales as the table's rows, constants by value. */
int scale_compare(const char *a, const char *b);
/* Whether a scale is the rule 1/sqrt(dk) (the reference of every comparison), or "none" (a
 * score rule that takes no scale: cosine, additive). */
bool scale_is_rule(const char *s);
bool scale_is_none(const char *s);
/* A learned scale's s·√dₖ at the start (1 from 1/√dₖ, √dₖ from 1); NaN for a fixed scale. */
double scale_learned_start(const char *s, int dk);
/* "1/√dₖ" and so on (scale_write_label; one of 8 rotating buffers). */
const char *scale_label(const char *s, ScaleScript script);
/* "1, sqrt, ... or a positive number": the names, for a message. */
const char *scale_names(void);

/* The stage whose runs choose the learning rate. */
#define LR_STAGE "lr"
/* Orders of the table keys: stage (lr, headline, then by name), variant ("-" first). */
int stage_compare(const char *a, const char *b);
int variant_compare(const char *a, const char *b);

#endif
