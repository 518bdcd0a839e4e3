/* report_outcome_table.h - the pre-registered part of the outcome analysis, in one place: per
 * task, the test accuracy that counts a run as a success, what guessing gets, and the test
 * whose corrected p-value gives the verdict; and the list of primary contrasts. ./report reads
 * these tables (report_outcomes.c), docs/ablation/DESIGN.md quotes them ("Pre-registration",
 * as outcome_table_markdown prints them; tests/test_outcomes.c checks the quote). */
#ifndef STUDY_REPORT_OUTCOME_TABLE_H
#define STUDY_REPORT_OUTCOME_TABLE_H

#include <stdbool.h>
#include <stdio.h>

/* The test of a task's contrasts: success counts (Fisher's exact test, for tasks whose runs
 * either learn or stay near guessing) or the paired test accuracy (the sign-flip test). */
typedef enum OutcomeTest { OUTCOME_FISHER, OUTCOME_SIGN_FLIP } OutcomeTest;

typedef struct OutcomeTask {
    const char *task;
    const char *flags;       /* ./train's flags for the task at the study's budget (the calibrated ones) */
    double threshold;        /* a run succeeds when its test accuracy >= threshold */
    double chance;           /* the exact-match accuracy of the best guess */
    const char *chance_note; /* the settings the chance level is for */
    OutcomeTest test;
    int sweep_seeds;         /* seeds per rate in the learning-rate sweep: 101, 102, ... */
} OutcomeTask;
extern const OutcomeTask g_outcome_tasks[];
extern const int g_n_outcome_tasks;
/* The row of a task; NULL when the task has none (no outcome analysis for it). */
const OutcomeTask *outcome_task(const char *task);

/* One side of a contrast: a variant ("-": the plain model) and a scale (as in jobs.tsv). */
typedef struct OutcomeSide {
    const char *variant, *scale;
} OutcomeSide;

/* A primary contrast, made on every task of g_outcome_tasks: a - b at one optimizer and dk. */
typedef struct PrimaryContrast {
    const char *optim;
    double dk;
    OutcomeSide a, b;
    const char *question; /* what it asks, for the tables */
} PrimaryContrast;
extern const PrimaryContrast g_primary_contrasts[];
extern const int g_n_primary_contrasts;

/* A cell the study runs besides the primaries' sides, on every task of g_outcome_tasks: swept
 * and tested like them, contrasted as a secondary (against 1/sqrt(dk) of its own variant). */
typedef struct StudyCell {
    const char *optim;
    double dk;
    OutcomeSide side;
} StudyCell;
extern const StudyCell g_secondary_cells[];
extern const int g_n_secondary_cells;

/* The study's cells, the same for every task, in the order ./report --design lists them: each
 * primary's a then b, then the secondary cells; each (optim, dk, side) once. Writes them and
 * whether each is a side of a primary; returns how many. */
enum { MAX_STUDY_CELLS = 64 };
int outcome_study_cells(StudyCell cells[MAX_STUDY_CELLS], bool primary[MAX_STUDY_CELLS]);

/* The significance level of every verdict, applied to corrected p-values. */
#define OUTCOME_ALPHA 0.05

/* Both tables as Markdown, the block DESIGN.md quotes. */
void outcome_table_markdown(FILE *f);

/* What scripts/ablation.sh runs, read from the tables above (`./report --design`): a header, then
 * one line per task x cell, tab-separated: task, role (primary or secondary), optim, scale, dk,
 * variant, and the task's ./train flags, success threshold, chance level and test (fisher or
 * sign-flip). Each cell once per task (a side shared by two primaries, as
 * 1/sqrt(dk) at dk 64, is one line). */
void outcome_design_tsv(FILE *f);

#endif
