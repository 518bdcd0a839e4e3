/* tensor.c - creating tensors in an arena and the small shape helpers. */
#include "tensor.h"

#include <assert.h>
#include <string.h>

Tensor *tensor_new(Arena *a, int ndim, const int *shape, const char *name)
{
    assert(ndim >= 1 && ndim <= TENSOR_MAX_DIMS);
    Tensor *t = arena_calloc(a, sizeof *t);
    t->ndim = ndim;
    t->size = 1;
    for (int d = 0; d < ndim; d++) {
        assert(shape[d] >= 1);
        t->shape[d] = shape[d];
        t->size *= (size_t)shape[d];
    }
    for (int d = ndim; d < TENSOR_MAX_DIMS; d++) t->shape[d] = 1;
    t->data = arena_alloc(a, t->size * sizeof(real));
    t->name = name;
    return t;
}

Tensor *tensor_new2(Arena *a, int d0, int d1, const char *name)
{
    int s[2] = {d0, d1};
    return tensor_new(a, 2, s, name);
}

Tensor *tensor_new3(Arena *a, int d0, int d1, int d2, const char *name)
{
    int s[3] = {d0, d1, d2};
    return tensor_new(a, 3, s, name);
}

Tensor *tensor_new4(Arena *a, int d0, int d1, int d2, int d3, const char *name)
{
    int s[4] = {d0, d1, d2, d3};
    return tensor_new(a, 4, s, name);
}

size_t tensor_rows(const Tensor *t) { return t->size / (size_t)t->shape[t->ndim - 1]; }

int tensor_cols(const Tensor *t) { return t->shape[t->ndim - 1]; }

bool tensor_same_shape(const Tensor *a, const Tensor *b)
{
    if (a->ndim != b->ndim) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->shape[d] != b->shape[d]) return false;
    return true;
}

size_t find_nonfinite(const real *x, size_t n)
{
    /* Fast pass: x * 0 is 0 for finite x and NaN for NaN or +-inf, so the sum is NaN exactly
     * when some element is not finite. (This is why -ffast-math is banned: it may assume
     * no NaN exists and delete the test.) */
    real probe = 0;
#pragma omp simd reduction(+ : probe)
    for (size_t i = 0; i < n; i++) probe += x[i] * 0;
    if (probe == 0) return SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return i;
    return SIZE_MAX;
}
