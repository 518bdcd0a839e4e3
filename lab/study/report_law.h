/* report_law.h - law.md and law.svg: the law experiment of docs/ablation/DESIGN.md ("Pre-
 * registration: the law"), from runs.csv's rows alone.
 *
 * Its runs are those of stages cal (the calibration, seeds 201-202), law (the experiment) and
 * robust (the robustness arm at other rates), each with the variant qk-init=INIT,steps=N and a
 * constant scale: s = c/sqrt(dk) with c a power of 2. Per group of runs sharing stage, steps
 * and rate, under each init:
 *   c* of a seed at a dk: the c with the fewest steps to the loss threshold (ties: the lower
 *     final training loss); undefined when no c reached it;
 *   per dk: the median c* over seeds with a 95 % percentile bootstrap interval (10 000
 *     resamples of the seeds, a fixed seed), the median sigma0 (the raw q.k std at step 1:
 *     score_std_init / s) and the prediction 1/sigma0;
 *   per seed: alpha_i = minus the least-squares slope of log2 s* on log2 dk (at least 3 dk;
 *     none while some run of that seed's grid is planned and not done);
 *     alpha-hat = their mean with its Student t interval; alpha_pred = the slope of log2 sigma0
 *     on log2 dk over every run (and its spread: the same from each seed's runs).
 * For stage cal, whether each budget qualifies (at every dk, init and seed some c reached the
 * threshold and some did not) and the seeds the experiment needs (exact t power, DESIGN.md);
 * where the two inits' runs at one (dk, c, seed) are alike in every number (the same weights:
 * H dk = C), law.md names that dk;
 * for stage law, the six pre-registered tests (alpha = 0, 1, alpha_pred per init), Holm-
 * corrected, each with its MDD at the alpha it is judged at -- judged only once the seeds the
 * calibration sized are done; before that an interim look, shown and not judged. */
#ifndef STUDY_REPORT_LAW_H
#define STUDY_REPORT_LAW_H

#include "report_rows.h"

#include <stdbool.h>

/* Writes dir/law.md and dir/law_grid.md (report_law_grid.h) when some done run is of a law
 * stage, and dir/law.svg and dir/law_grid.svg when a group of them has 3 dk or more; returns 2
 * or 3: the markdown files, and the figures or not. Dies (exit 2) on a law run whose variant or scale is not the design's. */
int write_law(const char *dir, const Row *rows, int n_rows);

#endif
