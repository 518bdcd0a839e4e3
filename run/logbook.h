/* logbook.h - what ./train reports while it trains: per-layer attention metrics, a CSV row and
 * a console line every --log-every steps. The CSV columns are the rows of the table in
 * log_columns.c (and listed in the README). */
#ifndef RUN_LOGBOOK_H
#define RUN_LOGBOOK_H

#include "attention_stats.h"
#include "../model/attn_spec.h"

#include <stdio.h>

/* One layer's measurements at a logged step. */
typedef struct LayerMetrics {
    AttentionStats att;
    double gnorm_wq, gnorm_wk; /* before clipping; NaN when the backward pass did not run */
    double multiplier;         /* a learned multiplier per head: its column's value from the heads' mean
                                  (the learned s: s * sqrt(dk), 1 = the 1/sqrt(dk) rule; cosine's tau) */
    FormatCounts rounding;     /* --precision: what rounding did in this layer's attention so far */
} LayerMetrics;

typedef struct Logbook {
    FILE *csv;                 /* NULL without --log */
    const char *csv_path;
    bool quiet;
    int layers;
    const HeadMultiplier *multiplier; /* the layers' learned multiplier, if any: its column */
    LayerMetrics layer[GPT_MAX_LAYERS];
    double t_start;            /* when the log was opened: the rows' time_s counts from it */
    double last_loss;          /* the loss of the last row; NaN before any */
    int rows;                  /* rows written (console or CSV) by this process */
    char failed[512];          /* after a failed write: which output, and why */
} Logbook;

/* What one row reports. */
typedef struct LogRow {
    int step, stop;            /* steps done, and the step this run stops at */
    double loss;               /* mean training loss since the last row */
    double lr, grad_norm;      /* of the last step */
    double tokens_per_s;       /* in the training steps since the last row */
    double elapsed, seconds_left;
    bool evaluated;            /* this row has an evaluation: */
    double val_loss, val_acc;  /* held-out loss and exact-match accuracy */
    long nan_count;
} LogRow;

/* The time a run has left, from the rate of its steps since the first row this process logged:
 * that first row cannot know it (its step grows the arena, and is measured), so it gets NaN. */
typedef struct TimeLeft {
    int from_step;             /* the first row's step (0: no row yet) */
    double from_time;          /* and its time */
} TimeLeft;
/* Seconds left after `done` of `stop` steps at `elapsed` seconds; NaN at the first row. */
double time_left(TimeLeft *t, int done, double elapsed, int stop);

/* Opens the CSV file (when path is not empty) and writes its first line, "# " and the command
 * that makes the run's model, and its header; false (lb->failed says why) if it cannot be
 * created or written. A run resumed at step resume_step > 0 continues an existing log of the
 * same columns instead (its first lines kept, its rows after that step dropped: the run does
 * those steps again), and refuses a file that is not such a log. */
bool logbook_open(Logbook *lb, const char *path, const GptConfig *c, bool quiet, int resume_step, const char *command);
/* The per-layer metrics of this step from its attention traces and gradients (has_grads: the
 * backward pass ran), with rounding[l], layer l's rounding counts since the run started. valid[b * T + t]: the input at (b, t) is a real token, not padding.
 * Scratch space comes from the tape's arena. */
void logbook_measure(Logbook *lb, const Gpt *m, const AttentionTrace *trace, const FormatCounts *rounding,
                     Arena *scratch, const unsigned char *valid, bool has_grads);
/* A CSV row and (unless quiet) a console line, with the metrics of the last measure. Every
 * write is checked: false (lb->failed says which output and why) when one failed, a full disk
 * or a closed pipe. */
bool logbook_row(Logbook *lb, const LogRow *row);
/* Whether everything written to standard output so far got there; false with lb->failed. */
bool logbook_stdout_ok(Logbook *lb);
void logbook_close(Logbook *lb);

#endif
