/* test_data.c - the toy tasks, batch layout, train/validation separation, the TSV loader. */
#include "test.h"

#include "../data/data.h"
#include "../tensor/progress.h"
#include "../tensor/rng.h"
#include "../run/options.h"

#include <stdio.h>
#include <string.h>

static const char *word(const Dataset *d, int id) { return d->vocab.words[id]; }

static Dataset open_task(int task, int context)
{
    Dataset d;
    char err[512];
    DataConfig c = {.task = task, .symbols = 10, .min_len = 2, .max_len = 7, .val_size = 300, .context = context, .seed = 4};
    bool ok = dataset_open(&d, &c, err, sizeof err);
    CHECK(ok, "dataset_open: %s", err);
    return d;
}

static void test_copy_and_reverse_examples(void)
{
    for (int k = 0; k < 2; k++) {
        Dataset d = open_task(k ? name_find(task_name, "reverse") : name_find(task_name, "copy"), 16);
        CHECK(d.vocab.size == TOK_FIRST_WORD + 10, "vocabulary: 4 special tokens + 10 symbols");
        for (int i = 0; i < d.val.n; i++) {
            Example e = example_list_get(&d.val, i);
            CHECK(e.src_len >= 2 && e.src_len <= 7 && e.tgt_len == e.src_len, "length %d", e.src_len);
            for (int j = 0; j < e.src_len; j++) {
                CHECK(e.src[j] >= TOK_FIRST_WORD && e.src[j] < TOK_FIRST_WORD + 10, "symbol out of range");
                int want = k ? e.src[e.src_len - 1 - j] : e.src[j];
                if (!CHECK(e.tgt[j] == want, "%s: target[%d] wrong", k ? "reverse" : "copy", j)) break;
            }
        }
        dataset_free(&d);
    }
}

/* Sorting: each target is ascending and holds the source's symbols, each as often. */
static void test_sort_examples(void)
{
    Dataset d = open_task(name_find(task_name, "sort"), 16);
    CHECK(d.vocab.size == TOK_FIRST_WORD + 10 && !strcmp(word(&d, TOK_FIRST_WORD), "A"), "sort uses copy's alphabet");
    int unsorted_sources = 0;
    for (int i = 0; i < d.val.n; i++) {
        Example e = example_list_get(&d.val, i);
        if (!CHECK(e.src_len >= 2 && e.src_len <= 7 && e.tgt_len == e.src_len, "length %d -> %d", e.src_len, e.tgt_len)) break;
        int count[TOK_FIRST_WORD + 10] = {0};
        bool ascending = true, in_range = true;
        for (int j = 0; j < e.src_len; j++) {
            in_range &= e.src[j] >= TOK_FIRST_WORD && e.src[j] < TOK_FIRST_WORD + 10 && e.tgt[j] >= TOK_FIRST_WORD &&
                        e.tgt[j] < TOK_FIRST_WORD + 10;
            if (!in_range) break;
            count[e.src[j]]++;
            count[e.tgt[j]]--;
            if (j) ascending &= e.tgt[j - 1] <= e.tgt[j];
            if (j) unsorted_sources += e.src[j - 1] > e.src[j] && j == 1;
        }
        bool same = in_range;
        for (int w = 0; same && w < TOK_FIRST_WORD + 10; w++) same = count[w] == 0;
        if (!CHECK(in_range && ascending && same, "example %d: target not the sorted source (range %d, ascending %d, "
                   "permutation %d)", i, in_range, ascending, same)) break;
    }
    CHECK(unsorted_sources > d.val.n / 4, "the sources themselves should mostly be unsorted (%d of %d)", unsorted_sources, d.val.n);
    dataset_free(&d);
}

static Dataset open_recall(int pairs, int keys, int values, int queries, int val_size, uint64_t seed)
{
    Dataset d;
    char err[512];
    DataConfig c = {.task = name_find(task_name, "recall"), .recall_pairs = pairs, .recall_keys = keys, .recall_values = values,
                    .recall_queries = queries, .val_size = val_size, .context = 64, .seed = seed};
    CHECK(dataset_open(&d, &c, err, sizeof err), "dataset_open recall: %s", err);
    return d;
}

/* Recall: keys k0.. then values v0.. in the vocabulary; an example is P distinct keys, each
 * followed by a value, then Q keys of those pairs (drawn with replacement); the target is each
 * query key again, followed by its value. */
static void test_recall_examples(void)
{
    enum { P = 5, K = 8, V = 6 };
    for (int queries = 1; queries <= 3; queries += 2) {
        Dataset d = open_recall(P, K, V, queries, 300, 4);
        CHECK(d.vocab.size == TOK_FIRST_WORD + K + V, "vocabulary: %d words, want 4 + %d keys + %d values", d.vocab.size, K, V);
        CHECK(!strcmp(word(&d, TOK_FIRST_WORD), "k0") && !strcmp(word(&d, TOK_FIRST_WORD + K - 1), "k7") &&
              !strcmp(word(&d, TOK_FIRST_WORD + K), "v0") && !strcmp(word(&d, TOK_FIRST_WORD + K + V - 1), "v5"),
              "key and value words");
        CHECK(d.max_src == 2 * P + queries && d.max_tgt == 2 * queries, "lengths %d, %d", d.max_src, d.max_tgt);
        int asked_at[P] = {0}, repeats = 0;
        for (int i = 0; i < d.val.n; i++) {
            Example e = example_list_get(&d.val, i);
            if (!CHECK(e.src_len == 2 * P + queries && e.tgt_len == 2 * queries, "lengths %d, %d", e.src_len, e.tgt_len)) break;
            bool ok = true;
            for (int j = 0; j < P && ok; j++) {
                int k = e.src[2 * j] - TOK_FIRST_WORD, v = e.src[2 * j + 1] - TOK_FIRST_WORD - K;
                ok = CHECK(k >= 0 && k < K && v >= 0 && v < V, "example %d: pair %d is (%d, %d)", i, j, k, v);
                for (int m = 0; m < j && ok; m++) ok = CHECK(e.src[2 * m] != e.src[2 * j], "example %d: key repeated", i);
            }
            for (int q = 0; q < queries && ok; q++) {
                int query = e.src[2 * P + q], pair = -1;
                for (int j = 0; j < P; j++)
                    if (e.src[2 * j] == query) pair = j;
                ok = CHECK(pair >= 0, "example %d: query %d is not a key of the pairs", i, q) &&
                     CHECK(e.tgt[2 * q] == query, "example %d: target %d does not repeat its query key", i, q) &&
                     CHECK(e.tgt[2 * q + 1] == e.src[2 * pair + 1], "example %d: target %d is not the value of its key", i, q);
                for (int m = 0; m < q && ok; m++) repeats += e.src[2 * P + m] == query;
                if (ok && q == 0) asked_at[pair]++;
            }
            if (!ok) break;
        }
        for (int j = 0; j < P; j++) CHECK(asked_at[j] > d.val.n / (2 * P), "pair %d asked %d times in %d", j, asked_at[j], d.val.n);
        /* queries are drawn with replacement (so elimination cannot answer): 3 queries of 5
         * pairs make 3 pairs of queries, each equal with probability 1/5: 0.6 per example */
        if (queries > 1) CHECK(repeats > d.val.n / 4 && repeats < d.val.n, "%d repeated queries in %d examples", repeats, d.val.n);
        dataset_free(&d);
    }
}

/* Recall's count of distinct sources is exact: 3 keys, 2 pairs, 2 values, 1 query make
 * 3 * 2 orders of keys x 2^2 values x 2 queries = 48, and sampling reaches each of them; two
 * queries, drawn with replacement, make 2^2 = 4 query lists instead of 2. */
static void test_recall_counts_its_sources(void)
{
    DataConfig c = {.task = name_find(task_name, "recall"), .recall_pairs = 2, .recall_keys = 3, .recall_values = 2, .recall_queries = 1};
    CHECK(task_spec(name_find(task_name, "recall"))->distinct_sources(&c) == 48, "distinct sources %g, want 48", task_spec(name_find(task_name, "recall"))->distinct_sources(&c));
    c.recall_queries = 2;
    CHECK(task_spec(name_find(task_name, "recall"))->distinct_sources(&c) == 96, "two queries, repeats allowed: %g, want 96", task_spec(name_find(task_name, "recall"))->distinct_sources(&c));
    c.recall_queries = 1;
    Rng r = rng_stream(9, 0);
    uint64_t seen[64];
    int n_seen = 0;
    for (int i = 0; i < 5000; i++) {
        int src[8], tgt[2], sl, tl;
        task_spec(name_find(task_name, "recall"))->sample(&r, &c, src, &sl, tgt, &tl);
        uint64_t h = 0;
        for (int j = 0; j < sl; j++) h = h * 16 + (uint64_t)src[j];
        int k = 0;
        while (k < n_seen && seen[k] != h) k++;
        if (k == n_seen && n_seen < 64) seen[n_seen++] = h;
    }
    CHECK(n_seen == 48, "sampling made %d distinct sources, want 48", n_seen);
    /* the largest settings stay finite, so the --val-size check can compare with them */
    DataConfig big = {.task = name_find(task_name, "recall"), .recall_pairs = 31, .recall_keys = 1000, .recall_values = 1000, .recall_queries = 2};
    double n = task_spec(name_find(task_name, "recall"))->distinct_sources(&big);
    CHECK(n > 1e180 && n < 1e300, "largest space %g", n);
}

/* Lookup: the symbols, "?" and p1 .. p<max-len> in the vocabulary; an example is n distinct
 * symbols (n from --min-len to --max-len), "?", then Q of them again (with replacement); the
 * target is each one's position, p1 for the first. The count of sources is exact: 3 symbols,
 * length 2, 1 query make 3 * 2 orders x 2 queries = 12, and sampling reaches each of them. */
static void test_lookup_examples(void)
{
    enum { S = 9, MIN = 3, MAX = 7, Q = 3 };
    Dataset d;
    char err[512];
    DataConfig c = {.task = name_find(task_name, "lookup"), .symbols = S, .min_len = MIN, .max_len = MAX,
                    .lookup_queries = Q, .val_size = 300, .context = 64, .seed = 5};
    if (!CHECK(dataset_open(&d, &c, err, sizeof err), "dataset_open lookup: %s", err)) return;
    CHECK(d.vocab.size == TOK_FIRST_WORD + S + 1 + MAX && !strcmp(word(&d, TOK_FIRST_WORD + S), "?") &&
              !strcmp(word(&d, TOK_FIRST_WORD + S + 1), "p1") && !strcmp(word(&d, TOK_FIRST_WORD + S + MAX), "p7"),
          "vocabulary: %d words", d.vocab.size);
    CHECK(d.min_src == MIN + 1 + Q && d.max_src == MAX + 1 + Q && d.max_tgt == Q, "lengths %d..%d, %d", d.min_src, d.max_src,
          d.max_tgt);
    int lengths_seen = 0, repeats = 0;
    for (int i = 0; i < d.val.n; i++) {
        Example e = example_list_get(&d.val, i);
        int n = e.src_len - 1 - Q;
        bool ok = CHECK(n >= MIN && n <= MAX && e.tgt_len == Q && e.src[n] == TOK_FIRST_WORD + S, "example %d: shape", i);
        for (int j = 0; j < n && ok; j++) {
            ok = CHECK(e.src[j] >= TOK_FIRST_WORD && e.src[j] < TOK_FIRST_WORD + S, "example %d: symbol %d", i, j);
            for (int m = 0; m < j && ok; m++) ok = CHECK(e.src[m] != e.src[j], "example %d: a symbol repeated", i);
        }
        for (int q = 0; q < Q && ok; q++) {
            int p = e.tgt[q] - (TOK_FIRST_WORD + S + 1); /* the position, from 0 */
            ok = CHECK(p >= 0 && p < n && e.src[p] == e.src[n + 1 + q], "example %d: query %d answered p%d", i, q, p + 1);
            for (int m = 0; m < q && ok; m++) repeats += e.tgt[m] == e.tgt[q];
        }
        if (!ok) break;
        lengths_seen |= 1 << n;
    }
    CHECK(lengths_seen == ((1 << (MAX + 1)) - (1 << MIN)), "source lengths seen: %#x", lengths_seen);
    CHECK(repeats > 0, "queries are drawn with replacement: %d repeats", repeats);
    dataset_free(&d);
    DataConfig small = {.task = name_find(task_name, "lookup"), .symbols = 3, .min_len = 2, .max_len = 2, .lookup_queries = 1};
    const TaskSpec *t = task_spec(small.task);
    CHECK(t->distinct_sources(&small) == 12, "distinct sources %g, want 12", t->distinct_sources(&small));
    Rng r = rng_stream(9, 0);
    uint64_t seen[16];
    int n_seen = 0;
    for (int i = 0; i < 2000; i++) {
        int src[4], tgt[1], sl, tl;
        t->sample(&r, &small, src, &sl, tgt, &tl);
        uint64_t h = 0;
        for (int j = 0; j < sl; j++) h = h * 16 + (uint64_t)src[j];
        int k = 0;
        while (k < n_seen && seen[k] != h) k++;
        if (k == n_seen && n_seen < 16) seen[n_seen++] = h;
    }
    CHECK(n_seen == 12, "sampling made %d distinct sources, want 12", n_seen);
}

/* Long sequences: 64 symbols ("s0" ... "s63"), length 32 (a context of 66), and the longest
 * sources the flags allow (64 tokens of 1000 symbols). */
static void test_copy_and_reverse_scale_to_long_sequences(void)
{
    int kinds[3] = {name_find(task_name, "copy"), name_find(task_name, "reverse"), name_find(task_name, "sort")};
    for (int k = 0; k < 3; k++) {
        Dataset d;
        char err[512];
        DataConfig c = {.task = kinds[k], .symbols = 64, .min_len = 32, .max_len = 32, .val_size = 512, .context = 66, .seed = 3};
        if (!CHECK(dataset_open(&d, &c, err, sizeof err), "%s, 64 symbols, length 32: %s", task_name(kinds[k], NULL), err))
            continue;
        CHECK(d.vocab.size == TOK_FIRST_WORD + 64 && !strcmp(word(&d, TOK_FIRST_WORD + 63), "s63"), "64 symbol words");
        CHECK(dataset_max_input(&d) == 66, "max input %d, want 66", dataset_max_input(&d));
        bool ok = true;
        for (int i = 0; i < d.val.n && ok; i++) {
            Example e = example_list_get(&d.val, i);
            ok = CHECK(e.src_len == 32 && e.tgt_len == 32, "length %d", e.src_len);
            for (int j = 0; j < 32 && ok && kinds[k] != name_find(task_name, "sort"); j++) {
                int want = kinds[k] == name_find(task_name, "reverse") ? e.src[31 - j] : e.src[j];
                ok = CHECK(e.tgt[j] == want, "%s: target[%d] wrong", task_name(kinds[k], NULL), j);
            }
        }
        Batch b;
        batch_alloc(&b, 4, 66);
        dataset_train_batch(&d, 0, &b);
        CHECK(b.examples[3].src_len == 32 && b.tokens[3 * 66 + 33] == TOK_SEP, "a training batch of length-32 examples");
        batch_free(&b);
        dataset_free(&d);
        c.context = 65;
        CHECK(!dataset_open(&d, &c, err, sizeof err) && strstr(err, "needs 66 positions"), "a short context accepted: %s", err);
        dataset_free(&d);
    }
    Dataset d;
    char err[512];
    DataConfig c = {.task = name_find(task_name, "reverse"), .symbols = 1000, .min_len = 64, .max_len = 64, .val_size = 64, .context = 130, .seed = 1};
    CHECK(dataset_open(&d, &c, err, sizeof err) && d.val.n == 64, "1000 symbols, length 64: %s", err);
    dataset_free(&d);
}

static void test_batch_layout(void)
{
    Batch b;
    batch_alloc(&b, 1, 9);
    int src[2] = {10, 11}, tgt[3] = {20, 21, 22};
    Example e = {2, 3, src, tgt};
    batch_set_row(&b, 0, &e);
    /* sequence: BOS 10 11 SEP 20 21 22 EOS (8 tokens); inputs are its first 7, then padding */
    int tokens[9] = {TOK_BOS, 10, 11, TOK_SEP, 20, 21, 22, TOK_PAD, TOK_PAD};
    int targets[9] = {10, 11, TOK_SEP, 20, 21, 22, TOK_EOS, TOK_PAD, TOK_PAD};
    unsigned char mask[9] = {0, 0, 0, 1, 1, 1, 1, 0, 0}, valid[9] = {1, 1, 1, 1, 1, 1, 1, 0, 0};
    CHECK(memcmp(b.tokens, tokens, sizeof tokens) == 0, "inputs laid out wrong");
    CHECK(memcmp(b.targets, targets, sizeof targets) == 0, "targets laid out wrong");
    CHECK(memcmp(b.loss_mask, mask, sizeof mask) == 0, "loss must cover the target and EOS only");
    CHECK(memcmp(b.valid, valid, sizeof valid) == 0, "valid positions wrong");
    batch_free(&b);
}

/* True when the source of e equals the source of some validation example. */
static bool source_in_val(const Dataset *d, const Example *e)
{
    for (int i = 0; i < d->val.n; i++) {
        Example v = example_list_get(&d->val, i);
        if (v.src_len == e->src_len && !memcmp(v.src, e->src, (size_t)e->src_len * sizeof(int))) return true;
    }
    return false;
}

static void test_training_data_avoids_validation_and_is_a_function_of_step(void)
{
    /* a small space (2..3 symbols of 3: 36 sources) makes collisions certain without the filter */
    Dataset d;
    char err[256];
    DataConfig c = {.task = name_find(task_name, "copy"), .symbols = 3, .min_len = 2, .max_len = 3, .val_size = 12, .context = 8, .seed = 1};
    CHECK(dataset_open(&d, &c, err, sizeof err), "%s", err);
    Batch b, b2;
    batch_alloc(&b, 16, 8);
    batch_alloc(&b2, 16, 8);
    int leaks = 0;
    for (int step = 0; step < 100; step++) {
        dataset_train_batch(&d, step, &b);
        for (int r = 0; r < b.B; r++) leaks += source_in_val(&d, &b.examples[r]);
    }
    CHECK(leaks == 0, "%d training examples have a validation source", leaks);
    dataset_train_batch(&d, 7, &b);
    dataset_train_batch(&d, 7, &b2);
    CHECK(memcmp(b.tokens, b2.tokens, 16 * 8 * sizeof(int)) == 0, "step 7 gave two different batches");
    dataset_train_batch(&d, 8, &b2);
    CHECK(memcmp(b.tokens, b2.tokens, 16 * 8 * sizeof(int)) != 0, "steps 7 and 8 gave the same batch");
    batch_free(&b);
    batch_free(&b2);
    dataset_free(&d);
    /* a validation set larger than half the space is refused */
    c.val_size = 30;
    CHECK(!dataset_open(&d, &c, err, sizeof err) && strstr(err, "--val-size"), "impossible --val-size accepted: %s", err);
    dataset_free(&d);
}

/* The largest held-out sets the flags allow (--val-size=1000000 --test-size=1000000) cost one
 * pass of draws into a hash set, and a training draw asks the set about its source with a slot
 * or two. Said by counting, not timing: at two million held-out sources as at two thousand,
 * the set has at most 4 slots per source, and a lookup looks at fewer than 3 slots on average
 * (a binary search over two million sorted hashes, as before, makes 21 comparisons, and the
 * sort before it n log n). */
static void test_large_held_out_sets_cost_a_pass(void)
{
    for (int n = 1000; n <= 1000000; n *= 1000) {
        Dataset d;
        char err[256];
        DataConfig c = {.task = name_find(task_name, "copy"), .symbols = 10, .min_len = 3, .max_len = 8, .val_size = n, .test_size = n,
                        .context = 24, .seed = 1};
        if (!CHECK(dataset_open(&d, &c, err, sizeof err), "%d + %d held out: %s", n, n, err)) return;
        CHECK(d.val.n == n && d.test.n == n && d.n_held_out == 2 * n, "%d + %d held out, %d distinct", d.val.n, d.test.n,
              d.n_held_out);
        CHECK(d.held_out_cap <= 8 * (size_t)n, "the set of %d sources has %zu slots", 2 * n, d.held_out_cap);
        /* every held-out source is found; then the draws of training, as dataset_train_batch makes them */
        long probes = 0, missing = 0;
        for (int i = 0; i < 1000; i++) {
            Example v = example_list_get(&d.val, i * (n / 1000)), t = example_list_get(&d.test, i * (n / 1000));
            missing += !dataset_held_out(&d, v.src, v.src_len, NULL) + !dataset_held_out(&d, t.src, t.src_len, NULL);
        }
        CHECK(missing == 0, "%ld held-out sources not found in the set", missing);
        Rng r = rng_stream(7, 0);
        int src[64], tgt[64], sl, tl, draws = 100000;
        for (int i = 0; i < draws; i++) {
            d.task->sample(&r, &c, src, &sl, tgt, &tl);
            dataset_held_out(&d, src, sl, &probes);
        }
        CHECK((double)probes / draws < 3, "%d held out: %.2f slots per lookup", 2 * n, (double)probes / draws);
        dataset_free(&d);
    }
}

/* A progress line on stderr only for long work: none in the first 5 s, then one per 10 s. */
static void test_progress_lines_only_for_long_work(void)
{
    Progress p;
    progress_start(&p, "work, items done", 100);
    FILE *f = tmpfile();
    if (!CHECK(f != NULL, "tmpfile")) return;
    p.out = f;
    bool early = progress_update_at(&p, 10, 0.5) || progress_update_at(&p, 20, 4.9);
    bool due = progress_update_at(&p, 30, 5.0);
    bool between = progress_update_at(&p, 40, 14.9);
    bool next = progress_update_at(&p, 50, 15.2);
    char text[256] = {0};
    rewind(f);
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    CHECK(!early && due && !between && next, "printed: before 5 s %d, at 5 s %d, 10 s later %d/%d", early, due, between, next);
    CHECK(got > 0 && !strcmp(text, "work, items done: 30 of 100, 5 s\nwork, items done: 50 of 100, 15 s\n"), "lines: %s", text);
    /* a total not known beforehand: how many so far */
    progress_start(&p, "contrasts", 0);
    f = tmpfile();
    if (!CHECK(f != NULL, "tmpfile")) return;
    p.out = f;
    progress_update_at(&p, 7, 6.0);
    memset(text, 0, sizeof text);
    rewind(f);
    got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    CHECK(got > 0 && !strcmp(text, "contrasts: 7 so far, 6 s\n"), "no total: %s", text);
}

static bool same_list(const ExampleList *a, const ExampleList *b);

/* sort and recall: the same seed gives the same validation set and batches, another seed
 * another set; in a small space (36 and 48 sources) training never shows a validation source. */
static void test_new_tasks_deterministic_and_disjoint(void)
{
    DataConfig configs[2] = {
        {.task = name_find(task_name, "sort"), .symbols = 3, .min_len = 2, .max_len = 3, .val_size = 12, .context = 8, .seed = 1},
        {.task = name_find(task_name, "recall"), .recall_pairs = 2, .recall_keys = 3, .recall_values = 2, .recall_queries = 1, .val_size = 16,
         .context = 9, .seed = 1},
    };
    for (int k = 0; k < 2; k++) {
        const char *name = task_name(configs[k].task, NULL);
        Dataset d, again, other;
        char err[256];
        DataConfig c = configs[k];
        if (!CHECK(dataset_open(&d, &c, err, sizeof err) && dataset_open(&again, &c, err, sizeof err), "%s: %s", name, err))
            return;
        c.seed = 2;
        CHECK(dataset_open(&other, &c, err, sizeof err), "%s: %s", name, err);
        CHECK(same_list(&d.val, &again.val), "%s: the same seed gave another validation set", name);
        CHECK(!same_list(&d.val, &other.val), "%s: seeds 1 and 2 gave the same validation set", name);
        Batch b, b2;
        batch_alloc(&b, 16, 9); /* recall's longest input: BOS, 5 source tokens, SEP, 2 target tokens */
        batch_alloc(&b2, 16, 9);
        int leaks = 0;
        for (int step = 0; step < 100; step++) {
            dataset_train_batch(&d, step, &b);
            for (int r = 0; r < b.B; r++) leaks += source_in_val(&d, &b.examples[r]);
        }
        CHECK(leaks == 0, "%s: %d training examples have a validation source", name, leaks);
        dataset_train_batch(&d, 5, &b);
        dataset_train_batch(&again, 5, &b2);
        CHECK(!memcmp(b.tokens, b2.tokens, 16 * 9 * sizeof(int)), "%s: step 5 gave two different batches", name);
        dataset_train_batch(&d, 6, &b2);
        CHECK(memcmp(b.tokens, b2.tokens, 16 * 9 * sizeof(int)) != 0, "%s: steps 5 and 6 gave the same batch", name);
        batch_free(&b);
        batch_free(&b2);
        dataset_free(&d);
        dataset_free(&again);
        dataset_free(&other);
    }
}

/* The flags of the new tasks: ranges from the option table, combinations from options_validate. */
static void test_new_task_flags_refuse_bad_values(void)
{
    struct {
        const char *args[4];
        const char *expect; /* NULL: accepted */
    } cases[] = {
        {{"--task=recall"}, NULL},
        {{"--task=sort", "--symbols=64", "--min-len=32", "--max-len=32"}, NULL},
        {{"--task=recall", "--recall-pairs=31", "--recall-keys=31", "--recall-queries=2"}, NULL},
        {{"--task=recall", "--recall-pairs=9", "--recall-keys=8"}, "--recall-pairs=9 is more than --recall-keys=8"},
        {{"--task=recall", "--recall-pairs=3", "--recall-queries=4"}, "--recall-queries=4 is more than --recall-pairs=3"},
        {{"--task=recall", "--recall-pairs=31", "--recall-keys=40", "--recall-queries=3"}, "more than 64"},
        {{"--task=recall", "--recall-pairs=0"}, "--recall-pairs=0: must be between 1 and 31"},
        {{"--task=recall", "--recall-pairs=32"}, "--recall-pairs=32: must be between 1 and 31"},
        {{"--task=recall", "--recall-keys=0"}, "--recall-keys=0: must be between 1 and 1000"},
        {{"--task=recall", "--recall-values=1"}, "--recall-values=1: must be between 2 and 1000"},
        {{"--task=recall", "--recall-values=1001"}, "--recall-values=1001: must be between 2 and 1000"},
        {{"--task=recall", "--recall-queries=0"}, "--recall-queries=0: must be between 1 and 31"},
        {{"--task=recall", "--recall-keys=x"}, "--recall-keys=x: not an integer"},
        {{"--task=sort", "--max-len=65"}, "--max-len=65: must be between 1 and 64"},
        {{"--task=sort", "--min-len=5", "--max-len=4"}, "--min-len=5 is larger than --max-len=4"},
        {{"--task=copy", "--recall-pairs=9", "--recall-keys=8"}, "--recall-pairs=9 does nothing here: it needs --task=recall"}, /* recall's flags shape recall only */
        {{"--task=lookup", "--symbols=10", "--max-len=8", "--lookup-queries=4"}, NULL},
        {{"--task=lookup", "--symbols=6", "--max-len=8"}, "--max-len=8 is more than --symbols=6: a lookup source holds distinct"},
        {{"--task=lookup", "--symbols=64", "--max-len=60", "--lookup-queries=4"}, "a source of 65 tokens, more than 64"},
        {{"--task=lookup", "--lookup-queries=0"}, "--lookup-queries=0: must be between 1 and 31"},
        {{"--task=copy", "--lookup-queries=9"}, "--lookup-queries=9 does nothing here: it needs --task=lookup"}, /* lookup's only */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char *argv[5] = {"train"};
        int argc = 1;
        while (argc < 5 && cases[k].args[argc - 1]) {
            argv[argc] = (char *)cases[k].args[argc - 1];
            argc++;
        }
        Options o;
        OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
        bool help;
        char err[512] = "";
        options_defaults(&o);
        bool ok = options_parse_args(&o, argc, argv, set, &help, err, sizeof err) && options_validate(&o, err, sizeof err) &&
                  options_check_given(&o, set, err, sizeof err);
        if (!cases[k].expect) CHECK(ok, "case %zu (%s ...) refused: %s", k, argv[1], err);
        else CHECK(!ok && strstr(err, cases[k].expect), "case %zu: want an error with \"%s\", got \"%s\"", k, cases[k].expect,
                   ok ? "(accepted)" : err);
    }
    /* the flags reach the data layer: the options hold the DataConfig the data is opened with */
    Options o;
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    bool help;
    char err[512];
    char *argv[] = {"train", "--task=recall", "--recall-pairs=5", "--recall-keys=7", "--recall-values=9", "--recall-queries=2"};
    options_defaults(&o);
    CHECK(options_parse_args(&o, 6, argv, set, &help, err, sizeof err), "%s", err);
    const DataConfig *c = &o.data;
    CHECK(c->task == name_find(task_name, "recall") && c->recall_pairs == 5 && c->recall_keys == 7 && c->recall_values == 9 && c->recall_queries == 2,
          "a recall flag did not reach the data's settings");
}

static int find_word(const Dataset *d, const int *t, int n, const char *w)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(word(d, t[i]), w)) return i;
    return -1;
}

static void test_translate_grammar(void)
{
    Dataset d = open_task(name_find(task_name, "translate"), 24);
    int distinct_checked = 0;
    for (int i = 0; i < d.val.n; i++) {
        Example e = example_list_get(&d.val, i);
        CHECK(e.src_len == e.tgt_len, "word-for-word: same length");
        /* the source's verb (position after the first noun) ends the target, before any adverb */
        int verb_src = -1;
        for (int j = 0; j < e.src_len && verb_src < 0; j++)
            if (find_word(&d, &e.src[j], 1, "sees") == 0 || find_word(&d, &e.src[j], 1, "likes") == 0) verb_src = j;
        if (verb_src >= 0) {
            const char *verb = word(&d, e.src[verb_src]);
            const char *tverb = !strcmp(verb, "sees") ? "vidi" : "ami";
            int at = find_word(&d, e.tgt, e.tgt_len, tverb);
            const char *last = word(&d, e.tgt[e.tgt_len - 1]);
            bool adverb = !strcmp(last, "rapid") || !strcmp(last, "lent") || !strcmp(last, "ofte") || !strcmp(last, "neniam");
            CHECK(at == e.tgt_len - 1 - adverb, "verb %s is at %d of %d in the target (adverb: %d)", tverb, at, e.tgt_len, adverb);
            distinct_checked++;
        }
        /* "big dog" becomes "kan gran": adjectives follow their noun */
        int big = find_word(&d, e.src, e.src_len, "big"), dog = find_word(&d, e.src, e.src_len, "dog");
        if (big >= 0 && dog == big + 1) {
            int kan = find_word(&d, e.tgt, e.tgt_len, "kan"), gran = find_word(&d, e.tgt, e.tgt_len, "gran");
            CHECK(kan >= 0 && gran == kan + 1, "'big dog' should become 'kan gran'");
        }
    }
    CHECK(distinct_checked > 20, "too few sentences with sees/likes (%d)", distinct_checked);
    /* thousands of distinct sentences: 3000 draws are almost all different */
    Rng r = rng_stream(1, 0);
    int src[16], tgt[16], sl, tl, dup = 0;
    static uint64_t seen[3000];
    for (int i = 0; i < 3000; i++) {
        task_spec(name_find(task_name, "translate"))->sample(&r, &d.cfg, src, &sl, tgt, &tl);
        uint64_t h = (uint64_t)sl;
        for (int j = 0; j < sl; j++) h = rng_mix(h ^ (uint64_t)src[j]);
        for (int j = 0; j < i; j++) dup += seen[j] == h;
        seen[i] = h;
    }
    CHECK(dup < 30, "%d duplicates in 3000 sentences", dup);
    dataset_free(&d);
}

/* ------------------------------------------------------------------ TSV */

static bool load_tsv(const char *text, size_t len, int context, Dataset *d, char *err, size_t err_len)
{
    const char *path = test_write_file("corpus.tsv", text, len);
    DataConfig c = {.task = name_find(task_name, "tsv"), .context = context, .seed = 1};
    snprintf(c.path, sizeof c.path, "%s", path);
    bool ok = dataset_open(d, &c, err, err_len);
    return ok;
}

static void test_tsv_corpus_loads_and_splits_by_source(void)
{
    char text[65536] = "";
    size_t n = 0;
    for (int i = 0; i < 200; i++) /* 100 sources, each with two translations, plus one duplicate line */
        n += (size_t)snprintf(text + n, sizeof text - n, "src%d w%d\ttgt%d x%d%s\n", i / 2, i % 7, i, i % 3,
                              i == 0 ? "\r" : "");
    n += (size_t)snprintf(text + n, sizeof text - n, "\n   \nsrc0 w0\ttgt0 x0\n");
    Dataset d;
    char err[512];
    CHECK(load_tsv(text, n, 16, &d, err, sizeof err), "good corpus refused: %s", err);
    CHECK(d.skipped == 1, "the duplicate line should be dropped once (dropped %ld)", d.skipped);
    CHECK(d.train.n + d.val.n == 200, "%d + %d pairs kept, want 200", d.train.n, d.val.n);
    CHECK(d.val.n >= 4 && d.val.n <= 50, "validation should be about 10%%: %d", d.val.n);
    for (int i = 0; i < d.train.n; i++) {
        Example e = example_list_get(&d.train, i);
        if (!CHECK(!source_in_val(&d, &e), "training pair %d shares a source with validation", i)) break;
    }
    CHECK(vocab_find(&d.vocab, "tgt5", 4) >= 0 && vocab_find(&d.vocab, "x0\r", 3) < 0, "vocabulary from the words");
    CHECK(dataset_max_input(&d) == 2 + 2 + 2, "max input %d", dataset_max_input(&d));
    dataset_free(&d);
}

/* Each task declares the shortest and the longest source it makes (--decode warns outside them):
 * every held-out source lies within them, and the held-out sets reach both ends. */
static void test_tasks_declare_their_source_lengths(void)
{
    struct { int task; int min, max; } want[] = {
        {name_find(task_name, "copy"), 2, 7}, {name_find(task_name, "reverse"), 2, 7}, {name_find(task_name, "sort"), 2, 7}, {name_find(task_name, "translate"), 5, 10}, {name_find(task_name, "recall"), 9, 9}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        Dataset d;
        char err[512];
        DataConfig c = {.task = want[k].task, .symbols = 10, .min_len = 2, .max_len = 7, .recall_pairs = 4,
                        .recall_keys = 16, .recall_values = 16, .recall_queries = 1, .val_size = 300, .context = 64, .seed = 4};
        if (!CHECK(dataset_open(&d, &c, err, sizeof err), "%s: %s", task_name(want[k].task, NULL), err)) continue;
        int lo = 1 << 30, hi = 0;
        for (int i = 0; i < d.val.n; i++) {
            Example e = example_list_get(&d.val, i);
            lo = e.src_len < lo ? e.src_len : lo;
            hi = e.src_len > hi ? e.src_len : hi;
        }
        CHECK(d.min_src == want[k].min && d.max_src == want[k].max && lo == d.min_src && hi == d.max_src,
              "%s: declares %d to %d (want %d to %d), held-out sources have %d to %d", task_name(want[k].task, NULL),
              d.min_src, d.max_src, want[k].min, want[k].max, lo, hi);
        dataset_free(&d);
    }
    const char text[] = "a\tx\nb c d\ty\nc d\tz\n"; /* a corpus: its own shortest and longest source */
    Dataset d;
    char err[512] = "";
    CHECK(load_tsv(text, sizeof text - 1, 16, &d, err, sizeof err) && d.min_src == 1 && d.max_src == 3,
          "a corpus of 1 to 3 words declares %d to %d (%s)", d.min_src, d.max_src, err);
    dataset_free(&d);
}

static void test_tsv_errors_name_the_line(void)
{
    struct {
        const char *text;
        size_t len;
        const char *expect;
    } cases[] = {
        {"", 0, "no sentence pairs"},
        {"a b\tc\n", 6, "only one"},
        {"a\tb\nno tab here\n", 16, ":2: no tab"},
        {"a\tb\nx\ty\tz\n", 11, ":2: more than one tab"},
        {"a\tb\n\xff\xfe\tc\n", 9, ":2: not valid UTF-8"},
        {"a\tb\nc\xc3\tc\n", 9, ":2: not valid UTF-8"},
        {"a\tb\nx\0y\tc\n", 10, ":2: contains a NUL"},
        {"a\tb\n \tc\n", 8, ":2: empty source"},
        {"a\tb\nc d e f g h\ti j\n", 20, ":2: 6 + 2 words need 10 positions"},
        {"a\tb\nx <eos>\ty\n", 15, ":2: the words <pad>, <bos>, <sep> and <eos> are reserved"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        Dataset d;
        char err[512] = "";
        bool ok = load_tsv(cases[k].text, cases[k].len, 8, &d, err, sizeof err);
        CHECK(!ok && strstr(err, cases[k].expect), "case %zu: want an error with \"%s\", got \"%s\"", k, cases[k].expect,
              ok ? "(accepted)" : err);
        dataset_free(&d);
    }
    static char big[70000];
    memset(big, 'a', sizeof big);
    big[10] = '\t';
    Dataset d;
    char err[512];
    CHECK(!load_tsv(big, sizeof big, 8, &d, err, sizeof err) && strstr(err, ":1: line longer"), "overlong line: %s", err);
    dataset_free(&d);
    DataConfig c = {.task = name_find(task_name, "tsv"), .context = 8};
    snprintf(c.path, sizeof c.path, "%s", test_path("does-not-exist.tsv"));
    CHECK(!dataset_open(&d, &c, err, sizeof err) && strstr(err, "cannot open"), "missing file: %s", err);
    dataset_free(&d);
}

/* The same corpus as a Windows editor (byte-order mark, CRLF) or an old Mac (CR) saves it:
 * the same words, pairs and split, and no mark glued to the first word. */
static bool same_examples(const ExampleList *a, const ExampleList *b)
{
    if (a->n != b->n) return false;
    for (int i = 0; i < a->n; i++) {
        Example x = example_list_get(a, i), y = example_list_get(b, i);
        if (x.src_len != y.src_len || x.tgt_len != y.tgt_len || memcmp(x.src, y.src, (size_t)x.src_len * sizeof(int)) ||
            memcmp(x.tgt, y.tgt, (size_t)x.tgt_len * sizeof(int)))
            return false;
    }
    return true;
}

static bool same_list(const ExampleList *a, const ExampleList *b) { return same_examples(a, b); }

static void test_tsv_byte_order_mark_and_line_endings(void)
{
    char plain[8192] = "", text[8200];
    size_t n = 0;
    for (int i = 0; i < 60; i++)
        n += (size_t)snprintf(plain + n, sizeof plain - n, "s%d a%d\tt%d b%d\n", i, i % 5, i, i % 4);
    Dataset ref;
    char err[512];
    if (!CHECK(load_tsv(plain, n, 16, &ref, err, sizeof err), "plain corpus refused: %s", err)) return;
    const char *endings[] = {"\r\n", "\r"};
    for (int bom = 0; bom < 2; bom++)
        for (int e = 0; e < 2; e++) {
            size_t m = 0;
            if (bom) m += (size_t)snprintf(text, sizeof text, "\xef\xbb\xbf");
            for (size_t i = 0; i < n; i++) {
                if (plain[i] == '\n') m += (size_t)snprintf(text + m, sizeof text - m, "%s", endings[e]);
                else text[m++] = plain[i];
            }
            Dataset d;
            bool ok = CHECK(load_tsv(text, m, 16, &d, err, sizeof err), "bom %d, %s endings refused: %s", bom,
                            e ? "CR" : "CRLF", err);
            if (ok) {
                bool words = d.vocab.size == ref.vocab.size;
                for (int w = 0; words && w < d.vocab.size; w++) words = !strcmp(d.vocab.words[w], ref.vocab.words[w]);
                CHECK(words && same_examples(&d.train, &ref.train) && same_examples(&d.val, &ref.val),
                      "bom %d, %s endings: another vocabulary or split (%d words, want %d; first word \"%s\")", bom,
                      e ? "CR" : "CRLF", d.vocab.size, ref.vocab.size, d.vocab.size > 4 ? d.vocab.words[4] : "");
            }
            dataset_free(&d);
        }
    dataset_free(&ref);
}

/* Every task's row is whole: a name --task finds back, help, a way to make examples (a sampler
 * with its words, lengths and count of sources, or a corpus loader), and data options it reads
 * that exist (--help names the task beside them). */
static void test_task_rows_are_whole(void)
{
    const TaskSpec *t;
    int n = 0;
    for (; (t = task_spec(n)) != NULL; n++) {
        bool synthetic = t->sample && t->add_words && t->lengths && t->distinct_sources;
        CHECK(t->name && t->help && name_find(task_name, t->name) == n, "task %d: name or help missing, or not found back", n);
        CHECK(synthetic != (t->load != NULL), "--task=%s: neither a sampler nor a loader, or both", t->name);
        for (int k = 0; k < TASK_MAX_READS && t->reads[k]; k++)
            CHECK(options_index(t->reads[k]) >= 0, "--task=%s reads --%s, which is no option", t->name, t->reads[k]);
    }
    CHECK(n >= 1 && task_spec(task_of_corpus())->load && name_find(task_name, "none") == -1, "%d tasks", n);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"data: copy and reverse targets", test_copy_and_reverse_examples},
        {"data: sort targets are the sorted source", test_sort_examples},
        {"data: recall targets are the values of the query keys", test_recall_examples},
        {"data: lookup: distinct symbols, \"?\", queries from them; each answered by its position; its sources counted", test_lookup_examples},
        {"data: recall counts its distinct sources exactly", test_recall_counts_its_sources},
        {"data: copy, reverse and sort at 64 symbols and length 32", test_copy_and_reverse_scale_to_long_sequences},
        {"data: batch layout and loss mask", test_batch_layout},
        {"data: training avoids validation sources; batch = f(step)", test_training_data_avoids_validation_and_is_a_function_of_step},
        {"data: sort and recall: deterministic, training avoids validation", test_new_tasks_deterministic_and_disjoint},
        {"data: bad values of the new tasks' flags are refused", test_new_task_flags_refuse_bad_values},
        {"data: translate grammar moves verbs and adjectives", test_translate_grammar},
        {"data: TSV corpus loads, deduplicates, splits by source", test_tsv_corpus_loads_and_splits_by_source},
        {"data: each task declares its shortest and longest source", test_tasks_declare_their_source_lengths},
        {"data: TSV errors name the line", test_tsv_errors_name_the_line},
        {"data: TSV with a byte-order mark, CRLF or CR lines reads as plain", test_tsv_byte_order_mark_and_line_endings},
        {"data: 1M + 1M held-out sources: one pass of draws, a slot or two per lookup", test_large_held_out_sets_cost_a_pass},
        {"base: progress lines only for long work (after 5 s, then every 10 s)", test_progress_lines_only_for_long_work},
        {"data: every task's row is whole", test_task_rows_are_whole},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
