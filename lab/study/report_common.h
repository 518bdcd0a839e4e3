/* report_common.h - what every part of ./report uses beside the trainer's helpers (the one way
 * out, die, from run/exit.h; memory, mem_alloc and mem_free, from tensor/base.h): copies of
 * text, numbers as text and back, and files read whole or written under a temporary name. */
#ifndef STUDY_REPORT_COMMON_H
#define STUDY_REPORT_COMMON_H

#include "../../run/exit.h"
#include "../../tensor/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A copy of s (of its first n bytes), from mem_alloc: freed with mem_free. */
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Which numbers a text may spell: finite ones only, or also "nan", "-nan", "inf", "-inf". */
typedef enum NumberWords { FINITE_ONLY, NAN_AND_INF_TOO } NumberWords;
/* A plain decimal number that is the whole of text (no spaces, no hex, nothing after it). A
 * number too large for a double (1e400) is none: it is not "inf". */
bool parse_number(const char *text, double *out, NumberWords words);
bool parse_long(const char *text, long *out);
/* The text of a number for runs.csv: %.6g, and "nan" for any NaN (printf may write "-nan"). */
void format_number(char *buf, size_t n, double v);

/* The whole of a regular file, NUL-terminated, its length in *size. When the file does not
 * exist: NULL with MAY_BE_ABSENT, an error with MUST_EXIST; every other failure (a FIFO, a
 * directory, a read error, a NUL byte) dies, naming the file. */
typedef enum FileNeed { MUST_EXIST, MAY_BE_ABSENT } FileNeed;
char *read_text(const char *path, size_t *size, FileNeed need);

/* Output files are written under a temporary name and renamed when complete, so a reader
 * never sees half a table. out_open returns the stream; out_close checks and renames. */
typedef struct OutFile {
    FILE *f;
    char path[4096], tmp[4096];
} OutFile;
FILE *out_open(OutFile *o, const char *dir, const char *name);
void out_close(OutFile *o);
/* dir/name into buf (dies when it does not fit). */
void out_path(char *buf, size_t n, const char *dir, const char *name);
/* mkdir -p dir; dies when a part of it is not a folder. */
void out_make_dirs(const char *dir);

#endif
