/* gpt.h - a GPT-style decoder (pre-LayerNorm) built from the engine's ops.
 *
 *   x = dropout(wte[tok] + wpe[pos])
 *   per layer:  a = LN1(x);  q, k, v = a Wq + bq, a Wk + bk, a Wv + bv       (C -> H*dk each)
 *               per head: S = the variant's scores (--attn; dot: S = s q k^T; model/attn_spec.h),
 *                         causal mask, P = softmax(S), P = dropout(P), o = P v
 *               x = x + dropout(concat(o) Wo + bo)
 *               x = x + dropout(GELU(LN2(x) W1 + b1) W2 + b2)                    (hidden 4C)
 *   logits = LNf(x) Wlm                                                      (C -> V, no bias)
 *
 * Weight matrices are stored [fan_in, fan_out] and used as x W (x is a row vector).
 * The model reads no file and parses no command line: its tables give the names and help lines
 * of its settings, which the option parser (run/) shows and reads.
 */
#ifndef MODEL_GPT_H
#define MODEL_GPT_H

#include "../tensor/ops.h"

/* How the scores of a scaled variant (dot, qknorm) are multiplied before the softmax: S = s q.k */
typedef enum ScaleMode {
    SCALE_ONE,     /* s = 1 */
    SCALE_SQRT,    /* s = 1 / sqrt(dk): Var(s q.k) = 1 when q, k have unit-variance entries */
    SCALE_DK,      /* s = 1 / dk */
    SCALE_LEARNED, /* s = a learnable number per head, starting where scale_init says */
    SCALE_CONST,   /* s = 1 / c for a given constant c (last: it has no name, a number stands for it) */
} ScaleMode;

/* How a learned multiplier (the learned scale s, cosine's tau) is stored as a parameter. */
typedef enum ScaleParam {
    SCALE_PARAM_LINEAR, /* the parameter is s itself */
    SCALE_PARAM_LOG,    /* the parameter is log s, and s = exp(log s): always positive, and a step
                           changes s by a factor rather than by an amount */
} ScaleParam;

/* The attention softmax. */
typedef enum SoftmaxKind {
    SOFTMAX_STABLE, /* exp(S - max S): no exponent is positive, nothing overflows */
    SOFTMAX_NAIVE,  /* exp(S) as written: overflows where S is large (fp16: S > ln 65504 = 11.09) */
} SoftmaxKind;

/* How Wq and Wk start. */
typedef enum QkInit {
    QK_INIT_XAVIER, /* like every weight matrix: Var(W) = 2 / (C + H dk), so Var(q_i) = 2C / (C + H dk) */
    QK_INIT_UNIT,   /* Var(W) = 1 / C: unit-variance entries of q and k at init (for unit-variance
                       LayerNorm outputs), the premise of the 1/sqrt(dk) argument */
} QkInit;

/* Constants of the architecture, named once. */
#define GPT_LAYERNORM_EPS 1e-5  /* added to the variance in every LayerNorm */
#define GPT_EMBEDDING_STD 0.02  /* token and position embeddings start as N(0, 0.02^2) */
#define GPT_L2NORM_EPS 1e-12    /* cosine attention: q / sqrt(|q|^2 + eps) */

typedef struct GptConfig {
    int vocab;         /* V */
    int context;       /* longest sequence: rows of the position table */
    int layers;        /* L */
    int dmodel;        /* C */
    int heads;         /* H */
    int dk;            /* head size (q, k, v per head); often C / H, but free */
    int attn;          /* how scores are formed: the variant's row in model/attn_table.c (attn_spec.h) */
    ScaleMode scale_mode;
    double scale_const;   /* c for SCALE_CONST */
    ScaleMode scale_init; /* SCALE_LEARNED: where s starts (a fixed mode: 1, sqrt, dk or const) */
    double scale_init_const;
    ScaleParam scale_param; /* how a learned s (or tau) is stored */
    double tau_init;      /* cosine attention: the temperature's starting value */
    QkInit qk_init;
    NumFormat precision;  /* the attention path is rounded to this format (FORMAT_FP32: not at all) */
    SoftmaxKind softmax;
    double attn_dropout;  /* on the attention weights P */
    double dropout;       /* on the embeddings and on each residual branch */
    double init_gain;     /* multiplies every Xavier (and unit) bound */
} GptConfig;

/* The multiplier s for a fixed scale mode (not SCALE_LEARNED): the one place s is computed
 * (model/attn_scale.c; ./probe's tables use it too). */
double attention_scale(ScaleMode mode, double scale_const, int dk);
/* The name of a scale mode as --scale spells it ("1", "sqrt", "dk", "learned"), and a line of
 * help; NULL for SCALE_CONST (given as a number) and past the last mode. */
const char *scale_mode_name(int mode, const char **help);
/* The same for --scale-init: the fixed modes only ("1", "sqrt", "dk"; a number for SCALE_CONST). */
const char *scale_init_name(int mode, const char **help);
/* Names and help of the other enumerations, as their flags spell them; NULL past the last.
 * attn_kind_name: the rows of the attention variants' table (model/attn_table.c). */
const char *attn_kind_name(int kind, const char **help);
const char *scale_param_name(int param, const char **help);
const char *qk_init_name(int init, const char **help);
const char *softmax_kind_name(int kind, const char **help);
/* The fixed multiplier the scores get (attention_scale), or NaN when there is none: a learned
 * scale, cosine's learned temperature, additive scores. */
double gpt_fixed_scale(const GptConfig *c);
/* One line saying how scores are formed, for the console ("s q.k with s = 0.125"). */
void gpt_describe_scores(const GptConfig *c, char *buf, size_t len);
/* Whether the layers have a learned multiplier per head (the learned s, or cosine's tau). */
bool gpt_has_head_scales(const GptConfig *c);

/* The parts of a layer whose tensors are named (gpt.c: add_layer writes the labels). */
enum {
    LABEL_LN1, LABEL_QUERIES, LABEL_KEYS, LABEL_VALUES, LABEL_SCORES, LABEL_WEIGHTS, LABEL_ATTN_OUT,
    LABEL_LN2, LABEL_MLP_HIDDEN, LABEL_MLP_OUT, LABEL_RESIDUAL, LABEL_COUNT
};

#define GPT_ATTN_PARAMS 4 /* room for an attention variant's own parameters, per layer */

typedef struct GptLayer {
    Tensor *ln1_g, *ln1_b;
    Tensor *wq, *bq, *wk, *bk, *wv, *bv, *wo, *bo;
    Tensor *scale;             /* [H]: the learned multiplier per head, if any (attn_head_multiplier: the
                                  learned s, or cosine's tau); its log with SCALE_PARAM_LOG; else NULL */
    Tensor *attn_param[GPT_ATTN_PARAMS]; /* the variant's own parameters, as its AttnSpec makes them */
    Tensor *ln2_g, *ln2_b;
    Tensor *w1, *b1, *w2, *b2;
    char label[LABEL_COUNT][40]; /* "layer 2 attention scores": names for error messages */
} GptLayer;

/* What one layer's attention computed in a forward pass, for the metrics: valid until the
 * tape is reset. The scores S as the softmax saw them are scale * scores. */
typedef struct AttentionTrace {
    Tensor *scores;  /* [B, H, T, T], before the mask */
    real scale;      /* the multiplier still to apply to `scores` (1 when already applied) */
    Tensor *weights; /* P = softmax(S) with the causal mask, before dropout */
    FormatCounts rounding; /* what rounding to cfg.precision did in this layer's attention */
    /* set by the caller before the forward pass: also record, in the backward pass, |dL/dS|
     * of every query row (row_grad_norms [B * H * T], NaN until the backward pass ran) */
    bool want_row_grads;
    real *row_grad_norms;
} AttentionTrace;

#define GPT_MAX_PARAMS 640

/* How a parameter starts (set by gpt_create, drawn by gpt_init). */
typedef enum InitKind {
    INIT_CONST,   /* every element = value (0 for biases, 1 for gains, a scale's start) */
    INIT_NORMAL,  /* N(0, value^2) */
    INIT_UNIFORM, /* U(-value, value) */
} InitKind;

typedef struct ParamInit {
    InitKind kind;
    double value;
} ParamInit;

typedef struct Gpt {
    GptConfig cfg;
    Tensor *wte, *wpe;         /* token [V, C] and position [context, C] embeddings */
    GptLayer *layer;           /* [layers] */
    Tensor *lnf_g, *lnf_b, *lm_head;
    /* Every parameter, in a fixed order (names like "h.0.attn.wq"), and one flat buffer
     * holding all their values, and one for all their gradients, in that order. */
    Tensor *params[GPT_MAX_PARAMS];
    ParamInit init[GPT_MAX_PARAMS];
    int n_params;
    size_t n_values;
    real *values, *grads;
    Arena arena;               /* the parameters' own memory */
} Gpt;

/* The multiplier head h of a layer applies: the learned s or tau (exp of the parameter with
 * SCALE_PARAM_LOG). Only for layers that have one (gpt_has_head_scales). */
double gpt_head_scale(const GptLayer *ly, const GptConfig *c, int h);

/* Largest number of layers (bounded by GPT_MAX_PARAMS). */
#define GPT_MAX_LAYERS 24
/* Largest context (positions). */
#define GPT_MAX_CONTEXT 16384

/* Allocates the parameters (uninitialised); cfg must be valid. */
void gpt_create(Gpt *m, const GptConfig *cfg);
/* One parameter of m, named fmt with the layer's number (fmt "h.%d.attn.wq"), of ndim 1 ([d0]) or
 * 2 ([d0, d1]), starting as init says: the parameters in the order they are added (which fixes
 * init's random draws and the checkpoint's layout). For gpt_create and the attention variants'
 * add_params. */
Tensor *gpt_add_param(Gpt *m, int ndim, int d0, int d1, const char *fmt, int layer, ParamInit init);
extern const ParamInit GPT_ZEROS, GPT_ONES;
/* Xavier/Glorot uniform for a [fan_in, fan_out] matrix, times cfg->init_gain. */
ParamInit gpt_xavier(const GptConfig *c, double fan_in, double fan_out);
void gpt_free(Gpt *m);
/* Xavier/Glorot uniform for weight matrices (Wq, Wk as cfg.qk_init says), N(0, GPT_EMBEDDING_STD^2)
 * for embeddings, 0 for biases, 1 for LN gains, the learned scale at cfg.scale_init and cosine's
 * tau at cfg.tau_init (or their logarithms); from the given seed. */
void gpt_init(Gpt *m, uint64_t seed);
Tensor *gpt_param(const Gpt *m, const char *name); /* NULL when there is no such parameter */
/* True for parameters that get weight decay: the 2-D weight matrices and embeddings. */
bool gpt_param_decays(const Tensor *p);
/* decay[i] = gpt_param_decays(parameter i), for every parameter (the optimizer's flags). */
void gpt_decay_flags(const Gpt *m, bool *decay);

/* Records the forward pass for tokens [B, T] (T <= context) on the tape; returns logits
 * [B, T, V]. The tape's `training` flag switches dropout on or off. When `trace` is not NULL,
 * trace[l] receives what layer l's attention computed. */
Tensor *gpt_forward(Gpt *m, Tape *tp, const int *tokens, int B, int T, AttentionTrace *trace);

/* The attention sub-block of one layer: a [B, T, C] -> [B, T, C]; fills *trace. */
Tensor *attention_forward(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *a, AttentionTrace *trace);

#endif
