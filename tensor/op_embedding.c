/* op_embedding.c - row lookup in a table, and its scatter-add gradient. */
#include "ops.h"
#include "parallel.h"

#include <assert.h>
#include <string.h>

typedef struct EmbeddingSaved {
    const int *ids; /* our own copy of the row ids (the caller may reuse its buffer) */
} EmbeddingSaved;

/* Columns [j0, j1) of the table's gradient: every gradient row added in order. */
typedef struct EmbeddingGrads {
    const int *ids;
    size_t n;
    int C;
    const real *g;
    real *dt;
} EmbeddingGrads;

static void embedding_grad_block(void *ctx, int j0, int j1)
{
    const EmbeddingGrads *c = ctx;
    for (size_t i = 0; i < c->n; i++) {
        real *dst = c->dt + (size_t)c->ids[i] * c->C;
        const real *src = c->g + i * c->C;
        for (int j = j0; j < j1; j++) dst[j] += src[j];
    }
}

static void embedding_backward(Tape *tp, TapeEntry *e)
{
    Tensor *table = e->in[0];
    const EmbeddingSaved *saved = e->saved;
    int C = tensor_cols(table);
    size_t n = tensor_rows(e->out);
    /* out[i] = table[ids[i]]  =>  dtable[v] = sum of g[i] over the i with ids[i] == v.
     * A row may be hit many times, so threads split the columns, not the rows. */
    EmbeddingGrads c = {saved->ids, n, C, e->out->grad, tape_grad(tp, table)};
    parallel_column_blocks(C, n * (size_t)C, embedding_grad_block, &c);
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
    tape_cost(e, 0, 0, n * sizeof(int)); /* a copy; the backward needs only the ids */
    if (e) {
        EmbeddingSaved *saved = tape_save(tp, e, sizeof *saved);
        int *copy = arena_alloc(tp->arena, n * sizeof(int));
        memcpy(copy, ids, n * sizeof(int));
        saved->ids = copy;
    }
    return out;
}
