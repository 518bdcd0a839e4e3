/* op_cross_entropy.c - mean cross-entropy from logits, fused with the log-softmax.
 *
 * loss_n = -log softmax(z_n)[t_n] = lse(z_n) - z_n[t_n],  lse(z) = m + log sum_j exp(z_j - m)
 * with m = max_j z_j, so nothing overflows even for logits of size 1e4. The mean is over the
 * positions whose mask is set (count of them); masked-out rows get no loss and no gradient.
 */
#include "ops.h"
#include "parallel.h"

#include <assert.h>
#include <string.h>

typedef struct CrossEntropySaved {
    const real *lse;  /* per row: log sum_j exp(z_j) */
    const int *targets; /* per row: the target, or -1 where masked out */
    int count;        /* rows that count */
} CrossEntropySaved;

static void cross_entropy_backward(Tape *tp, TapeEntry *e)
{
    Tensor *z = e->in[0];
    const CrossEntropySaved *s = e->saved;
    const int *t = s->targets;
    const real *lse = s->lse;
    int V = tensor_cols(z);
    size_t rows = tensor_rows(z);
    int count = s->count;
    if (count == 0) return;
    real scale = e->out->grad[0] / count, *dz = tape_grad(tp, z);
    /* d loss / d z_j = (softmax(z)_j - [j == t]) / count */
#pragma omp parallel for schedule(static) if (z->size >= PARALLEL_MIN)
    for (size_t r = 0; r < rows; r++) {
        if (t[r] < 0) continue; /* masked out */
        const real *zr = z->data + r * V;
        real *d = dz + r * V;
        for (int j = 0; j < V; j++) d[j] += scale * real_exp(zr[j] - lse[r]);
        d[t[r]] -= scale;
    }
}

Tensor *op_cross_entropy(Tape *tp, Tensor *logits, const int *targets, const unsigned char *mask)
{
    int V = tensor_cols(logits);
    size_t rows = tensor_rows(logits);
    real *lse = arena_alloc(tp->arena, rows * sizeof(real));
    int *t = arena_alloc(tp->arena, rows * sizeof(int)); /* target, or -1 where masked out */
    real *loss = arena_alloc(tp->arena, rows * sizeof(real));
    int count = 0;
    for (size_t r = 0; r < rows; r++) {
        bool on = !mask || mask[r];
        if (on) assert(targets[r] >= 0 && targets[r] < V);
        t[r] = on ? targets[r] : -1;
        count += on;
    }
#pragma omp parallel for schedule(static) if (logits->size >= PARALLEL_MIN)
    for (size_t r = 0; r < rows; r++) {
        const real *zr = logits->data + r * V;
        real m = zr[0], s = 0;
        for (int j = 1; j < V; j++) m = zr[j] > m ? zr[j] : m;
        for (int j = 0; j < V; j++) s += real_exp(zr[j] - m);
        lse[r] = m + real_log(s);
        loss[r] = t[r] >= 0 ? lse[r] - zr[t[r]] : 0;
    }
    double sum = 0; /* summed in row order, in double: the same for any thread count */
    for (size_t r = 0; r < rows; r++) sum += loss[r];
    int one = 1;
    Tensor *out = tensor_new(tp->arena, 1, &one, "cross_entropy");
    out->data[0] = count ? (real)(sum / count) : 0;
    TapeEntry *e = tape_push(tp, cross_entropy_backward, "cross_entropy", out, logits, NULL, NULL);
    /* 4 per logit (max, subtraction, exp, sum) and 3 per row (log, + m, - z_t); the backward
     * reads the logits and keeps lse and the targets per row */
    tape_cost(e, 4 * (uint64_t)logits->size + 3 * (uint64_t)rows, TAPE_READS_IN0, rows * (sizeof(real) + sizeof(int)));
    if (e) {
        CrossEntropySaved *s = tape_save(tp, e, sizeof *s);
        s->lse = lse;
        s->targets = t;
        s->count = count;
    }
    return out;
}
