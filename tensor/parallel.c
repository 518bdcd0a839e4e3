/* parallel.c - the column-blocked reduction (see parallel.h). */
#include "parallel.h"

void parallel_column_blocks(int cols, size_t work, ColumnBlockFn fn, void *ctx)
{
    int blocks = (cols + COLUMN_BLOCK - 1) / COLUMN_BLOCK;
    (void)work; /* read by the OpenMP if clause only: unused in a build without OpenMP */
#pragma omp parallel for schedule(static) if (work >= PARALLEL_MIN)
    for (int blk = 0; blk < blocks; blk++) {
        int j0 = blk * COLUMN_BLOCK, j1 = j0 + COLUMN_BLOCK < cols ? j0 + COLUMN_BLOCK : cols;
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
