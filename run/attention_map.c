/* attention_map.c - see attention_map.h. */
#include "attention_map.h"

#include "../tensor/base.h"
#include "attention_stats.h"
#include "../model/attn_spec.h"

#include <assert.h>
#include <math.h>
#include <string.h>

/* BOS source SEP target into tokens (room for src_len + tgt_len + 2); returns the length. */
static int decoder_input(const Example *ex, int *tokens)
{
    int n = 0;
    tokens[n++] = TOK_BOS;
    for (int t = 0; t < ex->src_len; t++) tokens[n++] = ex->src[t];
    tokens[n++] = TOK_SEP;
    for (int t = 0; t < ex->tgt_len; t++) tokens[n++] = ex->tgt[t];
    return n;
}

/* The multiplier head h of layer l gives its scores: the learned s or tau, else the fixed s. */
static double head_multiplier(const Gpt *m, int l, int h)
{
    return gpt_has_head_scales(&m->cfg) ? gpt_head_scale(&m->layer[l], &m->cfg, h) : gpt_fixed_scale(&m->cfg);
}

void attention_map_capture(AttentionMap *am, Gpt *m, const Dataset *d, Split split, int example, int step)
{
    const ExampleList *list = dataset_split(d, split);
    assert(example >= 0 && example < list->n);
    Example ex = example_list_get(list, example);
    int L = m->cfg.layers, H = m->cfg.heads, n = ex.src_len + ex.tgt_len + 2;
    assert(n <= m->cfg.context);
    *am = (AttentionMap){.layers = L, .heads = H, .n = n, .split = split, .example = example, .step = step,
                         .multiplier_name = attn_multiplier_name(&m->cfg)};
    am->tokens = mem_alloc((size_t)n * sizeof *am->tokens);
    am->weights = mem_alloc((size_t)L * H * n * n * sizeof *am->weights);
    am->multiplier = mem_alloc((size_t)L * H * sizeof *am->multiplier);
    am->entropy = mem_alloc((size_t)L * H * sizeof *am->entropy);
    decoder_input(&ex, am->tokens);

    /* one sequence, its own tape: no gradient, no dropout */
    Arena arena;
    Tape tp;
    arena_init(&arena, 1 << 16);
    tape_init(&tp, &arena);
    tp.grad_enabled = false;
    tp.training = false;
    AttentionTrace trace[GPT_MAX_LAYERS];
    memset(trace, 0, sizeof trace);
    gpt_forward(m, &tp, am->tokens, 1, n, trace);
    for (int l = 0; l < L; l++) {
        const Tensor *P = trace[l].weights; /* [1, H, n, n] */
        assert(P->size == (size_t)H * n * n);
        memcpy(am->weights + (size_t)l * H * n * n, P->data, P->size * sizeof(real));
        for (int h = 0; h < H; h++) {
            am->multiplier[l * H + h] = head_multiplier(m, l, h);
            am->entropy[l * H + h] = attention_mean_entropy(am->weights + ((size_t)l * H + h) * n * n, n);
        }
    }
    tape_free(&tp);
    arena_free(&arena);
}

void attention_map_free(AttentionMap *am)
{
    mem_free(am->tokens);
    mem_free(am->weights);
    mem_free(am->multiplier);
    mem_free(am->entropy);
    memset(am, 0, sizeof *am);
}

real attention_map_weight(const AttentionMap *am, int l, int h, int i, int j)
{
    return am->weights[(((size_t)l * am->heads + h) * am->n + i) * am->n + j];
}
