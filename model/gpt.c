/* gpt.c - the decoder's parameters, their initialisation and the forward pass. */
#include "gpt.h"

#include "../base/rng.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ parameters */

/* A parameter tensor whose values and gradient live in the model's flat buffers. */
static Tensor *add_param(Gpt *m, int ndim, int d0, int d1, const char *fmt, int layer, ParamInit init)
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

static const ParamInit ZEROS = {INIT_CONST, 0}, ONES = {INIT_CONST, 1};

/* Xavier/Glorot: U(-b, b) has variance b^2/3 = 2/(fan_in + fan_out), which keeps the variance
 * of activations and of gradients roughly constant across layers. */
static ParamInit xavier(const GptConfig *c, double fan_in, double fan_out)
{
    return (ParamInit){INIT_UNIFORM, c->init_gain * sqrt(6.0 / (fan_in + fan_out))};
}

/* Wq and Wk. Unit: U(-b, b) with b^2/3 = 1/C, so q_j = sum_i a_i W_ij has variance C Var(W) = 1
 * when the LayerNorm output a has unit-variance entries. */
static ParamInit qk_weights(const GptConfig *c)
{
    int HD = c->heads * c->dk;
    if (c->qk_init == QK_INIT_UNIT) return (ParamInit){INIT_UNIFORM, c->init_gain * sqrt(3.0 / c->dmodel)};
    return xavier(c, c->dmodel, HD);
}

/* A learned multiplier per head starting at s0, stored as s0 or log s0. */
static ParamInit head_scale(const GptConfig *c, double s0)
{
    return (ParamInit){INIT_CONST, c->scale_param == SCALE_PARAM_LOG ? log(s0) : s0};
}

void gpt_create(Gpt *m, const GptConfig *cfg)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    int V = cfg->vocab, C = cfg->dmodel, H = cfg->heads, DK = cfg->dk, HD = H * DK, F = 4 * cfg->dmodel;
    assert(cfg->layers >= 1 && cfg->layers <= GPT_MAX_LAYERS);
    arena_init(&m->arena, 4096 + (size_t)cfg->layers * 24 * (sizeof(Tensor) + 128));
    m->layer = arena_calloc(&m->arena, (size_t)cfg->layers * sizeof(GptLayer));
    bool log_param = cfg->scale_param == SCALE_PARAM_LOG;

    m->wte = add_param(m, 2, V, C, "wte", 0, (ParamInit){INIT_NORMAL, GPT_EMBEDDING_STD});
    m->wpe = add_param(m, 2, cfg->context, C, "wpe", 0, (ParamInit){INIT_NORMAL, GPT_EMBEDDING_STD});
    for (int l = 0; l < cfg->layers; l++) {
        GptLayer *ly = &m->layer[l];
        ly->ln1_g = add_param(m, 1, C, 0, "h.%d.ln1.g", l, ONES);
        ly->ln1_b = add_param(m, 1, C, 0, "h.%d.ln1.b", l, ZEROS);
        ly->wq = add_param(m, 2, C, HD, "h.%d.attn.wq", l, qk_weights(cfg));
        ly->bq = add_param(m, 1, HD, 0, "h.%d.attn.bq", l, ZEROS);
        ly->wk = add_param(m, 2, C, HD, "h.%d.attn.wk", l, qk_weights(cfg));
        ly->bk = add_param(m, 1, HD, 0, "h.%d.attn.bk", l, ZEROS);
        ly->wv = add_param(m, 2, C, HD, "h.%d.attn.wv", l, xavier(cfg, C, HD));
        ly->bv = add_param(m, 1, HD, 0, "h.%d.attn.bv", l, ZEROS);
        ly->wo = add_param(m, 2, HD, C, "h.%d.attn.wo", l, xavier(cfg, HD, C));
        ly->bo = add_param(m, 1, C, 0, "h.%d.attn.bo", l, ZEROS);
        /* what the score rule of cfg->attn needs (model/attention.c) */
        if (cfg->scale_mode == SCALE_LEARNED && (cfg->attn == ATTN_DOT || cfg->attn == ATTN_QKNORM))
            ly->scale = add_param(m, 1, H, 0, log_param ? "h.%d.attn.log_scale" : "h.%d.attn.scale", l,
                                  head_scale(cfg, attention_scale(cfg->scale_init, cfg->scale_init_const, DK)));
        if (cfg->attn == ATTN_QKNORM) {
            ly->qnorm_g = add_param(m, 1, DK, 0, "h.%d.attn.qnorm.g", l, ONES);
            ly->qnorm_b = add_param(m, 1, DK, 0, "h.%d.attn.qnorm.b", l, ZEROS);
            ly->knorm_g = add_param(m, 1, DK, 0, "h.%d.attn.knorm.g", l, ONES);
            ly->knorm_b = add_param(m, 1, DK, 0, "h.%d.attn.knorm.b", l, ZEROS);
        }
        if (cfg->attn == ATTN_COSINE)
            ly->scale = add_param(m, 1, H, 0, log_param ? "h.%d.attn.log_tau" : "h.%d.attn.tau", l,
                                  head_scale(cfg, cfg->tau_init));
        if (cfg->attn == ATTN_ADDITIVE) /* v_h . tanh(...): Xavier as a [dk, 1] matrix per head */
            ly->additive_v = add_param(m, 2, H, DK, "h.%d.attn.additive_v", l, xavier(cfg, DK, 1));
        ly->ln2_g = add_param(m, 1, C, 0, "h.%d.ln2.g", l, ONES);
        ly->ln2_b = add_param(m, 1, C, 0, "h.%d.ln2.b", l, ZEROS);
        ly->w1 = add_param(m, 2, C, F, "h.%d.mlp.w1", l, xavier(cfg, C, F));
        ly->b1 = add_param(m, 1, F, 0, "h.%d.mlp.b1", l, ZEROS);
        ly->w2 = add_param(m, 2, F, C, "h.%d.mlp.w2", l, xavier(cfg, F, C));
        ly->b2 = add_param(m, 1, C, 0, "h.%d.mlp.b2", l, ZEROS);
        static const char *const parts[LABEL_COUNT] = {
            "layernorm 1", "queries", "keys", "values", "attention scores", "attention weights",
            "attention output", "layernorm 2", "mlp hidden", "mlp output", "residual stream"};
        for (int k = 0; k < LABEL_COUNT; k++) snprintf(ly->label[k], sizeof ly->label[k], "layer %d %s", l, parts[k]);
    }
    m->lnf_g = add_param(m, 1, C, 0, "lnf.g", 0, ONES);
    m->lnf_b = add_param(m, 1, C, 0, "lnf.b", 0, ZEROS);
    m->lm_head = add_param(m, 2, C, V, "lm_head", 0, xavier(cfg, C, V));

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

Tensor *gpt_forward(Gpt *m, Tape *tp, const int *tokens, int B, int T, AttentionTrace *trace)
{
    const GptConfig *c = &m->cfg;
    assert(T >= 1 && T <= c->context);
    int *pos = arena_alloc(tp->arena, (size_t)B * T * sizeof(int));
    for (int i = 0; i < B * T; i++) pos[i] = i % T;

    /* tp->scope names the tensors each part records, for NaN reports */
    tp->scope = "embeddings";
    Tensor *x = op_add(tp, op_embedding(tp, m->wte, tokens, B, T), op_embedding(tp, m->wpe, pos, B, T));
    x = op_dropout(tp, x, (real)c->dropout);
    for (int l = 0; l < c->layers; l++) {
        GptLayer *ly = &m->layer[l];
        tp->scope = ly->label[LABEL_LN1];
        Tensor *a = op_layernorm(tp, x, ly->ln1_g, ly->ln1_b, (real)GPT_LAYERNORM_EPS);
        AttentionTrace unused = {0};
        Tensor *att = attention_forward(tp, ly, c, a, trace ? &trace[l] : &unused);
        tp->scope = ly->label[LABEL_RESIDUAL];
        x = op_add(tp, x, op_dropout(tp, att, (real)c->dropout));
        tp->scope = ly->label[LABEL_LN2];
        Tensor *h = op_layernorm(tp, x, ly->ln2_g, ly->ln2_b, (real)GPT_LAYERNORM_EPS);
        tp->scope = ly->label[LABEL_MLP_HIDDEN];
        h = op_gelu(tp, op_linear(tp, h, ly->w1, ly->b1));
        tp->scope = ly->label[LABEL_MLP_OUT];
        h = op_linear(tp, h, ly->w2, ly->b2);
        tp->scope = ly->label[LABEL_RESIDUAL];
        x = op_add(tp, x, op_dropout(tp, h, (real)c->dropout));
    }
    tp->scope = "final layernorm";
    Tensor *f = op_layernorm(tp, x, m->lnf_g, m->lnf_b, (real)GPT_LAYERNORM_EPS);
    tp->scope = "logits";
    Tensor *logits = op_linear(tp, f, m->lm_head, NULL);
    tp->scope = NULL;
    return logits;
}
