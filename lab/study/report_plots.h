/* report_plots.h - the SVG plots of a study. */
#ifndef STUDY_REPORT_PLOTS_H
#define STUDY_REPORT_PLOTS_H

#include "report_cells.h"

/* Writes the plots of the cells' runs into dir (the curves: from the runs' logs, in id order,
 * none for a runs.csv alone); returns how many files it wrote. */
int write_plots(const char *dir, const Cells *cs, const Curve *curves, int n_curves);

#endif
