/* parallel.h - how the engine's loops share work between threads, deterministically.
 *
 * The rule: threads split the *outputs* of a loop, never a sum. Each output element is computed
 * by one thread, and a sum is always added up by one thread in a fixed order, so the result has
 * the same bits for any number of threads. A sum over rows (the gradient of a bias, of a
 * LayerNorm gain, of an embedding table) is therefore split by column: parallel_column_blocks.
 */
#ifndef TENSOR_PARALLEL_H
#define TENSOR_PARALLEL_H

#include "tensor.h"

/* Below this many elements of work, a parallel region costs more than it saves: loops run on
 * one thread (`#pragma omp parallel for ... if (n >= PARALLEL_MIN)`). */
enum { PARALLEL_MIN = 32768 };

/* The same threshold for loops whose element costs about 8 adds (a tanh, libm's exp, a rounding
 * to a reduced-precision format): 8x fewer elements make the same work. */
enum { PARALLEL_MIN_HEAVY = PARALLEL_MIN / 8 };

/* A matrix product (gemm) below this many floating-point operations runs on one thread: it
 * takes ~20 us, and waking the threads for a parallel region costs about as much. */
enum { PARALLEL_MIN_FLOPS = 1000000 };

/* Width of the column blocks of a column-blocked reduction: a block's partial sums fit in
 * registers or L1 (a local `real acc[COLUMN_BLOCK]`). */
enum { COLUMN_BLOCK = 64 };

/* fn(ctx, j0, j1) sums, over all rows in order, the columns [j0, j1) (at most COLUMN_BLOCK) of
 * whatever it reduces. parallel_column_blocks calls it once for each block of `cols` columns,
 * the blocks spread over the threads when `work` (elements read) is at least PARALLEL_MIN;
 * blocks narrow (to 16 columns at least) when there would be fewer than threads. */
typedef void (*ColumnBlockFn)(void *ctx, int j0, int j1);
void parallel_column_blocks(int cols, size_t work, ColumnBlockFn fn, void *ctx);

/* dst[j] += sum over r of g[r * n + j]: the gradient of a bias broadcast over rows. */
void sum_rows_into(const real *g, size_t rows, int n, real *dst);

#endif
