/* attention.c - multi-head causal self-attention, and the one place the score scale is chosen.
 *
 * Why scale at all: if the entries of q and k are independent with mean 0 and variance 1,
 *     Var(q . k) = sum_i Var(q_i k_i) = dk,
 * so raw scores grow like sqrt(dk) and, for large dk, the softmax saturates towards a one-hot
 * row. Multiplying by s = 1/sqrt(dk) brings Var(s q . k) back to 1 at any head size. Whether
 * that matters for training, and how much, is what `--scale` lets you measure.
 */
#include "gpt.h"

#include <assert.h>
#include <math.h>

double attention_scale(ScaleMode mode, double scale_const, int dk)
{
    switch (mode) {
    case SCALE_ONE: return 1.0;
    case SCALE_SQRT: return 1.0 / sqrt((double)dk);
    case SCALE_DK: return 1.0 / dk;
    case SCALE_CONST: return 1.0 / scale_const;
    case SCALE_LEARNED: break;
    }
    assert(!"a learned scale is a parameter, not a constant");
    return 0;
}

Tensor *attention_forward(Tape *tp, GptLayer *ly, const GptConfig *cfg, Tensor *a)
{
    int B = a->shape[0], T = a->shape[1], H = cfg->heads, dk = cfg->dk;
    int split[4] = {B, T, H, dk}, to_heads[4] = {0, 2, 1, 3}, merged[3] = {B, T, H * dk};

    /* q, k, v: [B, T, H*dk] -> [B, T, H, dk] -> [B, H, T, dk], one matrix per (batch, head) */
    tp->scope = ly->label[LABEL_QUERIES];
    Tensor *q = op_permute(tp, op_reshape(tp, op_linear(tp, a, ly->wq, ly->bq), 4, split), 4, to_heads);
    tp->scope = ly->label[LABEL_KEYS];
    Tensor *k = op_permute(tp, op_reshape(tp, op_linear(tp, a, ly->wk, ly->bk), 4, split), 4, to_heads);
    tp->scope = ly->label[LABEL_VALUES];
    Tensor *v = op_permute(tp, op_reshape(tp, op_linear(tp, a, ly->wv, ly->bv), 4, split), 4, to_heads);

    /* S = s q k^T: [B, H, T, T]; entry (i, j) is how much query i matches key j.
     * causal: position i attends to j <= i only; masked weights are exactly 0.
     * A fixed s is folded into the softmax (one pass, S never stored); a learned s is a
     * parameter per head with its own op. */
    tp->scope = ly->label[LABEL_SCORES];
    Tensor *qk = op_matmul(tp, q, k, false, true);
    Tensor *P;
    if (cfg->scale_mode == SCALE_LEARNED) {
        Tensor *S = op_scale_heads(tp, qk, ly->scale);
        tp->scope = ly->label[LABEL_WEIGHTS];
        P = op_softmax(tp, S, true);
        ly->scores = S;
        ly->score_scale = 1;
    } else {
        real s = (real)attention_scale(cfg->scale_mode, cfg->scale_const, cfg->dk);
        tp->scope = ly->label[LABEL_WEIGHTS];
        P = op_softmax_scaled(tp, qk, s, true);
        ly->scores = qk;
        ly->score_scale = s;
    }
    ly->probs = P;

    /* o = P v, heads merged back: [B, H, T, dk] -> [B, T, H, dk] -> [B, T, H*dk] -> Wo */
    P = op_dropout(tp, P, (real)cfg->attn_dropout);
    tp->scope = ly->label[LABEL_ATTN_OUT];
    Tensor *o = op_matmul(tp, P, v, false, false);
    o = op_reshape(tp, op_permute(tp, o, 4, to_heads), 3, merged);
    return op_linear(tp, o, ly->wo, ly->bo);
}
