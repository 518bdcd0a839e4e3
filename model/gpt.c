/* gpt.c - the decoder's parameters, their initialisation and the forward pass. */
#include "attn_spec.h"

#include "../tensor/rng.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ parameters */

/* A parameter tensor whose values and gradient live in the model's flat buffers. */
Tensor *gpt_add_param(Gpt *m, int ndim, int d0, int d1, const char *fmt, int layer, ParamInit init)
{
    assert(m->n_params < GPT_MAX_PARAMS);
    Tensor *t = arena_calloc(&m->arena, sizeof *t);
    t->ndim = ndim;
    t->shape[0] = d0;
    t->shape[1] = ndim == 2 ? d1 : 1;
    t->shape[2] = t->shape[3] = 1;
    t->size = (size_t)t->shape[0] * t->shape[1];
    t->requires_grad = true;
    char *name = arena_alloc(&m->arena, 32);
    snprintf(name, 32, fmt, layer);
    t->name = name;
    /* data and grad are set once all sizes are known (see gpt_create) */
    m->init[m->n_params] = init;
    m->params[m->n_params++] = t;
    m->n_values += t->size;
    return t;
}

const ParamInit GPT_ZEROS = {INIT_CONST, 0}, GPT_ONES = {INIT_CONST, 1};

/* Xavier/Glorot: U(-b, b) has variance b^2/3 = 2/(fan_in + fan_out), which keeps the variance
 * of activations and of gradients roughly constant across layers. */
ParamInit gpt_xavier(const GptConfig *c, double fan_in, double fan_out)
{
    return (ParamInit){INIT_UNIFORM, c->init_gain * sqrt(6.0 / (fan_in + fan_out))};
}

/* Wq and Wk. Unit: U(-b, b) with b^2/3 = 1/C, so q_j = sum_i a_i W_ij has variance C Var(W) = 1
 * when the LayerNorm output a has unit-variance entries. */
static ParamInit qk_weights(const GptConfig *c)
{
    int HD = c->heads * c->dk;
    if (c->qk_init == QK_INIT_UNIT) return (ParamInit){INIT_UNIFORM, c->init_gain * sqrt(3.0 / c->dmodel)};
    return gpt_xavier(c, c->dmodel, HD);
}

const char *qk_init_name(int init, const char **help)
{
    static NameTable names = {
        [QK_INIT_XAVIER] = {"xavier", "like every weight: Var(q_i) = 2C / (C + H dk)"},
        [QK_INIT_UNIT] = {"unit", "Var(W) = 1/C: unit-variance q and k entries at init"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), init, help);
}

/* The learned multiplier per head of layer l, h.<l>.attn.<param> starting at its start, or
 * h.<l>.attn.log_<param> starting at the log of it (SCALE_PARAM_LOG). */
static Tensor *add_head_multiplier(Gpt *m, const HeadMultiplier *hm, int l)
{
    bool log_param = m->cfg.scale_param == SCALE_PARAM_LOG;
    char fmt[32];
    snprintf(fmt, sizeof fmt, "h.%%d.attn.%s%s", log_param ? "log_" : "", hm->param);
    double s0 = hm->start(&m->cfg);
    return gpt_add_param(m, 1, m->cfg.heads, 0, fmt, l, (ParamInit){INIT_CONST, log_param ? log(s0) : s0});
}

/* The parameters of layer l, in their order: attention (then what the variant adds: its
 * multiplier, its own parameters), then the MLP. */
static void add_layer(Gpt *m, int l)
{
    const GptConfig *cfg = &m->cfg;
    int C = cfg->dmodel, HD = cfg->heads * cfg->dk, F = 4 * cfg->dmodel;
    GptLayer *ly = &m->layer[l];
    ly->ln1_g = gpt_add_param(m, 1, C, 0, "h.%d.ln1.g", l, GPT_ONES);
    ly->ln1_b = gpt_add_param(m, 1, C, 0, "h.%d.ln1.b", l, GPT_ZEROS);
    ly->wq = gpt_add_param(m, 2, C, HD, "h.%d.attn.wq", l, qk_weights(cfg));
    ly->bq = gpt_add_param(m, 1, HD, 0, "h.%d.attn.bq", l, GPT_ZEROS);
    ly->wk = gpt_add_param(m, 2, C, HD, "h.%d.attn.wk", l, qk_weights(cfg));
    ly->bk = gpt_add_param(m, 1, HD, 0, "h.%d.attn.bk", l, GPT_ZEROS);
    ly->wv = gpt_add_param(m, 2, C, HD, "h.%d.attn.wv", l, gpt_xavier(cfg, C, HD));
    ly->bv = gpt_add_param(m, 1, HD, 0, "h.%d.attn.bv", l, GPT_ZEROS);
    ly->wo = gpt_add_param(m, 2, HD, C, "h.%d.attn.wo", l, gpt_xavier(cfg, HD, C));
    ly->bo = gpt_add_param(m, 1, C, 0, "h.%d.attn.bo", l, GPT_ZEROS);
    const HeadMultiplier *hm = attn_head_multiplier(cfg);
    if (hm) ly->scale = add_head_multiplier(m, hm, l);
    const AttnSpec *variant = attn_spec(cfg->attn);
    if (variant->add_params) variant->add_params(m, l, ly->attn_param);
    ly->ln2_g = gpt_add_param(m, 1, C, 0, "h.%d.ln2.g", l, GPT_ONES);
    ly->ln2_b = gpt_add_param(m, 1, C, 0, "h.%d.ln2.b", l, GPT_ZEROS);
    ly->w1 = gpt_add_param(m, 2, C, F, "h.%d.mlp.w1", l, gpt_xavier(cfg, C, F));
    ly->b1 = gpt_add_param(m, 1, F, 0, "h.%d.mlp.b1", l, GPT_ZEROS);
    ly->w2 = gpt_add_param(m, 2, F, C, "h.%d.mlp.w2", l, gpt_xavier(cfg, F, C));
    ly->b2 = gpt_add_param(m, 1, C, 0, "h.%d.mlp.b2", l, GPT_ZEROS);
    static const char *const parts[LABEL_COUNT] = {
        "layernorm 1", "queries", "keys", "values", "attention scores", "attention weights",
        "attention output", "layernorm 2", "mlp hidden", "mlp output", "residual stream"};
    for (int k = 0; k < LABEL_COUNT; k++) snprintf(ly->label[k], sizeof ly->label[k], "layer %d %s", l, parts[k]);
}

void gpt_create(Gpt *m, const GptConfig *cfg)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    int V = cfg->vocab, C = cfg->dmodel;
    assert(cfg->layers >= 1 && cfg->layers <= GPT_MAX_LAYERS && attn_spec(cfg->attn));
    arena_init(&m->arena, 4096 + (size_t)cfg->layers * 24 * (sizeof(Tensor) + 128));
    m->layer = arena_calloc(&m->arena, (size_t)cfg->layers * sizeof(GptLayer));

    m->wte = gpt_add_param(m, 2, V, C, "wte", 0, (ParamInit){INIT_NORMAL, GPT_EMBEDDING_STD});
    m->wpe = gpt_add_param(m, 2, cfg->context, C, "wpe", 0, (ParamInit){INIT_NORMAL, GPT_EMBEDDING_STD});
    for (int l = 0; l < cfg->layers; l++) add_layer(m, l);
    m->lnf_g = gpt_add_param(m, 1, C, 0, "lnf.g", 0, GPT_ONES);
    m->lnf_b = gpt_add_param(m, 1, C, 0, "lnf.b", 0, GPT_ZEROS);
    m->lm_head = gpt_add_param(m, 2, C, V, "lm_head", 0, gpt_xavier(cfg, C, V));

    /* One buffer for all values and one for all gradients: the optimizer, the gradient norm
     * and the checkpoint code can treat the whole model as one vector. */
    m->values = mem_alloc(m->n_values * sizeof(real));
    m->grads = mem_alloc(m->n_values * sizeof(real));
    size_t off = 0;
    for (int i = 0; i < m->n_params; i++) {
        m->params[i]->data = m->values + off;
        m->params[i]->grad = m->grads + off;
        off += m->params[i]->size;
    }
}

void gpt_free(Gpt *m)
{
    mem_free(m->values);
    mem_free(m->grads);
    arena_free(&m->arena);
    memset(m, 0, sizeof *m);
}

Tensor *gpt_param(const Gpt *m, const char *name)
{
    for (int i = 0; i < m->n_params; i++)
        if (strcmp(m->params[i]->name, name) == 0) return m->params[i];
    return NULL;
}

bool gpt_param_decays(const Tensor *p) { return p->ndim == 2; }

void gpt_decay_flags(const Gpt *m, bool *decay)
{
    for (int i = 0; i < m->n_params; i++) decay[i] = gpt_param_decays(m->params[i]);
}

void gpt_init(Gpt *m, uint64_t seed)
{
    /* one stream, drawn parameter by parameter in their fixed order */
    Rng r = rng_stream(seed, RNG_STREAM_INIT);
    for (int i = 0; i < m->n_params; i++) {
        Tensor *p = m->params[i];
        double v = m->init[i].value;
        switch (m->init[i].kind) {
        case INIT_NORMAL:
            for (size_t j = 0; j < p->size; j++) p->data[j] = (real)(v * rng_normal(&r));
            break;
        case INIT_UNIFORM:
            for (size_t j = 0; j < p->size; j++) p->data[j] = (real)(v * (2 * rng_uniform(&r) - 1));
            break;
        case INIT_CONST:
            for (size_t j = 0; j < p->size; j++) p->data[j] = (real)v;
            break;
        }
    }
}

double gpt_head_scale(const GptLayer *ly, const GptConfig *c, int h)
{
    assert(ly->scale && h >= 0 && h < c->heads);
    double p = ly->scale->data[h];
    return c->scale_param == SCALE_PARAM_LOG ? exp(p) : p;
}

/* ------------------------------------------------------------------ forward */

/* Each part records its ops under its label (tp->scope), which names its tensors in NaN reports
 * and in --print-tape. */

/* x = wte[tok] + wpe[pos], then dropout */
static Tensor *embed(Tape *tp, const Gpt *m, const int *tokens, int B, int T)
{
    int *pos = arena_alloc(tp->arena, (size_t)B * T * sizeof(int));
    for (int i = 0; i < B * T; i++) pos[i] = i % T;
    tp->scope = "embeddings";
    Tensor *positions = op_embedding(tp, m->wpe, pos, B, T); /* recorded first, then the tokens' */
    Tensor *x = op_add(tp, op_embedding(tp, m->wte, tokens, B, T), positions);
    return op_dropout(tp, x, (real)m->cfg.dropout);
}

static Tensor *layernorm(Tape *tp, const char *label, Tensor *x, Tensor *g, Tensor *b)
{
    tp->scope = label;
    return op_layernorm(tp, x, g, b, (real)GPT_LAYERNORM_EPS);
}

/* GELU(h W1 + b1) W2 + b2 */
static Tensor *mlp(Tape *tp, const GptLayer *ly, Tensor *h)
{
    tp->scope = ly->label[LABEL_MLP_HIDDEN];
    h = op_gelu(tp, op_linear(tp, h, ly->w1, ly->b1));
    tp->scope = ly->label[LABEL_MLP_OUT];
    return op_linear(tp, h, ly->w2, ly->b2);
}

/* x + dropout(branch): a sub-block's output joins the residual stream */
static Tensor *residual(Tape *tp, const GptLayer *ly, const GptConfig *c, Tensor *x, Tensor *branch)
{
    tp->scope = ly->label[LABEL_RESIDUAL];
    return op_add(tp, x, op_dropout(tp, branch, (real)c->dropout));
}

Tensor *gpt_forward(Gpt *m, Tape *tp, const int *tokens, int B, int T, AttentionTrace *trace)
{
    const GptConfig *c = &m->cfg;
    assert(T >= 1 && T <= c->context);
    Tensor *x = embed(tp, m, tokens, B, T);
    for (int l = 0; l < c->layers; l++) {
        const GptLayer *ly = &m->layer[l];
        AttentionTrace unused = {0};
        Tensor *a = layernorm(tp, ly->label[LABEL_LN1], x, ly->ln1_g, ly->ln1_b);
        x = residual(tp, ly, c, x, attention_forward(tp, ly, c, a, trace ? &trace[l] : &unused));
        Tensor *h = layernorm(tp, ly->label[LABEL_LN2], x, ly->ln2_g, ly->ln2_b);
        x = residual(tp, ly, c, x, mlp(tp, ly, h));
    }
    Tensor *f = layernorm(tp, "final layernorm", x, m->lnf_g, m->lnf_b);
    tp->scope = "logits";
    Tensor *logits = op_linear(tp, f, m->lm_head, NULL);
    tp->scope = NULL;
    return logits;
}
