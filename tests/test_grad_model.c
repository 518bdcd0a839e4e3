/* test_grad_model.c - the gradient of the whole model (every parameter) against finite
 * differences, on tiny configurations, in double precision (see gradcheck.h). */
#include "gradcheck.h"
#include "test.h"

#include "../model/attn_spec.h"
#include "../model/gpt.h"
#include "../tensor/rng.h"

#include <stdio.h>

typedef struct ModelCase {
    Gpt *m;
    const int *tokens, *targets;
    const unsigned char *mask;
    int B, T;
} ModelCase;

static Tensor *build_model_loss(Tape *tp, Tensor **in, void *ctx)
{
    (void)in; /* the inputs are the model's own parameters */
    ModelCase *c = ctx;
    tp->training = true;
    tp->dropout_key = 77; /* the same dropout masks at every evaluation */
    Tensor *logits = gpt_forward(c->m, tp, c->tokens, c->B, c->T, NULL);
    return op_cross_entropy(tp, logits, c->targets, c->mask);
}

/* The tiny model every case starts from: 2 layers, dk = 3 (not dmodel / heads). */
static GptConfig tiny(ScaleMode mode, double dropout)
{
    return (GptConfig){.vocab = 7, .context = 6, .layers = 2, .dmodel = 8, .heads = 2, .dk = 3, .scale_mode = mode,
                       .scale_const = 2.5, .scale_init = SCALE_SQRT, .tau_init = 3, .attn_dropout = dropout,
                       .dropout = dropout, .init_gain = 1};
}

static void check_config(GptConfig cfg, const char *what)
{
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 3);
    /* biases and LN parameters start at 0 / 1; move them so their gradients are generic */
    Rng r = rng_stream(9, 0);
    for (int i = 0; i < m.n_params; i++)
        if (m.params[i]->ndim == 1)
            for (size_t j = 0; j < m.params[i]->size; j++) m.params[i]->data[j] += (real)(0.2 * rng_normal(&r));
    /* Embeddings of N(0, 0.02) feed a LayerNorm whose 1/sigma then has a huge curvature: the
     * central difference's truncation error (h^2/6 f''') would exceed the tolerance. Unit-scale
     * embeddings keep the check well-conditioned; larger weights elsewhere make it less linear. */
    for (int i = 0; i < m.n_params; i++) {
        bool embedding = m.params[i] == m.wte || m.params[i] == m.wpe;
        for (size_t j = 0; j < m.params[i]->size; j++) m.params[i]->data[j] *= embedding ? 50 : 2;
    }
    enum { B = 2, T = 5 };
    int tokens[B * T], targets[B * T];
    unsigned char mask[B * T];
    for (int i = 0; i < B * T; i++) {
        tokens[i] = (int)rng_below(&r, 7);
        targets[i] = (int)rng_below(&r, 7);
        mask[i] = i % 4 != 0;
    }
    Arena acts;
    Tape tp;
    arena_init(&acts, 1 << 16);
    tape_init(&tp, &acts);
    ModelCase c = {&m, tokens, targets, mask, B, T};
    GradcheckResult res = gradcheck(&tp, build_model_loss, &c, m.params, m.n_params, 12, 5);
    CHECK(res.bad == 0, "%s: %d of %d elements off; worst %s[%ld]: analytic %.10g numeric %.10g", what, res.bad,
          res.checked, m.params[res.worst_input]->name, res.worst_index, res.analytic, res.numeric);
    CHECK(res.checked > 300, "%s: only %d elements checked", what, res.checked);
    tape_free(&tp);
    arena_free(&acts);
    gpt_free(&m);
}

static void check_model(ScaleMode mode, double dropout, const char *what) { check_config(tiny(mode, dropout), what); }

/* tiny(), with another score rule, parametrisation or softmax */
static void check_variant(int attn, ScaleMode mode, ScaleParam param, SoftmaxKind softmax, const char *what)
{
    GptConfig c = tiny(mode, 0.1);
    c.attn = attn;
    c.scale_param = param;
    c.softmax = softmax;
    check_config(c, what);
}

static void test_full_model_sqrt_scale(void) { check_model(SCALE_SQRT, 0, "sqrt scale"); }
static void test_full_model_constant_scale_with_dropout(void) { check_model(SCALE_CONST, 0.2, "1/2.5 scale, dropout 0.2"); }
static void test_full_model_learned_scale(void) { check_model(SCALE_LEARNED, 0.1, "learned scale"); }
/* Every row of the variants' table (model/attn_table.c), so that a new variant is checked without
 * a test of its own: with --scale=sqrt; when --scale applies, with a learned s too; and the
 * learned multiplier (the learned s, or the variant's own) stored as its logarithm. */
static void test_full_model_every_variant(void)
{
    for (int n = 0; attn_spec(n); n++) {
        const AttnSpec *a = attn_spec(n);
        char what[96];
        snprintf(what, sizeof what, "--attn=%s, sqrt scale%s", a->name, a->multiplier ? ", its own multiplier" : "");
        check_variant(n, SCALE_SQRT, SCALE_PARAM_LINEAR, SOFTMAX_STABLE, what);
        if (a->scaled) {
            snprintf(what, sizeof what, "--attn=%s, learned s", a->name);
            check_variant(n, SCALE_LEARNED, SCALE_PARAM_LINEAR, SOFTMAX_STABLE, what);
        }
        if (a->scaled || a->multiplier) {
            snprintf(what, sizeof what, "--attn=%s, the learned multiplier stored as its log", a->name);
            check_variant(n, a->scaled ? SCALE_LEARNED : SCALE_SQRT, SCALE_PARAM_LOG, SOFTMAX_STABLE, what);
        }
    }
}
/* The control: uniform attention's gradient (Wq and Wk get none), and its weights, which are
 * 1/(i + 1) on every key j <= i of query i and 0 after it, in every layer and head, to the bit
 * (exp(0) = 1 each, the sum i + 1, times its inverse). */
static void test_full_model_uniform(void)
{
    GptConfig cfg = tiny(SCALE_SQRT, 0.1);
    cfg.attn = name_find(attn_kind_name, "uniform");
    check_config(cfg, "uniform");
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 4);
    enum { B = 2, T = 6 };
    int tokens[B * T];
    for (int i = 0; i < B * T; i++) tokens[i] = i % 7;
    Arena acts;
    Tape tp;
    arena_init(&acts, 1 << 16);
    tape_init(&tp, &acts);
    tp.grad_enabled = tp.training = false;
    AttentionTrace trace[GPT_MAX_LAYERS] = {{0}};
    gpt_forward(&m, &tp, tokens, B, T, trace);
    int wrong = 0;
    for (int l = 0; l < cfg.layers; l++)
        for (size_t row = 0; row < (size_t)B * cfg.heads * T; row++) {
            int i = (int)(row % T);
            for (int j = 0; j < T; j++) {
                real want = j <= i ? 1 / (real)(i + 1) : 0;
                wrong += trace[l].weights->data[row * T + j] != want;
            }
        }
    CHECK(wrong == 0, "uniform attention: %d weights differ from 1/(i + 1)", wrong);
    tape_free(&tp);
    arena_free(&acts);
    gpt_free(&m);
}
static void test_full_model_naive_softmax(void)
{
    check_variant(name_find(attn_kind_name, "dot"), SCALE_SQRT, SCALE_PARAM_LINEAR, SOFTMAX_NAIVE, "naive softmax");
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"grad: full model, 1/sqrt(dk) scale", test_full_model_sqrt_scale},
        {"grad: full model, constant scale, dropout", test_full_model_constant_scale_with_dropout},
        {"grad: full model, learned per-head scale", test_full_model_learned_scale},
        {"grad: full model, every attention variant of the table (fixed, learned and log multipliers)", test_full_model_every_variant},
        {"grad: full model, naive softmax", test_full_model_naive_softmax},
        {"grad: full model, uniform attention (the control); its weights 1/(i + 1)", test_full_model_uniform},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
