/* report_slower.h - slower.md: "fails, or slower?" of docs/ablation/DESIGN.md, from runs.csv's
 * rows of stage slower alone: the primaries' failing cells at five times the budget, each
 * against 1/sqrt(dk) of its task. Per cell: the runs that learned (reached the loss threshold)
 * within the budget with a Wilson interval, the Kaplan-Meier median of the steps to learn, and
 * the success count at the end. Per contrast: the log-rank test, Holm over all contrasts, the
 * direction (O - E of the cell), and the verdict: "slower", "fails within the budget" (no run
 * learned), "faster", or "not distinguishable". */
#ifndef STUDY_REPORT_SLOWER_H
#define STUDY_REPORT_SLOWER_H

#include "report_rows.h"

#include <stdbool.h>

#define SLOWER_STAGE "slower"

/* Writes dir/slower.md when some done run is of stage slower; false (nothing written) when
 * none is. */
bool write_slower(const char *dir, const Row *rows, int n_rows);

#endif
