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
/* The rows of a runs.csv (a, na) and of folders (b, nb) as one list sorted by id, into *out
 * (both arrays are taken over, and freed). A run in both must be planned alike (every column of
 * jobs.tsv but the command, which names the folder its log went to); where both hold
 * it done, with the same results (it is kept once), else the done one is kept. Dies otherwise. */
void merge_rows(Row *a, int na, Row *b, int nb, Row **out, int *n_out);
void free_curves(Curve *curves, int n_curves);

#endif
