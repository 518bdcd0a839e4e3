/* bench_load.h - the "busy neighbour" rows of the benchmark (see bench_load.c). */
#ifndef BENCH_BENCH_LOAD_H
#define BENCH_BENCH_LOAD_H

#include <stdio.h>

/* Times `train --quiet` with its default thread count and with --threads=1, on the quiet
 * machine and beside `cores` busy processes; prints a table and writes "load" rows to csv. */
void bench_busy_neighbour(const char *train, int cores, FILE *csv);

#endif
