/* bench_torch.h - the PyTorch side of the benchmark's comparison: reads the CSV that
 * scripts/torch_bench.py writes (PyTorch's ms/step per config and setting, measured on this
 * machine) and prints ours / PyTorch's best per config. No figure is typed in.
 *
 * The file: a marker line, '#' comment lines (among them "# torch: ..." and "# blas: ..."),
 * the header "config,setting,threads,ms_per_step", then one row per config and setting.
 */
#ifndef BENCH_BENCH_TORCH_H
#define BENCH_BENCH_TORCH_H

#include <stdbool.h>
#include <stddef.h>

#define TORCH_BENCH_DEFAULT "build/torch_bench.csv"
#define TORCH_BENCH_MARKER "# torch_bench.py output: PyTorch training-step times for lab/bench/bench.c"
#define TORCH_BENCH_COLUMNS "config,setting,threads,ms_per_step"

enum { TORCH_MAX_ROWS = 512 };

typedef struct TorchRow {
    char config[8];
    char setting[64];
    int threads;
    double ms; /* median ms per training step */
} TorchRow;

typedef struct TorchTable {
    char path[512];
    char torch[256]; /* the "# torch: " line's text */
    char blas[768];  /* the "# blas: " line's text */
    char date[64];   /* the "# date: " line's text, or "" */
    int n;
    TorchRow rows[TORCH_MAX_ROWS];
} TorchTable;

/* Reads the file at `path`: 1 when read, 0 when there is no such file, -1 when it cannot be
 * read or is not well-formed (err then holds a one-line message naming the file and line). */
int torch_table_read(const char *path, TorchTable *t, char *err, size_t errlen);

/* The fastest row of config `name`, or NULL when the file has none. */
const TorchRow *torch_table_best(const TorchTable *t, const char *name);

/* The line to print when the file is absent: how to produce it. */
void torch_print_absent(const char *path);

/* The side-by-side table: its title and header (naming the file, its torch and BLAS lines),
 * then one row per config from our best median ms/step (and the thread count that gave it),
 * measured in this run. A config the file lacks gets a row saying so. */
void torch_print_header(const TorchTable *t);
void torch_print_row(const TorchTable *t, const char *config, double our_ms, int our_threads);

#endif
