/* attn_qknorm.c - QK-LayerNorm (Henry et al. 2020 normalise; LayerNorm as in Dehghani et al.
 * 2023, ViT-22B): each head's q and k rows LayerNorm'ed over their dk entries, with a gain and a
 * bias shared by the heads. With gain 1 and bias 0, |q|^2 = |k|^2 = dk exactly, so
 * q.k = dk cos(q, k), and Var(q.k) = dk when the directions are random: the premise of
 * 1/sqrt(dk) holds at init whatever Wq and Wk are. Then S = s q.k as for dot. */
#include "attn_spec.h"

enum { QNORM_G, QNORM_B, KNORM_G, KNORM_B }; /* its parameters, [dk] each */

static void qknorm_params(Gpt *m, int l, Tensor **p)
{
    int dk = m->cfg.dk;
    p[QNORM_G] = gpt_add_param(m, 1, dk, 0, "h.%d.attn.qnorm.g", l, GPT_ONES);
    p[QNORM_B] = gpt_add_param(m, 1, dk, 0, "h.%d.attn.qnorm.b", l, GPT_ZEROS);
    p[KNORM_G] = gpt_add_param(m, 1, dk, 0, "h.%d.attn.knorm.g", l, GPT_ONES);
    p[KNORM_B] = gpt_add_param(m, 1, dk, 0, "h.%d.attn.knorm.b", l, GPT_ZEROS);
}

static Tensor *qknorm_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace)
{
    const real eps = (real)GPT_LAYERNORM_EPS;
    Tensor *const *p = ly->attn_param;
    /* [B, H, T, dk] copies: the gains' gradients add over rows head by head, as they always have */
    Tensor *qh = attention_heads_first(tp, cfg, q), *kh = attention_heads_first(tp, cfg, k);
    Tensor *qn = attention_stored(tp, cfg, op_layernorm(tp, qh, p[QNORM_G], p[QNORM_B], eps), MASK_NONE, trace);
    Tensor *kn = attention_stored(tp, cfg, op_layernorm(tp, kh, p[KNORM_G], p[KNORM_B], eps), MASK_NONE, trace);
    return op_matmul(tp, qn, kn, TRANSPOSE_B);
}

const AttnSpec attn_qknorm = {
    .name = "qknorm",
    .help = "S = s LN(q).LN(k): q and k LayerNorm'ed per head, learned gains (s: --scale)",
    .formula = "s LN(q).LN(k)",
    .scores = qknorm_scores,
    .scaled = true,
    .add_params = qknorm_params,
};
