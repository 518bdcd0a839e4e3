/* attn_cosine.c - cosine attention (Swin Transformer v2): S = tau_h q.k / (|q| |k|). cos is in
 * [-1, 1] at any dk, so the multiplier is the learned temperature tau_h alone (--scale plays no
 * part). */
#include "attn_spec.h"

/* x [B, T, H*dk] with each head's row of dk scaled to unit length, in place of x's (a view
 * [B, T, H, dk] normalised, viewed back) */
static Tensor *unit_rows(Tape *tp, const GptConfig *cfg, Tensor *x, AttentionTrace *trace)
{
    Tensor *n = op_l2_normalize(tp, attention_head_rows(tp, cfg, x), (real)GPT_L2NORM_EPS);
    return attention_stored(tp, cfg, op_reshape(tp, n, x->ndim, x->shape), MASK_NONE, trace);
}

static Tensor *cosine_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace)
{
    (void)ly;
    return attention_dot_products(tp, cfg, unit_rows(tp, cfg, q, trace), unit_rows(tp, cfg, k, trace));
}

static double tau_start(const GptConfig *c) { return c->tau_init; }
static double tau_logged(double mean, const GptConfig *c) { (void)c; return mean; }

static const HeadMultiplier tau = {
    .name = "tau",
    .param = "tau",
    .start = tau_start,
    .start_digits = 6,
    .column = "tau",
    .logged = tau_logged,
};

const AttnSpec attn_cosine = {
    .name = "cosine",
    .help = "S = tau cos(q, k), a learned tau per head from --tau-init (no --scale)",
    .formula = "tau cos(q, k)",
    .scores = cosine_scores,
    .unscaled_why = "cosine scores are tau cos(q, k), with a learned tau: see --tau-init",
    .multiplier = &tau,
    .reads = {"tau-init"},
};
