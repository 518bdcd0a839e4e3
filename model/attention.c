/* attention.c - multi-head causal self-attention, and the one place where the scores are formed.
 *
 * Why scale at all: if the entries of q and k are independent with mean 0 and variance 1,
 *     Var(q . k) = sum_i Var(q_i k_i) = dk,
 * so raw scores grow like sqrt(dk) and, for large dk, the softmax saturates towards a one-hot
 * row. Multiplying by s = 1/sqrt(dk) brings Var(s q . k) back to 1 at any head size. Whether
 * that matters for training, and how much, is what `--scale` lets you measure.
 */
#include "gpt.h"
#include "../tensor/parallel.h"

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
    static NameTable names = {
        [SCALE_ONE] = {"1", "raw q.k: its std grows like sqrt(dk)"},
        [SCALE_SQRT] = {"sqrt", "s = 1/sqrt(dk): score std near 1 at any head size"},
        [SCALE_DK] = {"dk", "s = 1/dk"},
        [SCALE_LEARNED] = {"learned", "one learned s per head, starting at --scale-init"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), mode, help);
}

const char *scale_init_name(int mode, const char **help)
{
    static NameTable names = {
        [SCALE_ONE] = {"1", "a learned s starts at 1 (raw q.k)"},
        [SCALE_SQRT] = {"sqrt", "at 1/sqrt(dk)"},
        [SCALE_DK] = {"dk", "at 1/dk"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), mode, help);
}

const char *attn_kind_name(int kind, const char **help)
{
    static NameTable names = {
        [ATTN_DOT] = {"dot", "S = s q.k (s: --scale)"},
        [ATTN_QKNORM] = {"qknorm", "S = s LN(q).LN(k): q and k LayerNorm'ed per head, learned gains (s: --scale)"},
        [ATTN_COSINE] = {"cosine", "S = tau cos(q, k), a learned tau per head from --tau-init (no --scale)"},
        [ATTN_ADDITIVE] = {"additive", "S_ij = v.tanh(q_i + k_j) per head, Bahdanau (no --scale; memory B H T^2 dk)"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), kind, help);
}

const char *scale_param_name(int param, const char **help)
{
    static NameTable names = {
        [SCALE_PARAM_LINEAR] = {"linear", "the parameter is the multiplier itself"},
        [SCALE_PARAM_LOG] = {"log", "the parameter is its logarithm: always positive, steps change it by a factor"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), param, help);
}

const char *qk_init_name(int init, const char **help)
{
    static NameTable names = {
        [QK_INIT_XAVIER] = {"xavier", "like every weight: Var(q_i) = 2C / (C + H dk)"},
        [QK_INIT_UNIT] = {"unit", "Var(W) = 1/C: unit-variance q and k entries at init"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), init, help);
}

const char *softmax_kind_name(int kind, const char **help)
{
    static NameTable names = {
        [SOFTMAX_STABLE] = {"stable", "exp(S - max S): nothing overflows"},
        [SOFTMAX_NAIVE] = {"naive", "exp(S) as written, no max subtracted: overflows where S is large"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), kind, help);
}

bool gpt_has_head_scales(const GptConfig *c)
{
    return c->attn == ATTN_COSINE || (c->scale_mode == SCALE_LEARNED && (c->attn == ATTN_DOT || c->attn == ATTN_QKNORM));
}

double gpt_fixed_scale(const GptConfig *c)
{
    bool scaled = c->attn == ATTN_DOT || c->attn == ATTN_QKNORM;
    return scaled && c->scale_mode != SCALE_LEARNED ? attention_scale(c->scale_mode, c->scale_const, c->dk) : NAN;
}

void gpt_describe_scores(const GptConfig *c, char *buf, size_t len)
{
    const char *stored = c->scale_param == SCALE_PARAM_LOG ? ", stored as its log" : "";
    int n = 0;
    switch (c->attn) {
    case ATTN_DOT:
    case ATTN_QKNORM: {
        const char *form = c->attn == ATTN_QKNORM ? "s LN(q).LN(k)" : "s q.k";
        if (c->scale_mode == SCALE_LEARNED)
            n = snprintf(buf, len, "%s with a learned s per head (initially %.4g%s)", form,
                         attention_scale(c->scale_init, c->scale_init_const, c->dk), stored);
        else
            n = snprintf(buf, len, "%s with s = %.4g", form, attention_scale(c->scale_mode, c->scale_const, c->dk));
        break;
    }
    case ATTN_COSINE:
        n = snprintf(buf, len, "tau cos(q, k) with a learned tau per head (initially %g%s)", c->tau_init, stored);
        break;
    case ATTN_ADDITIVE: n = snprintf(buf, len, "v.tanh(q_i + k_j) per head, not scaled"); break;
    }
    if (n >= 0 && (size_t)n < len && (c->precision != FORMAT_FP32 || c->softmax != SOFTMAX_STABLE))
        snprintf(buf + n, len - (size_t)n, "; attention in %s, %s softmax", format_name(c->precision, NULL),
                 softmax_kind_name(c->softmax, NULL));
}

/* ------------------------------------------------------------------ reduced precision */

/* x as the attention path stores it: rounded to cfg->precision (format.h), the rounding
 * counted in the layer's trace; x itself in fp32. Scores [B, H, T, T] are stored under the
 * causal mask: a hidden score is filled with 0, not rounded or counted (an overflow there
 * would change nothing a GPU computes). */
static Tensor *stored(Tape *tp, const GptConfig *cfg, Tensor *x, Mask mask, AttentionTrace *trace)
{
    return cfg->precision == FORMAT_FP32 ? x : op_round(tp, x, cfg->precision, mask, &trace->rounding);
}

/* ------------------------------------------------------------------ score rules */

/* A score rule turns the queries and keys of every head, q and k [B, H, T, dk], into raw
 * scores [B, H, T, T], and says in *fold the multiplier still to apply (S = fold * raw; 1 when
 * the rule applied its own). Its intermediate results are stored (rounded) as it goes, its
 * result is left to attention_weights, whose causal mask and softmax every rule shares. Each
 * way of forming scores is one rule, in one table. */
typedef Tensor *(*ScoreRule)(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace, real *fold);

/* The learned multiplier of every head, [H]: the parameter, or exp of it (SCALE_PARAM_LOG). */
static Tensor *head_scales(Tape *tp, const GptLayer *ly, const GptConfig *cfg)
{
    return cfg->scale_param == SCALE_PARAM_LOG ? op_exp(tp, ly->scale) : ly->scale;
}

/* S = s q k^T. A fixed s is folded into the softmax (one pass, S never stored); a learned s is
 * a parameter per head with its own op. */
static Tensor *dot_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                          AttentionTrace *trace, real *fold)
{
    Tensor *qk = op_matmul(tp, q, k, TRANSPOSE_B);
    if (cfg->scale_mode == SCALE_LEARNED) {
        *fold = 1;
        return op_scale_heads(tp, stored(tp, cfg, qk, MASK_CAUSAL, trace), head_scales(tp, ly, cfg));
    }
    *fold = (real)attention_scale(cfg->scale_mode, cfg->scale_const, cfg->dk);
    return qk;
}

/* QK-LayerNorm (Henry et al. 2020 normalise; LayerNorm as in Dehghani et al. 2023, ViT-22B):
 * each head's q and k rows LayerNorm'ed over their dk entries, with a gain and a bias shared by
 * the heads. With gain 1 and bias 0, |q|^2 = |k|^2 = dk exactly, so q.k = dk cos(q, k), and
 * Var(q.k) = dk when the directions are random: the premise of 1/sqrt(dk) holds at init
 * whatever Wq and Wk are. Then S = s q.k as for dot. */
static Tensor *qknorm_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace, real *fold)
{
    Tensor *qn = stored(tp, cfg, op_layernorm(tp, q, ly->qnorm_g, ly->qnorm_b, (real)GPT_LAYERNORM_EPS), MASK_NONE, trace);
    Tensor *kn = stored(tp, cfg, op_layernorm(tp, k, ly->knorm_g, ly->knorm_b, (real)GPT_LAYERNORM_EPS), MASK_NONE, trace);
    return dot_scores(tp, ly, cfg, qn, kn, trace, fold);
}

/* Cosine attention (Swin Transformer v2): S = tau_h q.k / (|q| |k|). cos is in [-1, 1] at any
 * dk, so the multiplier is the learned temperature tau_h alone (--scale plays no part). */
static Tensor *cosine_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace, real *fold)
{
    Tensor *qn = stored(tp, cfg, op_l2_normalize(tp, q, (real)GPT_L2NORM_EPS), MASK_NONE, trace);
    Tensor *kn = stored(tp, cfg, op_l2_normalize(tp, k, (real)GPT_L2NORM_EPS), MASK_NONE, trace);
    Tensor *cos = stored(tp, cfg, op_matmul(tp, qn, kn, TRANSPOSE_B), MASK_CAUSAL, trace);
    *fold = 1;
    return op_scale_heads(tp, cos, head_scales(tp, ly, cfg));
}

/* Additive attention (Bahdanau et al. 2015): S_ij = v_h . tanh(W1 q_i + W2 k_j). Here q and k
 * are already linear maps of the layer's input (a Wq + bq, a Wk + bk), so W1 and W2 are folded
 * into Wq and Wk: a second matrix after them would only multiply into one. Each of the T^2
 * pairs gets its own dk-vector, hence the memory: B H T^2 dk values, twice (sum and tanh).
 * With heads first, [H, B T T, dk] . v_h [H, dk, 1] is one batched product per head. */
static Tensor *additive_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                               AttentionTrace *trace, real *fold)
{
    int B = q->shape[0], H = q->shape[1], T = q->shape[2], dk = q->shape[3];
    int heads_first[4] = {1, 0, 2, 3}, rows[3] = {H * B, T, dk}, pairs[3] = {H, B * T * T, dk};
    int v_shape[3] = {H, dk, 1}, per_head[4] = {H, B, T, T};
    Tensor *qh = op_reshape(tp, op_permute(tp, q, 4, heads_first), 3, rows);
    Tensor *kh = op_reshape(tp, op_permute(tp, k, 4, heads_first), 3, rows);
    /* [H B, T, T, dk]: q_i + k_j, every pair (the hidden ones j > i too: they are rounded and
     * counted like the rest, though the mask then drops their scores) */
    Tensor *sum = stored(tp, cfg, op_add_pairs(tp, qh, kh), MASK_NONE, trace);
    Tensor *th = stored(tp, cfg, op_tanh(tp, sum), MASK_NONE, trace);
    Tensor *S = op_matmul(tp, op_reshape(tp, th, 3, pairs), op_reshape(tp, ly->additive_v, 3, v_shape), TRANSPOSE_NONE);
    *fold = 1;
    return op_permute(tp, op_reshape(tp, S, 4, per_head), 4, heads_first); /* [B, H, T, T] */
}

static const ScoreRule g_score_rules[] = {
    [ATTN_DOT] = dot_scores,
    [ATTN_QKNORM] = qknorm_scores,
    [ATTN_COSINE] = cosine_scores,
    [ATTN_ADDITIVE] = additive_scores,
};

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

/* P = softmax(fold * raw) with the causal mask: row i spreads 1 over keys j <= i. In fp32 with
 * the stable softmax, fold is applied inside the softmax (S is never stored); in a reduced
 * precision S is a stored tensor, rounded like the others. */
static Tensor *attention_weights(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *raw, real fold,
                                 AttentionTrace *trace)
{
    Tensor *S = stored(tp, cfg, raw, MASK_CAUSAL, trace);
    if (fold != 1 && cfg->precision != FORMAT_FP32) {
        S = stored(tp, cfg, op_scale(tp, S, fold), MASK_CAUSAL, trace);
        fold = 1;
    }
    trace->scores = S;
    trace->scale = fold;
    if (trace->want_row_grads) {
        size_t rows = tensor_rows(S);
        trace->row_grad_norms = arena_alloc(tp->arena, rows * sizeof(real));
        for (size_t i = 0; i < rows; i++) trace->row_grad_norms[i] = NAN; /* until the backward pass */
    }
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
    int B = a->shape[0], T = a->shape[1], H = cfg->heads, dk = cfg->dk;
    int split[4] = {B, T, H, dk}, to_heads[4] = {0, 2, 1, 3}, merged[3] = {B, T, H * dk};
    *trace = (AttentionTrace){.want_row_grads = trace->want_row_grads};

    /* q, k, v: [B, T, H*dk] -> [B, T, H, dk] -> [B, H, T, dk], one matrix per (batch, head) */
    tp->scope = ly->label[LABEL_QUERIES];
    Tensor *q = op_permute(tp, op_reshape(tp, op_linear(tp, a, ly->wq, ly->bq), 4, split), 4, to_heads);
    tp->scope = ly->label[LABEL_KEYS];
    Tensor *k = op_permute(tp, op_reshape(tp, op_linear(tp, a, ly->wk, ly->bk), 4, split), 4, to_heads);
    tp->scope = ly->label[LABEL_VALUES];
    Tensor *v = op_permute(tp, op_reshape(tp, op_linear(tp, a, ly->wv, ly->bv), 4, split), 4, to_heads);
    q = stored(tp, cfg, q, MASK_NONE, trace);
    k = stored(tp, cfg, k, MASK_NONE, trace);
    v = stored(tp, cfg, v, MASK_NONE, trace);

    /* P [B, H, T, T]: entry (i, j) is how much query i takes from key j (0 for j > i) */
    assert(cfg->attn >= 0 && cfg->attn < (int)(sizeof g_score_rules / sizeof g_score_rules[0]));
    tp->scope = ly->label[LABEL_SCORES];
    real fold;
    Tensor *raw = g_score_rules[cfg->attn](tp, ly, cfg, q, k, trace, &fold);
    Tensor *P = attention_weights(tp, ly, cfg, raw, fold, trace);

    /* o = P v, heads merged back: [B, H, T, dk] -> [B, T, H, dk] -> [B, T, H*dk] -> Wo */
    P = op_dropout(tp, P, (real)cfg->attn_dropout);
    tp->scope = ly->label[LABEL_ATTN_OUT];
    Tensor *o = stored(tp, cfg, op_matmul(tp, P, v, TRANSPOSE_NONE), MASK_NONE, trace);
    o = op_reshape(tp, op_permute(tp, o, 4, to_heads), 3, merged);
    return op_linear(tp, o, ly->wo, ly->bo);
}
