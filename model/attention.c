/* attention.c - multi-head causal self-attention, the same for every variant:
 *
 *     q, k, v = a Wq + bq, a Wk + bk, a Wv + bv, each [B, T, H*dk]: H heads of dk side by side
 *     S = s rule(q, k)          rule(q, k) = q k^T for the dot product (attn_spec.h: the others)
 *     P = softmax(S), causal    row i spreads 1 over the keys j <= i
 *     o = dropout(P) v,         [B, T, H*dk], the heads side by side again, then o Wo + bo
 *
 * attention_forward, first below, is those lines in that order. Head h of q is the [T, dk] matrix
 * of columns h dk .. h dk + dk - 1 of each example's rows; the products read it there (and write
 * P v there) in place, op_matmul_groups: the heads are never copied out into [B, H, T, dk].
 *
 * Beside the textbook path, behind one hook (AttentionHook, below it): the labels of the tape's
 * entries, the reduced precision of --precision (each stored tensor rounded, a no-op in fp32)
 * and what the layer's trace records for the metrics.
 */
#include "attn_spec.h"
#include "../tensor/parallel.h"

#include <assert.h>
#include <math.h>

/* What the attention path does beside the textbook lines: labels, --precision, the trace. */
typedef struct AttentionHook {
    Tape *tp;
    const GptLayer *ly;
    const GptConfig *cfg;
    AttentionTrace *trace;
} AttentionHook;

static AttentionHook attention_hook(Tape *tp, const GptLayer *ly, const GptConfig *cfg, AttentionTrace *trace);
static Tensor *hook_linear(const AttentionHook *h, int label, Tensor *a, Tensor *W, Tensor *b);
static Tensor *hook_scores(const AttentionHook *h, Tensor *q, Tensor *k);
static Tensor *hook_softmax_scaled(const AttentionHook *h, Tensor *S, real s);
static Tensor *hook_weighted_values(const AttentionHook *h, Tensor *P, Tensor *v);
static real attention_multiplier(const GptLayer *ly, const GptConfig *cfg);

/* ------------------------------------------------------------------ the attention block */

Tensor *attention_forward(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *a, AttentionTrace *trace)
{
    AttentionHook h = attention_hook(tp, ly, cfg, trace);

    /* q, k, v [B, T, H*dk] */
    Tensor *q = hook_linear(&h, LABEL_QUERIES, a, ly->wq, ly->bq); /* q = a Wq + bq */
    Tensor *k = hook_linear(&h, LABEL_KEYS, a, ly->wk, ly->bk);    /* k = a Wk + bk */
    Tensor *v = hook_linear(&h, LABEL_VALUES, a, ly->wv, ly->bv);  /* v = a Wv + bv */

    /* The scores s q k^T [B, H, T, T]. If the entries of q and k are independent with mean 0
     * and variance 1, Var(q . k) = sum_i Var(q_i k_i) = dk: raw scores grow like sqrt(dk), and
     * for large dk the softmax saturates towards a one-hot row. s = 1/sqrt(dk) (--scale=sqrt)
     * brings Var(s q . k) back to 1 at any head size; --scale picks another s to measure what
     * that does. (A multiplier learned per head is applied with the rule, and then s = 1.) */
    real s = attention_multiplier(ly, cfg);
    Tensor *S = hook_scores(&h, q, k); /* q k^T: the dot rule (attn_spec.h: the others) */

    /* P = softmax(s S) under the causal mask: entry (i, j) is how much query i takes from key j */
    Tensor *P = hook_softmax_scaled(&h, S, s);
    P = op_dropout(tp, P, (real)cfg->attn_dropout);

    /* o = P v for every head, written into [B, T, H*dk] (head h in its dk columns), then Wo */
    Tensor *o = hook_weighted_values(&h, P, v);
    return op_linear(tp, o, ly->wo, ly->bo);
}

/* s of S = s rule(q, k): --scale's fixed multiplier (attn_scale.c: 1, 1/sqrt(dk), 1/dk, 1/c) for
 * a scaled variant; 1 when the layer learns a multiplier per head, or the variant takes none. */
static real attention_multiplier(const GptLayer *ly, const GptConfig *cfg)
{
    const AttnSpec *variant = attn_spec(cfg->attn);
    assert(variant);
    if (ly->scale || !variant->scaled) return 1;
    return (real)attention_scale(cfg->scale_mode, cfg->scale_const, cfg->dk);
}

/* ------------------------------------------------------------------ beside the textbook path */

/* x as the attention path stores it (attn_spec.h): itself in fp32, else rounded by op_round. */
Tensor *attention_stored(Tape *tp, const GptConfig *cfg, Tensor *x, Mask mask, AttentionTrace *trace)
{
    return cfg->precision == FORMAT_FP32 ? x : op_round(tp, x, cfg->precision, mask, &trace->rounding);
}

/* A fresh trace for this forward pass (what the caller asked for kept). */
static AttentionHook attention_hook(Tape *tp, const GptLayer *ly, const GptConfig *cfg, AttentionTrace *trace)
{
    *trace = (AttentionTrace){.want_row_grads = trace->want_row_grads};
    return (AttentionHook){tp, ly, cfg, trace};
}

/* x W + b, its tape entry under the layer's `label`, as the attention path stores it. */
static Tensor *hook_linear(const AttentionHook *h, int label, Tensor *a, Tensor *W, Tensor *b)
{
    h->tp->scope = h->ly->label[label];
    return attention_stored(h->tp, h->cfg, op_linear(h->tp, a, W, b), MASK_NONE, h->trace);
}

/* The learned multiplier of every head, [H]: the parameter, or exp of it (SCALE_PARAM_LOG). */
static Tensor *head_scales(Tape *tp, const GptLayer *ly, const GptConfig *cfg)
{
    return cfg->scale_param == SCALE_PARAM_LOG ? op_exp(tp, ly->scale) : ly->scale;
}

/* rule(q, k), the variant's scores; with a multiplier learned per head (the learned s, or the
 * variant's own), m_h rule(q, k) by its own op, so that m gets its gradient. */
static Tensor *hook_scores(const AttentionHook *h, Tensor *q, Tensor *k)
{
    const AttnSpec *variant = attn_spec(h->cfg->attn);
    h->tp->scope = h->ly->label[LABEL_SCORES];
    Tensor *raw = variant->scores(h->tp, h->ly, h->cfg, q, k, h->trace);
    if (!h->ly->scale) return raw;
    Tensor *m = head_scales(h->tp, h->ly, h->cfg);
    return op_scale_heads(h->tp, attention_stored(h->tp, h->cfg, raw, MASK_CAUSAL, h->trace), m);
}

/* The scores S = s * raw as the softmax sees them; with want_row_grads, room for |dL/dS| of
 * every query row, NaN until the backward pass fills it. */
static void trace_scores(Tape *tp, AttentionTrace *trace, Tensor *S, real s)
{
    trace->scores = S;
    trace->scale = s;
    if (!trace->want_row_grads) return;
    size_t rows = tensor_rows(S);
    trace->row_grad_norms = arena_alloc(tp->arena, rows * sizeof(real));
    for (size_t i = 0; i < rows; i++) trace->row_grad_norms[i] = NAN;
}

/* |dL/dS| of each query row, hung on P by tape_watch_grad (ctx: the rows' array): with g = dL/dP,
 * dS_j = p_j (g_j - sum_i g_i p_i) over the keys the row sees, sqrt(sum_j dS_j^2) in double;
 * -1 for a row no gradient reached (g = 0 there: no path to the loss). S is what the softmax
 * exponentiates (s * raw). */
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

/* P = softmax(s * raw) with the causal mask, row i spreading 1 over keys j <= i. In fp32 with the
 * stable softmax, s is applied inside the softmax (op_softmax_scaled: s * raw is not stored); in
 * a reduced precision s * raw is a stored tensor, rounded like the others; --softmax=naive and a
 * reduced precision take the emulated softmax (op_softmax_emulated.c). */
static Tensor *hook_softmax_scaled(const AttentionHook *h, Tensor *raw, real s)
{
    Tape *tp = h->tp;
    const GptConfig *cfg = h->cfg;
    AttentionTrace *trace = h->trace;
    Tensor *S = attention_stored(tp, cfg, raw, MASK_CAUSAL, trace);
    if (s != 1 && cfg->precision != FORMAT_FP32) {
        S = attention_stored(tp, cfg, op_scale(tp, S, s), MASK_CAUSAL, trace);
        s = 1;
    }
    trace_scores(tp, trace, S, s);
    tp->scope = h->ly->label[LABEL_WEIGHTS];
    if (cfg->softmax == SOFTMAX_NAIVE || cfg->precision != FORMAT_FP32) {
        SoftmaxEmulation em = {.scale = s,
                               .mask = MASK_CAUSAL,
                               .naive = cfg->softmax == SOFTMAX_NAIVE,
                               .format = cfg->precision,
                               .counts = cfg->precision != FORMAT_FP32 ? &trace->rounding : NULL};
        trace->weights = op_softmax_emulated(tp, S, &em);
    } else {
        trace->weights = op_softmax_scaled(tp, S, s, MASK_CAUSAL);
    }
    if (trace->want_row_grads) tape_watch_grad(tp, trace->weights, note_row_grad_norms, trace->row_grad_norms);
    return trace->weights;
}

/* P v for every head, [B, T, H*dk], its tape entry under the layer's output label, as stored. */
static Tensor *hook_weighted_values(const AttentionHook *h, Tensor *P, Tensor *v)
{
    h->tp->scope = h->ly->label[LABEL_ATTN_OUT];
    Tensor *o = op_matmul_groups(h->tp, P, v, TRANSPOSE_NONE, h->cfg->heads, GROUPED_B | GROUPED_OUT);
    return attention_stored(h->tp, h->cfg, o, MASK_NONE, h->trace);
}

/* ------------------------------------------------------------------ for the variants' rules */

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
