/* task_lookup.c - multi-query position lookup: distinct symbols, a "?", then symbols asked for;
 * the answer to each is its position in the source.
 *
 *     source  C A D B ? D A        (the symbols C A D B; asked: D, then A)
 *     target  p3 p2                (D is the 3rd symbol, A the 2nd)
 *
 * The symbols of an example are distinct (so each answer is unique), drawn from --symbols; the
 * queries are drawn from them with replacement (--lookup-queries of them, so no answer follows
 * by elimination). Nothing about a query's position is in the query itself: the model has to
 * find the earlier copy of the query symbol by its content, then write where it stands. A row of
 * attention spread evenly over the source mixes every position into one average, from which
 * the match is hard to tell; measured, uniform attention (--attn=uniform) stays at guessing
 * (1 / length per query) where 1/sqrt(dk) learns the task, which is what makes it a test of
 * sharp, content-based attention (docs/TASKS.md: the calibration and its control).
 */
#include "data.h"

#include "../tensor/base.h"
#include "../tensor/rng.h"

#include <assert.h>
#include <stdio.h>

/* A source of distinct symbols (so at most --symbols of them), and room for the queries. */
static bool lookup_validate(const DataConfig *c, char *err, size_t err_len)
{
    if (c->max_len > c->symbols)
        return errorf(err, err_len, "--max-len=%d is more than --symbols=%d: a lookup source holds distinct symbols",
                      c->max_len, c->symbols);
    if (c->max_len + 1 + c->lookup_queries > TASK_MAX_SOURCE)
        return errorf(err, err_len, "--max-len=%d with --lookup-queries=%d: a source of %d tokens, more than %d", c->max_len,
                      c->lookup_queries, c->max_len + 1 + c->lookup_queries, TASK_MAX_SOURCE);
    return true;
}

/* Token ids: the symbols follow the special tokens, then "?", then the positions p1 .. p<max-len>. */
static int ask_id(const DataConfig *c) { return TOK_FIRST_WORD + c->symbols; }
static int position_id(const DataConfig *c, int i) { return TOK_FIRST_WORD + c->symbols + 1 + i; }

static void lookup_words(Vocab *v, const DataConfig *c)
{
    task_symbol_words(v, c);
    vocab_add(v, "?", 1);
    for (int i = 1; i <= c->max_len; i++) {
        char w[16];
        vocab_add(v, w, (size_t)snprintf(w, sizeof w, "p%d", i));
    }
}

/* the symbols, "?", the queries; then one position per query */
static void lookup_lengths(const DataConfig *c, int *min_src, int *max_src, int *max_tgt)
{
    assert(c->min_len >= 1 && c->max_len >= c->min_len && c->max_len <= c->symbols);
    *min_src = c->min_len + 1 + c->lookup_queries;
    *max_src = c->max_len + 1 + c->lookup_queries;
    *max_tgt = c->lookup_queries;
}

/* per length n: symbols in order without repeats, S (S-1) ... (S-n+1), times the queries n^Q */
static double lookup_sources(const DataConfig *c)
{
    double total = 0;
    for (int n = c->min_len; n <= c->max_len; n++) {
        double k = 1;
        for (int i = 0; i < n; i++) k *= c->symbols - i;
        for (int i = 0; i < c->lookup_queries; i++) k *= n;
        total += k;
    }
    return total;
}

static void lookup_sample(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len)
{
    int n = c->min_len + (int)rng_below(r, (uint32_t)(c->max_len - c->min_len + 1)), symbols[TASK_MAX_SOURCE];
    rng_distinct_below(r, n, c->symbols, symbols);
    for (int i = 0; i < n; i++) src[i] = TOK_FIRST_WORD + symbols[i];
    src[n] = ask_id(c);
    for (int q = 0; q < c->lookup_queries; q++) {
        int at = (int)rng_below(r, (uint32_t)n); /* with replacement */
        src[n + 1 + q] = src[at];
        tgt[q] = position_id(c, at);
    }
    *src_len = n + 1 + c->lookup_queries;
    *tgt_len = c->lookup_queries;
}

/* A source as lookup makes them: min-len to max-len distinct symbols, "?", then --lookup-queries
 * symbols, each one of those before the "?". */
static bool lookup_check_source(const DataConfig *c, const int *src, int n, char *err, size_t err_len)
{
    int ask = -1;
    for (int i = 0; i < n; i++) {
        if (src[i] == ask_id(c)) {
            if (ask >= 0) return errorf(err, err_len, "a second \"?\" (word %d): a lookup source has one", i + 1);
            ask = i;
        } else if (src[i] >= position_id(c, 0)) {
            return errorf(err, err_len, "word %d is a position, an answer's word, not a symbol", i + 1);
        }
    }
    if (ask < 0) return errorf(err, err_len, "no \"?\": a lookup source is symbols, \"?\", then the symbols asked for");
    if (ask < c->min_len || ask > c->max_len)
        return errorf(err, err_len, "%d symbol%s before the \"?\": the model was trained on %d to %d", ask, ask == 1 ? "" : "s",
                      c->min_len, c->max_len);
    if (n - ask - 1 != c->lookup_queries)
        return errorf(err, err_len, "%d symbol%s asked for after the \"?\": the model was trained on %d (--lookup-queries)",
                      n - ask - 1, n - ask - 1 == 1 ? "" : "s", c->lookup_queries);
    for (int i = 0; i < ask; i++)
        for (int j = 0; j < i; j++)
            if (src[j] == src[i]) return errorf(err, err_len, "word %d repeats word %d: a lookup source's symbols are distinct", i + 1, j + 1);
    for (int q = ask + 1; q < n; q++) {
        bool found = false;
        for (int i = 0; i < ask; i++) found |= src[i] == src[q];
        if (!found) return errorf(err, err_len, "word %d is asked for but is not among the symbols before the \"?\"", q + 1);
    }
    return true;
}

const TaskSpec task_lookup = {
    .name = "lookup",
    .help = "distinct symbols, \"?\", then some of them again: answer each one's position (--lookup-queries)",
    .reads = {"symbols", "min-len", "max-len", "lookup-queries"},
    .validate = lookup_validate,
    .add_words = lookup_words,
    .lengths = lookup_lengths,
    .distinct_sources = lookup_sources,
    .sample = lookup_sample,
    .check_source = lookup_check_source,
};
