/* report_plot_outcomes.h - outcomes_TASK.svg: every test run of a task of the outcome table
 * (report_outcome_table.c), one column per cell of the design, with the statistic its verdicts
 * are read from. */
#ifndef STUDY_REPORT_PLOT_OUTCOMES_H
#define STUDY_REPORT_PLOT_OUTCOMES_H

#include "report_cells.h"
#include "report_outcome_table.h"

/* Writes dir/outcomes_TASK.svg for task t when a cell of the design has runs of it outside stage
 * "lr"; returns whether it wrote one. */
bool plot_outcomes(const char *dir, const Cells *cs, const OutcomeTask *t);

#endif
