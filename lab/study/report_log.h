/* report_log.h - a CSV log of ./train (--log) read whole, its columns found by the table of
 * run/log_columns.h: the table ./train writes them by. */
#ifndef STUDY_REPORT_LOG_H
#define STUDY_REPORT_LOG_H

#include "../../run/log_columns.h"

enum { LOG_MAX_LAYERS = 256 };

typedef struct LogTable {
    char *command;                            /* its first comment line without "# " (the command that
                                                 made the run, "./train --task=sort ..."); NULL: none */
    int rows, cols;
    double *value;                            /* rows x cols; NAN for an empty cell */
    int layers[N_LOG_COLUMNS];                /* how many layers of each column the log has (1: a run-wide one); 0: absent */
    int *col[N_LOG_COLUMNS];                  /* their places in a row, layer by layer */
} LogTable;

/* Reads a log: its comment lines (LOG_COMMENT ...), its header and its rows. Every row must be whole: as many fields as the header, each a number or empty,
 * and a line end. A log cut short (a full disk, a copy interrupted) is an error naming the file
 * and line, never a partial table. `multiplier` names the learned multiplier whose column
 * ("l%d_<multiplier>") is read as LOG_MULTIPLIER ("scale_x_sqrt_dk"), or is NULL: none. */
void log_table_read(LogTable *t, const char *path, const char *multiplier);
/* Refuses (exit 2, naming the column) a log without a column every run of ./train writes: a
 * file of a step and a loss is no run's log. */
void log_table_require_whole(const LogTable *t, const char *path);
void log_table_free(LogTable *t);

/* The value of column c in row i (0: the first, rows - 1: the last), as the mean over the
 * layers for a per-layer column; NAN when a value is empty or the log has no such column. */
double log_table_mean(const LogTable *t, LogColumnId c, int i);

#endif
