/* dataset.c - validation sets, training batches as a function of (seed, step), and the
 * layout of examples in a batch. */
#include "data.h"

#include "../tensor/base.h"
#include "../tensor/progress.h"
#include "../tensor/rng.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- hashing sources */

/* A source's key in the held-out set: a 64-bit hash of its tokens, never 0 (an empty slot). */
static uint64_t source_key(const int *t, int n)
{
    uint64_t h = rng_mix((uint64_t)n + 0x51ed270b27e5a1c3ull);
    for (int i = 0; i < n; i++) h = rng_mix(h ^ (uint64_t)(uint32_t)t[i]);
    return h | 1;
}

/* The held-out sources' keys live in an open-addressing set (linear probing, at most half full):
 * a lookup looks at one slot, two or three, whatever the size of the held-out sets. The slot of
 * `key`: where it is, or the empty slot where it would go; *probes counts the slots looked at. */
static size_t held_out_slot(const Dataset *d, uint64_t key, long *probes)
{
    size_t mask = d->held_out_cap - 1, i = key & mask;
    long looked = 1;
    for (; d->held_out_keys[i] && d->held_out_keys[i] != key; looked++) i = (i + 1) & mask;
    if (probes) *probes += looked;
    return i;
}

bool dataset_held_out(const Dataset *d, const int *src, int n, long *probes)
{
    if (!d->held_out_cap) return false; /* a corpus: its split is not by this set */
    return d->held_out_keys[held_out_slot(d, source_key(src, n), probes)] != 0;
}

/* ---------------------------------------------------------------- synthetic tasks */

/* The validation set, then the test set: distinct sources from one stream, the validation
 * examples first (so asking for a test set leaves the validation set as it was). */
static bool build_held_out(Dataset *d, char *err, size_t err_len)
{
    const DataConfig *c = &d->cfg;
    double space = d->task->distinct_sources(c);
    int n = c->val_size + c->test_size;
    if (n > space / 2) {
        errorf(err, err_len, "--val-size=%d with --test-size=%d is more than half of the %.0f distinct sources this task "
                 "has; lower them or lengthen the sequences", c->val_size, c->test_size, space);
        return false;
    }
    Rng r = rng_stream(c->seed, RNG_STREAM_VALIDATION);
    int src[64], tgt[64], sl, tl;
    d->held_out_cap = 64;
    while (d->held_out_cap < 2 * (size_t)n) d->held_out_cap *= 2;
    d->held_out_keys = mem_alloc(d->held_out_cap * sizeof(uint64_t));
    Progress progress;
    progress_start(&progress, "held-out sets, distinct sources drawn", n);
    for (long draws = 1; d->n_held_out < n; draws++) {
        if (draws % 65536 == 0) progress_update(&progress, d->n_held_out);
        d->task->sample(&r, c, src, &sl, tgt, &tl);
        uint64_t key = source_key(src, sl);
        size_t i = held_out_slot(d, key, NULL);
        if (d->held_out_keys[i]) continue; /* a duplicate source */
        d->held_out_keys[i] = key;
        d->n_held_out++;
        example_list_push(d->val.n < c->val_size ? &d->val : &d->test, src, sl, tgt, tl);
    }
    return true;
}

bool dataset_open(Dataset *d, const DataConfig *cfg, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    d->cfg = *cfg;
    d->task = task_spec(cfg->task);
    assert(d->task);
    vocab_init(&d->vocab);
    if (d->task->load) return d->task->load(d, err, err_len);
    d->task->add_words(&d->vocab, cfg);
    d->task->lengths(cfg, &d->min_src, &d->max_src, &d->max_tgt);
    assert(d->max_src <= TASK_MAX_SOURCE && d->max_tgt <= TASK_MAX_SOURCE); /* build_val_set's buffers */
    d->max_pair = d->max_src + d->max_tgt;
    if (dataset_max_input(d) > cfg->context) {
        errorf(err, err_len, "--context=%d is too short: this task needs %d positions (BOS + source + SEP + target)",
                 cfg->context, dataset_max_input(d));
        return false;
    }
    return build_held_out(d, err, err_len);
}

bool dataset_open_tsv_text(Dataset *d, const DataConfig *cfg, const char *text, size_t size, char *err, size_t err_len)
{
    memset(d, 0, sizeof *d);
    d->cfg = *cfg;
    d->cfg.task = task_of_corpus();
    d->task = task_spec(d->cfg.task);
    vocab_init(&d->vocab);
    return tsv_parse(d, text, size, err, err_len);
}

void dataset_free(Dataset *d)
{
    vocab_free(&d->vocab);
    example_list_free(&d->val);
    example_list_free(&d->test);
    example_list_free(&d->train);
    mem_free(d->held_out_keys);
    memset(d, 0, sizeof *d);
}

int dataset_max_input(const Dataset *d) { return d->max_pair + 2; }

/* ---------------------------------------------------------------- batches */

void batch_alloc(Batch *b, int B, int T)
{
    memset(b, 0, sizeof *b);
    b->B = B;
    b->T = T;
    size_t n = (size_t)B * T;
    b->tokens = mem_alloc(n * sizeof(int));
    b->targets = mem_alloc(n * sizeof(int));
    b->loss_mask = mem_alloc(n);
    b->valid = mem_alloc(n);
    b->examples = mem_alloc((size_t)B * sizeof(Example));
    b->scratch = mem_alloc(n * sizeof(int));
}

void batch_free(Batch *b)
{
    mem_free(b->tokens);
    mem_free(b->targets);
    mem_free(b->loss_mask);
    mem_free(b->valid);
    mem_free(b->examples);
    mem_free(b->scratch);
    memset(b, 0, sizeof *b);
}

void batch_set_row(Batch *b, int row, const Example *ex)
{
    int T = b->T, n = ex->src_len, m = ex->tgt_len;
    assert(n + m + 2 <= T);
    int *tok = b->tokens + (size_t)row * T, *tgt = b->targets + (size_t)row * T;
    unsigned char *mask = b->loss_mask + (size_t)row * T, *valid = b->valid + (size_t)row * T;
    /* the full sequence: BOS src SEP tgt EOS, length n + m + 3 */
    int seq_len = n + m + 3;
    for (int t = 0; t < T; t++) {
        int here, next;
        /* token at sequence position p */
        for (int k = 0; k < 2; k++) {
            int p = t + k, v;
            if (p == 0) v = TOK_BOS;
            else if (p <= n) v = ex->src[p - 1];
            else if (p == n + 1) v = TOK_SEP;
            else if (p <= n + m + 1) v = ex->tgt[p - n - 2];
            else if (p == n + m + 2) v = TOK_EOS;
            else v = TOK_PAD;
            if (k == 0) here = v;
            else next = v;
        }
        valid[t] = t < seq_len - 1;                 /* positions 0 .. n+m+1 are real inputs */
        tok[t] = valid[t] ? here : TOK_PAD;         /* the final EOS is a target, never an input */
        tgt[t] = next;
        mask[t] = t >= n + 1 && t <= n + m + 1;     /* predicting target tokens and EOS */
    }
    b->examples[row] = *ex;
}

void dataset_train_batch(const Dataset *d, int step, Batch *b)
{
    Rng r = rng_stream(rng_key(d->cfg.seed, RNG_STREAM_TRAINING), (uint64_t)step);
    int *room = b->scratch; /* each row's source and target, kept for b->examples */
    for (int row = 0; row < b->B; row++) {
        Example ex;
        if (!d->task->sample) { /* a corpus: one of its training pairs */
            ex = example_list_get(&d->train, (int)rng_below(&r, (uint32_t)d->train.n));
        } else {
            int *src = room + (size_t)row * b->T, *tgt = src + d->max_src, sl, tl;
            do d->task->sample(&r, &d->cfg, src, &sl, tgt, &tl);
            while (dataset_held_out(d, src, sl, NULL));
            ex = (Example){sl, tl, src, tgt};
        }
        batch_set_row(b, row, &ex);
    }
}

const ExampleList *dataset_split(const Dataset *d, Split s) { return s == SPLIT_TEST ? &d->test : &d->val; }

int dataset_eval_batch(const Dataset *d, Split s, int first, Batch *b)
{
    const ExampleList *l = dataset_split(d, s);
    int rows = l->n - first < b->B ? l->n - first : b->B;
    assert(rows >= 1);
    for (int row = 0; row < b->B; row++) {
        Example ex = example_list_get(l, first + (row < rows ? row : rows - 1));
        batch_set_row(b, row, &ex);
        if (row >= rows) { /* filler: counts for nothing */
            memset(b->loss_mask + (size_t)row * b->T, 0, (size_t)b->T);
            memset(b->valid + (size_t)row * b->T, 0, (size_t)b->T);
        }
    }
    return rows;
}
