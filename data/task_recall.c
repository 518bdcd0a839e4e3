/* task_recall.c - associative recall: key-value pairs, then a query key; the answer is the
 * query key again, then the value that was paired with it.
 *
 *     source  k3 v7 k0 v2 k5 v7 k0        (pairs k3->v7, k0->v2, k5->v7; query k0)
 *     target  k0 v2
 *
 * Keys are distinct within an example (so the answer is unique); values may repeat. Keys and
 * values are separate words (k0, k1 ... and v0, v1 ...). Position gives no hint: the query's
 * pair can be anywhere, so attention must find the earlier copy of the query key by its content
 * and then read the value one position after it (a sharp, content-based lookup).
 *
 * The target repeats the query key before its value. The echo itself is a copy (free once
 * learned, and it does not change what guessing gets), but it makes the token the value is
 * predicted from the query key itself: "... k0 v2 ... k0 -> v2", the induction-head form of
 * Olsson et al. (2022), where the second head compares the current token with what a
 * previous-token head wrote into each value position. Without it the value is predicted from
 * SEP, so both sides of that comparison need the first layer, and no run learned the lookup.
 *
 * With --recall-queries=Q > 1, Q keys of the pairs are asked in turn (drawn with replacement,
 * so a pair may be asked twice and no answer follows by elimination) and the target is
 * "query value" for each, in that order (the multi-query form, MQAR in Arora et al. 2023:
 * more answers to learn from per example).
 */
#include "data.h"

#include "../tensor/rng.h"

#include "../tensor/base.h"

#include <assert.h>
#include <stdio.h>

/* The keys of an example are distinct, each query asks for another pair, and a source has room
 * for 64 tokens. */
static bool recall_validate(const DataConfig *c, char *err, size_t err_len)
{
    if (c->recall_pairs > c->recall_keys)
        return errorf(err, err_len, "--recall-pairs=%d is more than --recall-keys=%d: the keys of an example are distinct",
                      c->recall_pairs, c->recall_keys);
    if (c->recall_queries > c->recall_pairs)
        return errorf(err, err_len, "--recall-queries=%d is more than --recall-pairs=%d: each query asks for another pair",
                      c->recall_queries, c->recall_pairs);
    if (2 * c->recall_pairs + c->recall_queries > TASK_MAX_SOURCE)
        return errorf(err, err_len, "--recall-pairs=%d with --recall-queries=%d: a source of %d tokens, more than %d",
                      c->recall_pairs, c->recall_queries, 2 * c->recall_pairs + c->recall_queries, TASK_MAX_SOURCE);
    return true;
}

/* Token ids: the keys follow the special tokens, then the values. */
static int key_id(int k) { return TOK_FIRST_WORD + k; }
static int value_id(const DataConfig *c, int v) { return TOK_FIRST_WORD + c->recall_keys + v; }

static void recall_words(Vocab *v, const DataConfig *c)
{
    for (int i = 0; i < c->recall_keys; i++) {
        char w[16];
        vocab_add(v, w, (size_t)snprintf(w, sizeof w, "k%d", i));
    }
    for (int i = 0; i < c->recall_values; i++) {
        char w[16];
        vocab_add(v, w, (size_t)snprintf(w, sizeof w, "v%d", i));
    }
}

/* the pairs and the queries; then each query again and its value */
static void recall_lengths(const DataConfig *c, int *min_src, int *max_src, int *max_tgt)
{
    assert(c->recall_pairs >= 1 && c->recall_pairs <= c->recall_keys && c->recall_values >= 1);
    assert(c->recall_queries >= 1 && c->recall_queries <= c->recall_pairs && 2 * c->recall_pairs + c->recall_queries <= TASK_MAX_SOURCE);
    *min_src = *max_src = 2 * c->recall_pairs + c->recall_queries;
    *max_tgt = 2 * c->recall_queries;
}

/* keys in order without repeats: K (K-1) ... (K-P+1); values: V^P; the queries, Q of the P
 * keys in order, repeats allowed: P^Q. Exact while below 2^53, a close (and finite: K, V <= 1000,
 * P <= 31) number beyond. */
static double recall_sources(const DataConfig *c)
{
    double n = 1;
    for (int i = 0; i < c->recall_pairs; i++) n *= (double)(c->recall_keys - i) * c->recall_values;
    for (int i = 0; i < c->recall_queries; i++) n *= c->recall_pairs;
    return n;
}

static void recall_sample(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len)
{
    int pairs = c->recall_pairs, queries = c->recall_queries, keys[TASK_MAX_SOURCE], asked[TASK_MAX_SOURCE];
    rng_distinct_below(r, pairs, c->recall_keys, keys);
    for (int i = 0; i < pairs; i++) {
        src[2 * i] = key_id(keys[i]);
        src[2 * i + 1] = value_id(c, (int)rng_below(r, (uint32_t)c->recall_values));
    }
    /* which pairs are asked for, in order: each drawn anew (with replacement), so a pair may be
     * asked twice and the answers cannot be found by elimination */
    for (int i = 0; i < queries; i++) asked[i] = (int)rng_below(r, (uint32_t)pairs);
    for (int i = 0; i < queries; i++) {
        src[2 * pairs + i] = src[2 * asked[i]];
        tgt[2 * i] = src[2 * asked[i]];
        tgt[2 * i + 1] = src[2 * asked[i] + 1];
    }
    *src_len = 2 * pairs + queries;
    *tgt_len = 2 * queries;
}

const TaskSpec task_recall = {
    .name = "recall",
    .help = "associative recall: key-value pairs, then a key; answer its value (--recall-*)",
    .reads = {"recall-pairs", "recall-keys", "recall-values", "recall-queries"},
    .validate = recall_validate,
    .add_words = recall_words,
    .lengths = recall_lengths,
    .distinct_sources = recall_sources,
    .sample = recall_sample,
};
