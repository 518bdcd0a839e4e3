/* profile.c - the step's clock by kind of work (see profile.h). */
#include "profile.h"

#include "openmp.h"

#include <assert.h>
#include <string.h>

/* Each kind's label, in the enum's order. */
static const char *const kind_label[PROFILE_KINDS] = {
    [PROFILE_PRODUCT] = "products with weights (x W)",
    [PROFILE_GROUP_PRODUCT] = "per-head products (q k^T, P v)",
    [PROFILE_SOFTMAX] = "softmax",
    [PROFILE_LAYERNORM] = "LayerNorm",
    [PROFILE_GELU] = "GELU",
    [PROFILE_DROPOUT] = "dropout",
    [PROFILE_CROSS_ENTROPY] = "cross-entropy",
    [PROFILE_EMBEDDING] = "embedding",
    [PROFILE_ADD] = "residual adds (gradient accumulation)",
    [PROFILE_COPY] = "copies (permute)",
    [PROFILE_OTHER_OP] = "other ops",
    [PROFILE_GRAD_CLEAR] = "gradient clearing",
    [PROFILE_GRAD_NORM] = "gradient norm and clipping",
    [PROFILE_OPTIMIZER] = "optimizer update",
    [PROFILE_REST] = "the rest (tape reset, between ops)",
};

/* The ops' tape names (the strings their tape_push records) and their kinds. */
static const struct {
    const char *op;
    ProfileKind kind;
} op_kinds[] = {
    {"linear", PROFILE_PRODUCT},
    {"matmul", PROFILE_PRODUCT},
    {"matmul_groups", PROFILE_GROUP_PRODUCT},
    {"softmax", PROFILE_SOFTMAX},
    {"scaled softmax", PROFILE_SOFTMAX},
    {"naive softmax", PROFILE_SOFTMAX},
    {"layernorm", PROFILE_LAYERNORM},
    {"gelu", PROFILE_GELU},
    {"dropout", PROFILE_DROPOUT},
    {"cross_entropy", PROFILE_CROSS_ENTROPY},
    {"embedding", PROFILE_EMBEDDING},
    {"add", PROFILE_ADD},
    {"permute", PROFILE_COPY},
};

const char *profile_kind_label(ProfileKind kind)
{
    assert(kind >= 0 && kind < PROFILE_KINDS);
    return kind_label[kind];
}

ProfileKind profile_kind_of_op(const char *op)
{
    for (size_t i = 0; i < sizeof op_kinds / sizeof op_kinds[0]; i++)
        if (!strcmp(op_kinds[i].op, op)) return op_kinds[i].kind;
    return PROFILE_OTHER_OP;
}

void profile_clear(Profile *p)
{
    memset(p, 0, sizeof *p);
    p->mark = omp_get_wtime();
}

void profile_restart(Profile *p)
{
    if (p) p->mark = omp_get_wtime();
}

void profile_charge(Profile *p, ProfileKind kind, int pass)
{
    if (!p) return;
    assert(kind >= 0 && kind < PROFILE_KINDS && pass >= 0 && pass < PROFILE_PASSES);
    double now = omp_get_wtime();
    p->seconds[kind][pass] += now - p->mark;
    p->calls[kind][pass]++;
    p->mark = now;
}
