/* report_tables.h - best_lr.tsv and summary.md, from runs.csv's rows only. */
#ifndef STUDY_REPORT_TABLES_H
#define STUDY_REPORT_TABLES_H

#include "report_cells.h"

/* best_lr.tsv: the chosen rate of each (task, optim, scale, dk, variant) of stage lr. */
void write_best_lr(const char *dir, const Cells *cs);
/* summary.md: the tables of every stage, from the cells of the rows. */
void write_summary(const char *dir, const Cells *cs, const Row *rows, int n_rows);

#endif
