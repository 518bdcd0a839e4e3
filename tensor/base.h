/* base.h - the few helpers every part of the project uses: counted heap memory, one-line error
 * messages and overflow-safe sizes. Nothing here knows about tensors or transformers.
 */
#ifndef TENSOR_BASE_H
#define TENSOR_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Every heap allocation of the project goes through mem_alloc/mem_free so that a test can
 * count them: after the first training step the count must stop moving. Any thread may call them. */
void *mem_alloc(size_t bytes);   /* 64-byte aligned (as malloc below 64 bytes), zeroed; exits with a message when out of memory */
void mem_free(void *p);
uint64_t mem_alloc_count(void);  /* number of mem_alloc calls so far */
/* A growing array's new block: new_bytes, with the first used_bytes copied from old (freed). */
void *mem_grow(void *old, size_t used_bytes, size_t new_bytes);
/* Room for one more item in a growing array of n items of item_bytes each: when n fills *cap,
 * a block of twice as many (`first` when there is none yet), the n items kept; else old. */
void *mem_grow_array(void *old, int n, int *cap, size_t item_bytes, int first);

/* The names of an enumeration, as a flag spells them: table[v] = {name, help} for each value v
 * of 0 .. n-1. Returns the name of v (and its help in *help, when help is not NULL); NULL past
 * the last, which is how the option parser walks the values. */
typedef const char *const NameTable[][2];
const char *name_of(NameTable table, int n, int v, const char **help);
/* The value of an enumeration whose name is `name`, from its names function (a NameTable's, or a
 * table of specs': names(v, NULL) for v = 0, 1, ... up to NULL); -1 when none has it. */
int name_find(const char *(*names)(int value, const char **help), const char *name);

/* The edit distance between a and b: the fewest single-character insertions, deletions,
 * substitutions and swaps of two neighbours that turn one into the other ("stpes" -> "steps":
 * 1). For did-you-mean hints; names of up to 63 characters (longer: INT_MAX). */
int edit_distance(const char *a, const char *b);

/* The one known name near a mistyped one, for "did you mean": offer every known name, then ask.
 * Near is within 1 edit (2 for a name of 6 or more characters); none on a tie, or when nothing
 * is near. */
typedef struct NearestName {
    const char *typed;
    int best;           /* the smallest distance offered so far */
    const char *found;  /* the name at it; NULL on a tie */
} NearestName;
NearestName nearest_start(const char *typed);
void nearest_offer(NearestName *n, const char *known);
const char *nearest_found(const NearestName *n);
/* For a mistyped flag ("--rnus=x": its leading dashes and any "=value" left out), the near one
 * of the NULL-ended names `known` ("runs"), or NULL. */
const char *nearest_flag(const char *arg, const char *const *known);

/* User errors are reported, not printed, by the code that finds them: errorf writes a one-line
 * message into err (as snprintf) and returns false, so `return errorf(err, n, "...");` both
 * explains and fails. The program's main prints the message and exits with status 2. */
bool errorf(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Appends to buf[0 .. len) at *used, as snprintf would (nothing once it is full). */
void appendf(char *buf, size_t len, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Replaces control characters (newlines among them) in a message by '?': errorf does it. */
void message_one_line(char *msg);

/* Opens an existing regular file for reading ("rb"). Anything else is refused without
 * blocking: a directory, a device, a socket, or a FIFO (whose plain open() would wait forever
 * for a writer). On failure returns NULL with the reason in `why` ("No such file or
 * directory", "a FIFO, not a regular file"), for the caller's message. */
FILE *file_open_regular(const char *path, char *why, size_t why_len);
/* What a file of this st_mode is, for messages: "a directory", "a FIFO", "a character device"... */
const char *file_kind(mode_t mode);

/* Text files as people write them: the line starting at `pos` of text[0..size), its length
 * returned and the start of the next in *next. A line ends at "\n", "\r\n" or a lone "\r"
 * (Unix, Windows, old Mac). */
size_t text_line(const char *text, size_t size, size_t pos, size_t *next);
/* 3 when text starts with a UTF-8 byte-order mark (EF BB BF), which editors may add; else 0. */
size_t text_bom(const char *text, size_t size);

/* The length in bytes (1 to 4) of the well-formed UTF-8 character at s[0..n), or 0 when the
 * bytes there are not one (a stray continuation byte, a truncated sequence, an overlong form,
 * a surrogate or a value past U+10FFFF). */
size_t utf8_char(const unsigned char *s, size_t n);

/* Overflow-safe size arithmetic: false when a*b (or a+b) does not fit in size_t. */
bool size_mul(size_t a, size_t b, size_t *out);
bool size_add(size_t a, size_t b, size_t *out);

/* Seconds on a clock that never jumps (CLOCK_MONOTONIC): for timing and for the thread
 * governor's windows; tensor/openmp.h's omp_get_wtime without OpenMP. */
double base_monotonic_seconds(void);

#endif
