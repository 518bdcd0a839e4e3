/* attention.c - multi-head causal self-attention, the same for every variant:
 *
 *     q, k, v = a Wq + bq, a Wk + bk, a Wv + bv, each [B, T, H*dk]: H heads of dk side by side
 *     S = m rule(q, k)          the variant's scores (attn_spec.h), m its multiplier
 *     P = softmax(S), causal    row i spreads 1 over the keys j <= i
 *     o = dropout(P) v,         [B, T, H*dk], the heads side by side again, then o Wo + bo
 *
 * Head h of q is the [T, dk] matrix of columns h dk .. h dk + dk - 1 of each example's rows.
 * The products read it there (and write P v there) in place, op_matmul_groups: the heads are
 * never copied out into [B, H, T, dk] and back.
 *
 * Why scale at all: if the entries of q and k are independent with mean 0 and variance 1,
 *     Var(q . k) = sum_i Var(q_i k_i) = dk,
 * so raw scores grow like sqrt(dk) and, for large dk, the softmax saturates towards a one-hot
 * row. Multiplying by s = 1/sqrt(dk) brings Var(s q . k) back to 1 at any head size. Whether
 * that matters for training, and how much, is what `--scale` lets you measure.
 *
 * Beside the textbook path: the reduced precision of --precision (attention_stored) and what the
 * layer's trace records for the metrics (trace_*).
 */
#include "attn_spec.h"
#include "../tensor/parallel.h"

#include <assert.h>
#include <math.h>

/* ------------------------------------------------------------------ beside the textbook path */

Tensor *attention_stored(Tape *tp, const GptConfig *cfg, Tensor *x, Mask mask, AttentionTrace *trace)
{
    return cfg->precision == FORMAT_FP32 ? x : op_round(tp, x, cfg->precision, mask, &trace->rounding);
}

Tensor *attention_dot_products(Tape *tp, const GptConfig *cfg, Tensor *q, Tensor *k)
{
    return op_matmul_groups(tp, q, k, TRANSPOSE_B, cfg->heads, GROUPED_A | GROUPED_B);
}

Tensor *attention_head_rows(Tape *tp, const GptConfig *cfg, Tensor *x)
{
    int rows[4] = {x->shape[0], x->shape[1], cfg->heads, cfg->dk};
    return op_reshape(tp, x, 4, rows);
}

Tensor *attention_heads_first(Tape *tp, const GptConfig *cfg, Tensor *x)
{
    int to_heads[4] = {0, 2, 1, 3};
    return op_permute(tp, attention_head_rows(tp, cfg, x), 4, to_heads);
}

/* A fresh trace for this forward pass (what the caller asked for kept). */
static void trace_start(AttentionTrace *trace) { *trace = (AttentionTrace){.want_row_grads = trace->want_row_grads}; }

/* The scores S = fold * raw as the softmax sees them; with want_row_grads, room for |dL/dS| of
 * every query row, NaN until the backward pass fills it. */
static void trace_scores(Tape *tp, AttentionTrace *trace, Tensor *S, real fold)
{
    trace->scores = S;
    trace->scale = fold;
    if (!trace->want_row_grads) return;
    size_t rows = tensor_rows(S);
    trace->row_grad_norms = arena_alloc(tp->arena, rows * sizeof(real));
    for (size_t i = 0; i < rows; i++) trace->row_grad_norms[i] = NAN;
}

/* ------------------------------------------------------------------ scores and weights */

/* The learned multiplier of every head, [H]: the parameter, or exp of it (SCALE_PARAM_LOG). */
static Tensor *head_scales(Tape *tp, const GptLayer *ly, const GptConfig *cfg)
{
    return cfg->scale_param == SCALE_PARAM_LOG ? op_exp(tp, ly->scale) : ly->scale;
}

/* S = m rule(q, k): the variant's rule, then its multiplier. A learned one (the learned s, or the
 * variant's own) is a parameter per head with its own op; a fixed s is left in *fold, for the
 * softmax to apply (S = fold * raw, never stored); an unscaled variant gets fold = 1. */
static Tensor *attention_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                                AttentionTrace *trace, real *fold)
{
    const AttnSpec *variant = attn_spec(cfg->attn);
    assert(variant);
    Tensor *raw = variant->scores(tp, ly, cfg, q, k, trace);
    *fold = 1;
    if (ly->scale) {
        Tensor *m = head_scales(tp, ly, cfg);
        return op_scale_heads(tp, attention_stored(tp, cfg, raw, MASK_CAUSAL, trace), m);
    }
    if (variant->scaled) *fold = (real)attention_scale(cfg->scale_mode, cfg->scale_const, cfg->dk);
    return raw;
}

/* |dL/dS| of each query row, hung on P by tape_watch_grad (ctx: the rows' array): with g = dL/dP,
 * dS_j = p_j (g_j - sum_i g_i p_i) over the keys the row sees, sqrt(sum_j dS_j^2) in double;
 * -1 for a row no gradient reached (g = 0 there: no path to the loss). S is what the softmax
 * exponentiates (fold * raw). */
static void note_row_grad_norms(const Tensor *P, void *ctx)
{
    real *norms = ctx;
    int N = tensor_cols(P), R = P->shape[P->ndim - 2];
    size_t rows = tensor_rows(P);
#pragma omp parallel for schedule(static) if (P->size >= PARALLEL_MIN)
    for (size_t row = 0; row < rows; row++) {
        const real *p = P->data + row * N, *g = P->grad + row * N;
        int n = mask_visible((int)(row % R), R, N, MASK_CAUSAL);
        bool reached = false;
        for (int j = 0; j < n && !reached; j++) reached = g[j] != 0;
        if (!reached) {
            norms[row] = -1;
            continue;
        }
        double dot = 0, sq = 0;
        for (int j = 0; j < n; j++) dot += (double)g[j] * p[j];
        for (int j = 0; j < n; j++) {
            double d = p[j] * (g[j] - dot);
            sq += d * d;
        }
        norms[row] = (real)sqrt(sq);
    }
}

/* The causal softmax every variant shares: P = softmax(fold * raw) with the causal mask, row i
 * spreading 1 over keys j <= i. In fp32 with the stable softmax, fold is applied inside the
 * softmax (S is never stored); in a reduced precision S is a stored tensor, rounded like the
 * others. */
static Tensor *attention_weights(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *raw, real fold,
                                 AttentionTrace *trace)
{
    Tensor *S = attention_stored(tp, cfg, raw, MASK_CAUSAL, trace);
    if (fold != 1 && cfg->precision != FORMAT_FP32) {
        S = attention_stored(tp, cfg, op_scale(tp, S, fold), MASK_CAUSAL, trace);
        fold = 1;
    }
    trace_scores(tp, trace, S, fold);
    tp->scope = ly->label[LABEL_WEIGHTS];
    if (cfg->softmax == SOFTMAX_NAIVE || cfg->precision != FORMAT_FP32) {
        SoftmaxEmulation em = {.scale = fold,
                               .mask = MASK_CAUSAL,
                               .naive = cfg->softmax == SOFTMAX_NAIVE,
                               .format = cfg->precision,
                               .counts = cfg->precision != FORMAT_FP32 ? &trace->rounding : NULL};
        trace->weights = op_softmax_emulated(tp, S, &em);
    } else {
        trace->weights = op_softmax_scaled(tp, S, fold, MASK_CAUSAL);
    }
    if (trace->want_row_grads) tape_watch_grad(tp, trace->weights, note_row_grad_norms, trace->row_grad_norms);
    return trace->weights;
}

/* ------------------------------------------------------------------ the attention block */

Tensor *attention_forward(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *a, AttentionTrace *trace)
{
    trace_start(trace);
    /* q, k, v [B, T, H*dk], read in place by the products */
    tp->scope = ly->label[LABEL_QUERIES];
    Tensor *q = op_linear(tp, a, ly->wq, ly->bq);
    tp->scope = ly->label[LABEL_KEYS];
    Tensor *k = op_linear(tp, a, ly->wk, ly->bk);
    tp->scope = ly->label[LABEL_VALUES];
    Tensor *v = op_linear(tp, a, ly->wv, ly->bv);
    q = attention_stored(tp, cfg, q, MASK_NONE, trace);
    k = attention_stored(tp, cfg, k, MASK_NONE, trace);
    v = attention_stored(tp, cfg, v, MASK_NONE, trace);

    /* P [B, H, T, T]: entry (i, j) is how much query i takes from key j (0 for j > i) */
    tp->scope = ly->label[LABEL_SCORES];
    real fold;
    Tensor *S = attention_scores(tp, ly, cfg, q, k, trace, &fold);
    Tensor *P = attention_weights(tp, ly, cfg, S, fold, trace);
    P = op_dropout(tp, P, (real)cfg->attn_dropout);

    /* o = P v for every head, written into [B, T, H*dk] (head h in its dk columns), then Wo */
    tp->scope = ly->label[LABEL_ATTN_OUT];
    Tensor *o = op_matmul_groups(tp, P, v, TRANSPOSE_NONE, cfg->heads, GROUPED_B | GROUPED_OUT);
    return op_linear(tp, attention_stored(tp, cfg, o, MASK_NONE, trace), ly->wo, ly->bo);
}
