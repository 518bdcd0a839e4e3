/* attn_cosine.c - cosine attention (Swin Transformer v2): S = tau_h q.k / (|q| |k|). cos is in
 * [-1, 1] at any dk, so the multiplier is the learned temperature tau_h alone (--scale plays no
 * part). */
#include "attn_spec.h"

static Tensor *cosine_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace)
{
    (void)ly;
    Tensor *qn = attention_stored(tp, cfg, op_l2_normalize(tp, q, (real)GPT_L2NORM_EPS), MASK_NONE, trace);
    Tensor *kn = attention_stored(tp, cfg, op_l2_normalize(tp, k, (real)GPT_L2NORM_EPS), MASK_NONE, trace);
    return op_matmul(tp, qn, kn, TRANSPOSE_B);
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
