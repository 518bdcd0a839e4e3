/* report_tables.h - best_lr.tsv and summary.md, from runs.csv's rows only. */
#ifndef STUDY_REPORT_TABLES_H
#define STUDY_REPORT_TABLES_H

#include "report_rows.h"

void write_best_lr(const char *dir, const Row *rows, int n_rows);
void write_summary(const char *dir, const Row *rows, int n_rows);

/* What the plots need from the tables: the lr of the highest mean validation accuracy (ties:
 * the smaller) among the runs of one (stage, task, optim, variant, scale, dk); in stage lr, the
 * chosen rate of best_lr.tsv. NAN when none has a done run. */
double best_lr(const Row *rows, int n_rows, const char *stage, const char *task, const char *optim, const char *variant,
               const char *scale, double dk);

#endif
