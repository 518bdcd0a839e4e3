/* progress.h - a line on stderr now and then while long work goes on (drawing two million
 * held-out sources, evaluating a test set of a million examples): nothing during its first
 * PROGRESS_QUIET_S seconds, so that work of ordinary size prints nothing, then a line every
 * PROGRESS_EVERY_S: "WHAT: DONE of TOTAL, N s". */
#ifndef TENSOR_PROGRESS_H
#define TENSOR_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

#define PROGRESS_QUIET_S 5.0
#define PROGRESS_EVERY_S 10.0

typedef struct Progress {
    const char *what;   /* e.g. "held-out sets, distinct sources drawn" */
    long total;
    double start;       /* monotonic seconds at progress_start */
    double next;        /* seconds since start when the next line is due */
    FILE *out;          /* stderr; a test may point it elsewhere */
} Progress;

/* total <= 0: not known beforehand ("WHAT: DONE so far, N s"). */
void progress_start(Progress *p, const char *what, long total);
/* Reads the clock and prints a line when one is due; cheap enough to call every batch, but not
 * every element. */
void progress_update(Progress *p, long done);
/* The same at a given time (seconds since progress_start): true when it printed. For the tests. */
bool progress_update_at(Progress *p, long done, double elapsed);

#endif
