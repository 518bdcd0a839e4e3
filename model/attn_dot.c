/* attn_dot.c - dot-product attention (Vaswani et al. 2017): S = s q.k, s as --scale says. */
#include "attn_spec.h"

/* q k^T for every head: [T, dk] x [dk, T] per (example, head), read in place */
static Tensor *dot_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k, AttentionTrace *trace)
{
    (void)ly, (void)trace;
    return attention_dot_products(tp, cfg, q, k);
}

const AttnSpec attn_dot = {
    .name = "dot",
    .help = "S = s q.k (s: --scale)",
    .formula = "s q.k",
    .scores = dot_scores,
    .scaled = true,
};
