/* report_glance.h - one run or a few at a glance, from the CSV logs ./train --log writes. */
#ifndef STUDY_REPORT_GLANCE_H
#define STUDY_REPORT_GLANCE_H

/* Draws the curves of the logs on shared axes into dir (STEM.svg for one log, STEM_and_K_more.svg
 * for several, STEM: the first log's file name without .csv) and prints a table of them on
 * standard output. Dies (exit 2, one line) on a file that is not such a log. */
void report_glance(const char *const *logs, int n_logs, const char *dir);

#endif
