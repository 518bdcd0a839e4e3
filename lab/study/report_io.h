/* report_io.h - the inputs of ./report: result folders (merged by run id) and runs.csv. */
#ifndef STUDY_REPORT_IO_H
#define STUDY_REPORT_IO_H

#include "report_rows.h"

/* Reads and merges the folders' jobs, summaries and logs; dies on any inconsistency. Fills
 * *rows (sorted by id) and *curves (the runs with a log). */
void load_folders(const char *const *folders, int n_folders, Row **rows, int *n_rows, Curve **curves, int *n_curves);
void write_runs_csv(const char *path, const Row *rows, int n_rows);
/* Reads runs.csv (as write_runs_csv writes it); dies on anything else. */
void read_runs_csv(const char *path, Row **rows, int *n_rows);
void free_rows(Row *rows, int n_rows);
void free_curves(Curve *curves, int n_curves);

#endif
