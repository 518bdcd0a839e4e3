/* report.h - what the parts of ./report share (see report.c for the program).
 *
 *   report_io.c      the inputs: result folders (jobs.tsv, runs/ID.out, runs/ID.csv), their
 *                    merge, and runs.csv (written, and read back)
 *   report_tables.c  best_lr.tsv and summary.md, from runs.csv's rows only
 *   report_plots.c   the SVG plots
 *   report_probe.c   the probe figure, from ./probe's Markdown output
 *   report.c         main: the command line, the output files, small shared helpers
 */
#ifndef STUDY_REPORT_H
#define STUDY_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
enum { N_SUMMARY_METRICS = M_TIME_S + 1 };
extern const char *const g_metric_cols[N_METRICS];

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

/* ------------------------------------------------------------------ report.c: helpers */

/* Prints "report: <message>" on one line and exits with status 2. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void *xmalloc(size_t bytes);
void *xrealloc(void *p, size_t bytes);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A number that is the whole of text (no spaces, nothing after it); NaN and Inf only when
 * allowed ("nan", "-nan", "inf"). */
bool parse_number(const char *text, double *out, bool allow_nonfinite);
bool parse_long(const char *text, long *out);
/* The text of a number for runs.csv: %.6g, and "nan" for any NaN (printf may write "-nan"). */
void format_number(char *buf, size_t n, double v);

/* Scales: "1", "sqrt", "dk", a constant c (s = 1/c), "learned-sqrt", "learned-1", and "none"
 * (a score rule that takes no scale: cosine, additive). */
bool scale_valid(const char *s, double *c);
/* Orders scales: 1, sqrt, dk, constants by value, learned-sqrt, learned-1, none. */
int scale_compare(const char *a, const char *b);
/* "1/√dₖ" and so on: for tables (markdown), or with plain = true for plots ("1/√dk": no
 * subscript letters, which not every SVG font has). */
const char *scale_label(const char *s, bool plain);

/* Output files are written under a temporary name and renamed when complete, so a reader
 * never sees half a table. out_open returns the stream; out_close checks and renames. */
typedef struct OutFile {
    FILE *f;
    char path[4096], tmp[4096];
} OutFile;
FILE *out_open(OutFile *o, const char *dir, const char *name);
void out_close(OutFile *o);
/* dir/name into buf. */
void out_path(char *buf, size_t n, const char *dir, const char *name);

/* ------------------------------------------------------------------ report_io.c */

/* Reads and merges the folders' jobs, summaries and logs; dies on any inconsistency. Fills
 * *rows (sorted by id) and *curves (the runs with a log). */
void load_folders(const char *const *folders, int n_folders, Row **rows, int *n_rows, Curve **curves, int *n_curves);
void write_runs_csv(const char *path, const Row *rows, int n_rows);
/* Reads runs.csv (as write_runs_csv writes it); dies on anything else. */
void read_runs_csv(const char *path, Row **rows, int *n_rows);
void free_rows(Row *rows, int n_rows);
void free_curves(Curve *curves, int n_curves);

/* ------------------------------------------------------------------ report_tables.c */

/* The stage whose runs choose the learning rate. */
#define LR_STAGE "lr"

void write_best_lr(const char *dir, const Row *rows, int n_rows);
void write_summary(const char *dir, const Row *rows, int n_rows);

/* What the plots need from the tables: the lr of the highest mean validation accuracy (ties:
 * the smaller) among the runs of one (stage, task, optim, variant, scale, dk); in stage lr, the
 * chosen rate of best_lr.tsv. NAN when none has a done run. */
double best_lr(const Row *rows, int n_rows, const char *stage, const char *task, const char *optim, const char *variant,
               const char *scale, double dk);
/* Orders of the table keys: stage (lr, headline, then by name), variant ("-" first). */
int stage_compare(const char *a, const char *b);
int variant_compare(const char *a, const char *b);

/* ------------------------------------------------------------------ report_plots.c */

/* Writes the plots into dir; returns how many files it wrote. */
int write_plots(const char *dir, const Row *rows, int n_rows, const Curve *curves, int n_curves);

/* ------------------------------------------------------------------ report_probe.c */

/* probe_softmax.svg in dir: entropy and Jacobian norm vs dk per divisor, from the tables of
 * ./probe's output (sections 5 and 6). Returns the number of plots written (1). */
int report_probe_plot(const char *probe_md, const char *dir);

#endif
