/* report_outcomes.h - outcomes.md: the outcome analysis of the tasks of report_outcome_table.c,
 * from runs.csv's rows only (every stage but the sweep "lr").
 *
 * Per cell (one stage, task, optimizer, variant, scale and dk, at its rate of the best mean
 * validation accuracy): successes / n with a Wilson interval, and the Kaplan-Meier median of the
 * steps to ./train's loss threshold (steps_to_threshold; a run that never reached it is
 * censored at its last step). Per contrast a - b (one task, optimizer and dk; each side's cell
 * from the stage holding it with the most done runs): Fisher's p on the success counts, the
 * sign-flip p on the test accuracy paired by seed, the paired difference with its t interval,
 * the difference of success rates with Newcombe's interval, the log-rank p on the steps, and
 * the minimum detectable difference of the task's test at that n. The primaries
 * (g_primary_contrasts on every task) are Holm-corrected together; the secondaries (every other
 * cell against 1/√dₖ of its variant, or of the plain model) by Benjamini-Hochberg. The verdict
 * is outcome_verdict's, on the corrected p of the task's test. */
#ifndef STUDY_REPORT_OUTCOMES_H
#define STUDY_REPORT_OUTCOMES_H

#include "report_cells.h"
#include "report_outcome_table.h"
#include "stats_outcomes.h"

typedef enum OutcomeVerdict { OUTCOME_NO_TEST, OUTCOME_HIGHER, OUTCOME_LOWER, OUTCOME_NOT_DISTINCT } OutcomeVerdict;
/* The rule: "higher" / "lower" (the sign of the effect a - b) when the corrected p < OUTCOME_ALPHA,
 * else not distinguishable; no test when p or the effect is NaN. */
OutcomeVerdict outcome_verdict(double p_corrected, double effect);

/* A run counts in the outcomes when it is done and has a test accuracy. */
bool outcome_counts(const Row *r);

/* A cell's outcome. */
typedef struct OutcomeCell {
    int n, successes;      /* done runs with a test accuracy; those at or above the threshold */
    StatsInterval wilson;
    StatsKm km;            /* steps to the loss threshold */
} OutcomeCell;
OutcomeCell outcome_cell(const Cell *c, const OutcomeTask *t);
/* The cell of (task, optim, side, dk) at its best rate, from the stage (not "lr") where it has
 * the most done runs (ties: the first stage); NULL when no stage has it. The cell every table
 * and plot of the outcomes reads for that side. */
const Cell *outcome_find(const Cells *cs, const char *task, const char *optim, const OutcomeSide *s, double dk);

typedef struct OutcomeContrast {
    const OutcomeTask *task;
    const char *optim;
    double dk;
    OutcomeSide a, b;
    bool primary;
    const Cell *ca, *cb;   /* NULL: not run */
    OutcomeCell oa, ob;
    double fisher_p;
    StatsCi diff;          /* paired a - b of test accuracy, over the seeds both have */
    double sign_flip_p;
    bool sign_flip_exact;
    StatsInterval rate_diff; /* p_a - p_b, Newcombe */
    double logrank_p;
    double p, p_corrected; /* the task's test, raw and corrected (NaN: no test) */
    double effect;         /* what the verdict's sign is read from: rate_diff.est or diff.mean */
    double alpha;          /* the level its own p is judged at: its Holm or BH step */
    double sd_pairs;       /* sd of the paired differences (the sign-flip test's MDD scales with it) */
    double mdd_up, mdd_down; /* of the task's test at this n and alpha, power 0.8, for a above and below b
                              * (NaN: none within reach; the sign-flip test's two are equal) */
    int n_mdd;             /* that n: the smaller group (Fisher) or the pairs (sign-flip) */
    OutcomeVerdict verdict;
} OutcomeContrast;

/* Every contrast, the primaries first (in table order, task by task), corrected and judged. */
int outcome_contrasts(const Cells *cs, OutcomeContrast **out);
/* "higher", "lower", "not distinguishable (MDD ±0.453 at α 0.00333)", "no test (not run)" ... */
void outcome_verdict_text(char *buf, size_t n, const OutcomeContrast *c);

/* outcomes.md in dir; nothing when no run is of a task of the table. Returns whether written. */
bool write_outcomes(const char *dir, const Cells *cs);

#endif
