/* attention.c - multi-head causal self-attention, and the one place where the scores are formed.
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

/* ------------------------------------------------------------------ the score multiplier */

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

const char *scale_mode_name(int mode, const char **help)
{
    static const char *const names[][2] = {
        [SCALE_ONE] = {"1", "raw q.k: its std grows like sqrt(dk)"},
        [SCALE_SQRT] = {"sqrt", "s = 1/sqrt(dk): score std near 1 at any head size"},
        [SCALE_DK] = {"dk", "s = 1/dk"},
        [SCALE_LEARNED] = {"learned", "one learned s per head, initially 1/sqrt(dk)"},
    };
    if (mode < 0 || mode >= SCALE_CONST) return NULL;
    if (help) *help = names[mode][1];
    return names[mode][0];
}

/* ------------------------------------------------------------------ score rules */

/* A score rule turns the queries and keys of every head, q and k [B, H, T, dk], into the
 * attention weights P [B, H, T, T] (causal mask, softmax: row i spreads 1 over keys j <= i),
 * and says in *trace what it computed. Each way of forming scores is one rule, in one table. */
typedef Tensor *(*ScoreRule)(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace);

/* S = s q k^T. A fixed s is folded into the softmax (one pass, S never stored); a learned s is
 * a parameter per head with its own op. */
static Tensor *dot_product_weights(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                                   AttentionTrace *trace)
{
    tp->scope = ly->label[LABEL_SCORES];
    Tensor *qk = op_matmul(tp, q, k, TRANSPOSE_B);
    if (cfg->scale_mode == SCALE_LEARNED) {
        Tensor *S = op_scale_heads(tp, qk, ly->scale);
        tp->scope = ly->label[LABEL_WEIGHTS];
        *trace = (AttentionTrace){.scores = S, .scale = 1, .weights = op_softmax(tp, S, MASK_CAUSAL)};
    } else {
        real s = (real)attention_scale(cfg->scale_mode, cfg->scale_const, cfg->dk);
        tp->scope = ly->label[LABEL_WEIGHTS];
        *trace = (AttentionTrace){.scores = qk, .scale = s, .weights = op_softmax_scaled(tp, qk, s, MASK_CAUSAL)};
    }
    return trace->weights;
}

static const ScoreRule g_score_rules[] = {
    [ATTN_DOT] = dot_product_weights,
};

/* ------------------------------------------------------------------ the attention block */

Tensor *attention_forward(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *a, AttentionTrace *trace)
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

    /* P [B, H, T, T]: entry (i, j) is how much query i takes from key j (0 for j > i) */
    assert(cfg->attn >= 0 && cfg->attn < (int)(sizeof g_score_rules / sizeof g_score_rules[0]));
    Tensor *P = g_score_rules[cfg->attn](tp, ly, cfg, q, k, trace);

    /* o = P v, heads merged back: [B, H, T, dk] -> [B, T, H, dk] -> [B, T, H*dk] -> Wo */
    P = op_dropout(tp, P, (real)cfg->attn_dropout);
    tp->scope = ly->label[LABEL_ATTN_OUT];
    Tensor *o = op_matmul(tp, P, v, TRANSPOSE_NONE);
    o = op_reshape(tp, op_permute(tp, o, 4, to_heads), 3, merged);
    return op_linear(tp, o, ly->wo, ly->bo);
}
