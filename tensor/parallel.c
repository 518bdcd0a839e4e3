/* parallel.c - the column-blocked reduction (see parallel.h). */
#include "parallel.h"

#include "openmp.h"

void parallel_column_blocks(int cols, size_t work, ColumnBlockFn fn, void *ctx)
{
    /* Narrower blocks (down to 16 columns) when there are fewer blocks than threads: a column's
     * sum is the same whatever block it is in, so only the split changes. */
    int width = COLUMN_BLOCK, threads = work >= PARALLEL_MIN ? omp_get_max_threads() : 1;
    while (width > 16 && (cols + width - 1) / width < threads) width /= 2;
    int blocks = (cols + width - 1) / width;
#pragma omp parallel for schedule(static) if (work >= PARALLEL_MIN)
    for (int blk = 0; blk < blocks; blk++) {
        int j0 = blk * width, j1 = j0 + width < cols ? j0 + width : cols;
        fn(ctx, j0, j1);
    }
}

typedef struct SumRows {
    const real *g;
    size_t rows;
    int n;
    real *dst;
} SumRows;

static void sum_rows_block(void *ctx, int j0, int j1)
{
    const SumRows *c = ctx;
    real acc[COLUMN_BLOCK] = {0};
    for (size_t r = 0; r < c->rows; r++) {
        const real *row = c->g + r * (size_t)c->n;
        for (int j = j0; j < j1; j++) acc[j - j0] += row[j];
    }
    for (int j = j0; j < j1; j++) c->dst[j] += acc[j - j0];
}

void sum_rows_into(const real *g, size_t rows, int n, real *dst)
{
    SumRows c = {g, rows, n, dst};
    parallel_column_blocks(n, rows * (size_t)n, sum_rows_block, &c);
}
