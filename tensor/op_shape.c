/* op_shape.c - reshape (a view) and permute (a copy), to reorder the dims of a tensor. */
#include "ops.h"
#include "parallel.h"

#include <assert.h>

Tensor *op_reshape(Tape *tp, Tensor *x, int ndim, const int *shape)
{
    Tensor *out = arena_calloc(tp->arena, sizeof *out);
    *out = *x;
    out->ndim = ndim;
    size_t size = 1;
    for (int d = 0; d < TENSOR_MAX_DIMS; d++) {
        out->shape[d] = d < ndim ? shape[d] : 1;
        size *= (size_t)out->shape[d];
    }
    assert(size == x->size);
    out->name = "reshape";
    /* Same numbers, same gradient buffer (taken from x when first needed: see tape_grad): the
     * gradient needs no translation and no tape entry. */
    out->requires_grad = x->requires_grad && tp->grad_enabled;
    out->grad = x->grad; /* set for persistent x (a parameter); NULL for x of this step */
    out->grad_pooled = false;
    out->view_of = x;
    return out;
}

/* Offsets of x's elements in the order of out's: out[o0][o1][o2][o3] = x[offset(o)]. */
typedef struct PermuteGeometry {
    int out_shape[4];
    size_t in_stride[4]; /* stride in x of each of out's dims */
} PermuteGeometry;

static PermuteGeometry permute_geometry(const Tensor *x, int ndim, const int *perm)
{
    PermuteGeometry g;
    size_t stride[4];
    stride[3] = 1;
    for (int d = 2; d >= 0; d--) stride[d] = stride[d + 1] * (size_t)x->shape[d + 1];
    /* x's dims past ndim are 1 and stay in place */
    for (int d = 0; d < 4; d++) {
        int src = d < ndim ? perm[d] : d;
        assert(src >= 0 && src < 4);
        g.out_shape[d] = x->shape[src];
        g.in_stride[d] = stride[src];
    }
    return g;
}

typedef struct PermuteSaved {
    int perm[TENSOR_MAX_DIMS];
} PermuteSaved;

static void permute_backward(Tape *tp, TapeEntry *e)
{
    Tensor *x = e->in[0];
    const PermuteSaved *saved = e->saved;
    PermuteGeometry g = permute_geometry(x, x->ndim, saved->perm);
    bool first_in; /* every element of dx is reached once: written when no gradient was there */
    real *dx = tape_grad_whole(tp, x, &first_in);
    const bool first = first_in; /* a copy the loop can keep in a register */
    const real *go = e->out->grad;
    int *s = g.out_shape;
    /* out is a rearrangement of x, so each gradient value goes back to where it came from */
#pragma omp parallel for collapse(2) schedule(static) if (x->size >= PARALLEL_MIN)
    for (int a = 0; a < s[0]; a++)
        for (int b = 0; b < s[1]; b++) {
            const real *src = go + ((size_t)a * s[1] + b) * s[2] * s[3];
            for (int c = 0; c < s[2]; c++)
                for (int d = 0; d < s[3]; d++) {
                    real *to = &dx[a * g.in_stride[0] + b * g.in_stride[1] + c * g.in_stride[2] + d * g.in_stride[3]];
                    *to = first ? src[(size_t)c * s[3] + d] : *to + src[(size_t)c * s[3] + d];
                }
        }
}

Tensor *op_permute(Tape *tp, Tensor *x, int ndim, const int *perm)
{
    assert(ndim == x->ndim);
    bool seen[4] = {false};
    for (int d = 0; d < ndim; d++) {
        assert(perm[d] >= 0 && perm[d] < ndim && !seen[perm[d]]);
        seen[perm[d]] = true;
    }
    PermuteGeometry g = permute_geometry(x, ndim, perm);
    Tensor *out = tensor_new(tp->arena, ndim, g.out_shape, "permute");
    int *s = g.out_shape;
#pragma omp parallel for collapse(2) schedule(static) if (x->size >= PARALLEL_MIN)
    for (int a = 0; a < s[0]; a++)
        for (int b = 0; b < s[1]; b++) {
            real *dst = out->data + ((size_t)a * s[1] + b) * s[2] * s[3];
            for (int c = 0; c < s[2]; c++)
                for (int d = 0; d < s[3]; d++)
                    dst[(size_t)c * s[3] + d] =
                        x->data[a * g.in_stride[0] + b * g.in_stride[1] + c * g.in_stride[2] + d * g.in_stride[3]];
        }
    TapeEntry *e = tape_push(tp, permute_backward, "permute", out, x, NULL, NULL);
    tape_cost(e, 0, 0, 0); /* a copy; the backward needs only the permutation */
    if (e) {
        PermuteSaved *saved = tape_save(tp, e, sizeof *saved);
        for (int d = 0; d < ndim; d++) saved->perm[d] = perm[d];
    }
    return out;
}
