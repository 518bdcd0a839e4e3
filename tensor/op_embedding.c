/* op_embedding.c - row lookup in a table, and its scatter-add gradient. */
#include "ops.h"

#include <assert.h>
#include <string.h>

static void embedding_backward(Tape *tp, TapeEntry *e)
{
    Tensor *table = e->in[0];
    const int *ids = e->aux;
    int C = tensor_cols(table);
    size_t n = tensor_rows(e->out);
    real *dt = tape_grad(tp, table);
    const real *g = e->out->grad;
    /* out[i] = table[ids[i]]  =>  dtable[v] = sum of g[i] over the i with ids[i] == v.
     * A row may be hit many times, so threads split the columns, not the rows. */
    enum { COLS = 64 };
    int blocks = (C + COLS - 1) / COLS;
#pragma omp parallel for schedule(static) if (n * (size_t)C >= 32768)
    for (int blk = 0; blk < blocks; blk++) {
        int j0 = blk * COLS, j1 = j0 + COLS < C ? j0 + COLS : C;
        for (size_t i = 0; i < n; i++) {
            real *dst = dt + (size_t)ids[i] * C;
            const real *src = g + i * C;
            for (int j = j0; j < j1; j++) dst[j] += src[j];
        }
    }
}

Tensor *op_embedding(Tape *tp, Tensor *table, const int *ids, int d0, int d1)
{
    assert(table->ndim == 2);
    int V = table->shape[0], C = table->shape[1];
    size_t n = (size_t)d0 * d1;
    Tensor *out = tensor_new3(tp->arena, d0, d1, C, "embedding");
    for (size_t i = 0; i < n; i++) {
        assert(ids[i] >= 0 && ids[i] < V);
        memcpy(out->data + i * C, table->data + (size_t)ids[i] * C, (size_t)C * sizeof(real));
    }
    TapeEntry *e = tape_push(tp, embedding_backward, "embedding", out, table, NULL, NULL);
    if (e) { /* keep our own copy of the ids: the caller may reuse its buffer */
        int *copy = arena_alloc(tp->arena, n * sizeof(int));
        memcpy(copy, ids, n * sizeof(int));
        e->aux = copy;
    }
    return out;
}
