/* log_columns.h - what ./train writes for other programs to read: the columns of its CSV log
 * (--log) and the fields of its summary line, one table each. The writers (run/logbook.c,
 * train.c) and the reader (./report's lab/study/report_io.c) all follow these tables, so a column
 * is named, formatted and described in one place. Depends on nothing but the C library.
 *
 * The log: a comment line "# ./train --task=sort ..." (the command of log_command_put), a
 * header line, then a row every --log-every steps. The columns of a run, in order,
 * are the table's rows in table order; a per-layer row ("l%d_score_std") stands for one column
 * per layer, and consecutive per-layer rows of the same presence form a block that is written
 * layer by layer: l0_score_mean, .., l0_gnorm_wk, l1_score_mean, .., l1_gnorm_wk, then the next
 * block. The summary line: "summary: steps=20 final_loss=0.5 ... time_s=1.5", its fields in
 * table order. */
#ifndef RUN_LOG_COLUMNS_H
#define RUN_LOG_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How a value is written: a double (LOG_REAL) or an integer (LOG_COUNT, a long). */
typedef enum LogType { LOG_REAL, LOG_COUNT } LogType;
/* Which columns a run has: those present always, and that of its learned multiplier, when it
 * learns one (the learned s of --scale=learned, cosine attention's temperature tau: the column
 * the multiplier's row names, model/attn_spec.h); and which fields a summary line has: the test
 * set's only when the run has one (--test-size), the evaluations' rounding counts only with a
 * reduced --precision. */
typedef enum LogPresence { LOG_ALWAYS, LOG_LEARNED_MULTIPLIER, LOG_WITH_TEST_SET, LOG_WITH_PRECISION } LogPresence;
/* Which rows fill a column: every row, or only those of an evaluation step (empty in the others). */
typedef enum LogFilled { LOG_EVERY_ROW, LOG_EVAL_ROWS } LogFilled;
/* The values a field can hold; a reader refuses any other (log_range_holds). */
typedef enum LogRange {
    RANGE_ANY,         /* any number, NaN and ±Inf included */
    RANGE_COUNT,       /* a whole number >= 0 */
    RANGE_STEP,        /* a whole number >= -1 (-1: never) */
    RANGE_ACCURACY,    /* from 0 to 1 */
    RANGE_FRACTION,    /* from 0 to 1, or NaN (nothing to measure, e.g. no test set) */
    RANGE_NONNEGATIVE, /* >= 0, +Inf, or NaN (a run that met a NaN) */
    RANGE_SECONDS,     /* a finite number >= 0 */
} LogRange;

/* One column of the log, or one field of the summary line. */
typedef struct LogField {
    const char *name;      /* "loss"; per layer "l%d_score_std" (%d: the layer, from 0) */
    const char *format;    /* the printf format of one value, of a double or a long (type) */
    LogType type;
    LogPresence present;   /* the summary's fields: always, or only with a test set */
    LogFilled filled;      /* the summary's fields: every line */
    LogRange range;
    const char *meaning;   /* what it holds, in a few words */
} LogField;

/* ------------------------------------------------------------------ the CSV log */

typedef enum LogColumnId {
    LOG_STEP, LOG_LOSS, LOG_LR, LOG_GRAD_NORM, LOG_TOKENS_PER_S, LOG_TIME_S,
    LOG_SCORE_MEAN, LOG_SCORE_STD, LOG_ENTROPY, LOG_ENTROPY_NORM, LOG_MAX_WEIGHT, LOG_GNORM_WQ, LOG_GNORM_WK,
    LOG_MULTIPLIER,
    LOG_QGRAD_MEDIAN, LOG_QGRAD_P10, LOG_JAC_MEDIAN, LOG_JAC_P10, LOG_FP_OVERFLOWS, LOG_FP_UNDERFLOWS, LOG_FP_NANS,
    LOG_VAL_LOSS, LOG_VAL_ACC, LOG_NAN_COUNT,
    N_LOG_COLUMNS
} LogColumnId;
extern const LogField g_log_columns[N_LOG_COLUMNS];

/* True for a column per layer ("l%d_..."). */
bool log_column_per_layer(LogColumnId c);
/* The name of column c in the file: "loss", or "l3_score_std" for layer 3 of a per-layer one;
 * LOG_MULTIPLIER's is "l3_<multiplier>", the column its row names ("scale_x_sqrt_dk", "tau"). */
void log_column_name(char *buf, size_t n, LogColumnId c, int layer, const char *multiplier);

/* Calls visit(ctx, column, layer) for every column of the log of a run with `layers` layers, with
 * or without a learned multiplier, in file order; layer is -1 for a column that is not per layer.
 * The header and each row are written by walking this order. */
typedef void LogVisit(void *ctx, LogColumnId column, int layer);
void log_columns_each(int layers, bool has_multiplier, LogVisit *visit, void *ctx);

/* The log's first line: LOG_COMMENT and the command that makes the run's model, e.g. "# ./train
 * --task=sort --dk=64" (control characters written as '?': one line). A reader skips the lines
 * that start with LOG_COMMENT before the header, and takes the command from the first. */
#define LOG_COMMENT "#"
int log_command_put(FILE *out, const char *command);

/* ------------------------------------------------------------------ the summary line */

typedef enum SummaryFieldId {
    SUMMARY_STEPS, SUMMARY_FINAL_LOSS, SUMMARY_VAL_LOSS, SUMMARY_VAL_ACC, SUMMARY_STEPS_TO_THRESHOLD, SUMMARY_NAN_COUNT,
    SUMMARY_FP_OVERFLOWS, SUMMARY_FP_UNDERFLOWS, SUMMARY_FP_NANS,
    SUMMARY_EVAL_FP_OVERFLOWS, SUMMARY_EVAL_FP_UNDERFLOWS, SUMMARY_EVAL_FP_NANS, SUMMARY_TEST_LOSS, SUMMARY_TEST_ACC,
    SUMMARY_TEST_EXAMPLES, SUMMARY_TIME_S,
    N_SUMMARY_FIELDS
} SummaryFieldId;
extern const LogField g_summary_fields[N_SUMMARY_FIELDS];
#define SUMMARY_PREFIX "summary:"

/* ------------------------------------------------------------------ values */

/* Whether v is a value of range r, and the range in words ("a whole number >= 0"). */
bool log_range_holds(LogRange r, double v);
const char *log_range_text(LogRange r);

/* A value to write: `real` for a LOG_REAL field, `count` for a LOG_COUNT one; or an empty cell. */
typedef struct LogValue {
    double real;
    long count;
    bool empty;
} LogValue;
static inline LogValue log_real(double v) { return (LogValue){.real = v}; }
static inline LogValue log_count(long v) { return (LogValue){.count = v}; }
static inline LogValue log_empty(void) { return (LogValue){.empty = true}; }

/* Writes one value of field f in its format (nothing for an empty one); returns fprintf's count
 * (negative on a failed write). */
int log_value_put(FILE *out, const LogField *f, LogValue v);
/* "summary: steps=.. final_loss=.. ... time_s=..\n", the values indexed by SummaryFieldId; a
 * field whose value is empty is left out (the test set's, when a run has none). */
void summary_print(FILE *out, const LogValue values[N_SUMMARY_FIELDS]);

#endif
