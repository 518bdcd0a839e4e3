/* task_copy.c - copy, reverse and sort: random symbols, a separator, then the same symbols
 * (in the same order, in reverse order, or sorted). Copying needs attention to look back
 * exactly (source length + 1) positions; reversing needs a different offset at every step;
 * sorting needs no fixed offset at all: each output is found by its content (the smallest
 * symbol not yet written), wherever it stands in the source. */
#include "data.h"

#include "../tensor/rng.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>

void task_symbol_words(Vocab *v, const DataConfig *c)
{
    for (int i = 0; i < c->symbols; i++) {
        char w[16];
        int n = c->symbols <= 26 ? snprintf(w, sizeof w, "%c", 'A' + i) : snprintf(w, sizeof w, "s%d", i);
        vocab_add(v, w, (size_t)n);
    }
}

static void symbol_lengths(const DataConfig *c, int *min_src, int *max_src, int *max_tgt)
{
    assert(c->symbols >= 1 && c->min_len >= 1 && c->max_len >= c->min_len && c->max_len <= TASK_MAX_SOURCE);
    *min_src = c->min_len;
    *max_src = *max_tgt = c->max_len;
}

/* sum over the lengths of symbols^length */
static double symbol_sources(const DataConfig *c)
{
    double n = 0;
    for (int len = c->min_len; len <= c->max_len; len++) n += pow(c->symbols, len);
    return n;
}

static int random_symbols(Rng *r, const DataConfig *c, int *src)
{
    int n = c->min_len + (int)rng_below(r, (uint32_t)(c->max_len - c->min_len + 1));
    for (int i = 0; i < n; i++) src[i] = TOK_FIRST_WORD + (int)rng_below(r, (uint32_t)c->symbols);
    return n;
}

static void copy_sample(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len)
{
    int n = random_symbols(r, c, src);
    for (int i = 0; i < n; i++) tgt[i] = src[i];
    *src_len = *tgt_len = n;
}

static void reverse_sample(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len)
{
    int n = random_symbols(r, c, src);
    for (int i = 0; i < n; i++) tgt[i] = src[n - 1 - i];
    *src_len = *tgt_len = n;
}

/* ascending by symbol index (A < B < ...; s2 < s10), repeats kept: insertion sort */
static void sort_sample(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len)
{
    int n = random_symbols(r, c, src);
    for (int i = 0; i < n; i++) {
        int x = src[i], j = i;
        for (; j > 0 && tgt[j - 1] > x; j--) tgt[j] = tgt[j - 1];
        tgt[j] = x;
    }
    *src_len = *tgt_len = n;
}

const TaskSpec task_copy = {
    .name = "copy",
    .reads = {"symbols", "min-len", "max-len"},
    .help = "repeat the source symbols (--symbols, --min-len, --max-len)",
    .add_words = task_symbol_words,
    .lengths = symbol_lengths,
    .distinct_sources = symbol_sources,
    .sample = copy_sample,
};

const TaskSpec task_reverse = {
    .name = "reverse",
    .reads = {"symbols", "min-len", "max-len"},
    .help = "the source symbols in reverse order",
    .add_words = task_symbol_words,
    .lengths = symbol_lengths,
    .distinct_sources = symbol_sources,
    .sample = reverse_sample,
};

const TaskSpec task_sort = {
    .name = "sort",
    .reads = {"symbols", "min-len", "max-len"},
    .help = "the source symbols sorted ascending, repeats kept",
    .add_words = task_symbol_words,
    .lengths = symbol_lengths,
    .distinct_sources = symbol_sources,
    .sample = sort_sample,
};
