/* report_plots.h - the SVG plots of a study. */
#ifndef STUDY_REPORT_PLOTS_H
#define STUDY_REPORT_PLOTS_H

#include "report_rows.h"

/* Writes the plots into dir; returns how many files it wrote. */
int write_plots(const char *dir, const Row *rows, int n_rows, const Curve *curves, int n_curves);

#endif
