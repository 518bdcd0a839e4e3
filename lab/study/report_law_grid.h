/* report_law_grid.h - law_grid.md: the law experiment's outcomes against c at each dk (docs/
 * ablation/DESIGN.md, "The estimates": per dk, the success count with its Wilson interval and
 * the Kaplan-Meier median steps to learn against c; the median sigma0 and end entropy against
 * c). One table per group (stage, steps, rate) and init, a row per (dk, c), from runs.csv's rows
 * alone (report_law_groups.h). */
#ifndef STUDY_REPORT_LAW_GRID_H
#define STUDY_REPORT_LAW_GRID_H

#include "report_law_groups.h"

/* Writes dir/law_grid.md from the groups of report_law_groups.h, and dir/law_grid.svg (two rows
 * of panels, a column per init: the share of runs learned and the Kaplan-Meier median steps
 * against c, a line per dk) for the group law.svg shows, when there is one. */
void write_law_grid(const char *dir, const LawGroup *gs, int ng);

#endif
