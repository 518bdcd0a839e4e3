/* attn_additive.c - additive attention (Bahdanau et al. 2015): S_ij = v_h . tanh(W1 q_i + W2 k_j).
 * Here q and k are already linear maps of the layer's input (a Wq + bq, a Wk + bk), so W1 and W2
 * are folded into Wq and Wk: a second matrix after them would only multiply into one. Each of
 * the T^2 pairs gets its own dk-vector, hence the memory: B H T^2 dk values, twice (sum and
 * tanh). No multiplier: that additive scores need no 1/sqrt(dk) is the claim under test. */
#include "attn_spec.h"

#include <stdio.h>

enum { ADDITIVE_V }; /* its parameter: v_h per head, [H, dk] */

/* v_h . tanh(...): Xavier as a [dk, 1] matrix per head */
static void additive_params(Gpt *m, int l, Tensor **p)
{
    const GptConfig *c = &m->cfg;
    p[ADDITIVE_V] = gpt_add_param(m, 2, c->heads, c->dk, "h.%d.attn.additive_v", l, gpt_xavier(c, c->dk, 1));
}

/* With heads first, [H, B T T, dk] . v_h [H, dk, 1] is one batched product per head. */
static Tensor *additive_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                               AttentionTrace *trace)
{
    int B = q->shape[0], T = q->shape[1], H = cfg->heads, dk = cfg->dk;
    /* [B, T, H, dk] -> [H, B, T, dk], a copy; and [H, B, T, T] -> [B, H, T, T] at the end */
    int to_heads_first[4] = {2, 0, 1, 3}, to_batch_first[4] = {1, 0, 2, 3};
    int rows[3] = {H * B, T, dk}, pairs[3] = {H, B * T * T, dk}, v_shape[3] = {H, dk, 1}, per_head[4] = {H, B, T, T};
    Tensor *qh = op_reshape(tp, op_permute(tp, attention_head_rows(tp, cfg, q), 4, to_heads_first), 3, rows);
    Tensor *kh = op_reshape(tp, op_permute(tp, attention_head_rows(tp, cfg, k), 4, to_heads_first), 3, rows);
    /* [H B, T, T, dk]: q_i + k_j, every pair (the hidden ones j > i too: they are rounded and
     * counted like the rest, though the mask then drops their scores) */
    Tensor *sum = attention_stored(tp, cfg, op_add_pairs(tp, qh, kh), MASK_NONE, trace);
    Tensor *th = attention_stored(tp, cfg, op_tanh(tp, sum), MASK_NONE, trace);
    Tensor *v = op_reshape(tp, ly->attn_param[ADDITIVE_V], 3, v_shape);
    Tensor *S = op_matmul(tp, op_reshape(tp, th, 3, pairs), v, TRANSPOSE_NONE);
    return op_permute(tp, op_reshape(tp, S, 4, per_head), 4, to_batch_first); /* [B, H, T, T] */
}

/* The pair tensors of one layer: q_i + k_j and its tanh for each of B H T^2 pairs, dk values
 * each, and their gradients. */
static double additive_bytes(const GptConfig *c, int B, int T, char *why, size_t len)
{
    double bytes = 4.0 * B * c->heads * (double)T * T * c->dk * sizeof(real);
    snprintf(why, len, "each layer keeps a dk-vector for every pair of positions, %.1f GiB for B x H x T^2 x dk = %d x "
                       "%d x %d^2 x %d with its tanh and gradients", bytes / (1ull << 30), B, c->heads, T, c->dk);
    return bytes;
}

const AttnSpec attn_additive = {
    .name = "additive",
    .help = "S_ij = v.tanh(q_i + k_j) per head, Bahdanau (no --scale; memory B H T^2 dk)",
    .formula = "v.tanh(q_i + k_j) per head",
    .scores = additive_scores,
    .unscaled_why = "additive scores v.tanh(q_i + k_j) are not scaled, which is the claim under test",
    .add_params = additive_params,
    .extra_bytes = additive_bytes,
    .remedy = "reduce --batch, --dk, --heads or the sequence length",
};
