/* exit.h - how ./train ends when it cannot go on: one line on stderr, and an exit status
 * scripts can tell apart. */
#ifndef RUN_EXIT_H
#define RUN_EXIT_H

enum {
    EXIT_USER = 2,      /* bad input: a flag, a config file, the data, a checkpoint, an output path */
    EXIT_NONFINITE = 3, /* a NaN or an infinity in training, with --nan=stop */
};

/* Prints "error: <message>" (one line: control characters become '?') and exits with `code`. */
_Noreturn void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
