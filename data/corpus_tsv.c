/* corpus_tsv.c - a user's parallel corpus: one "source<TAB>target" pair per line, words
 * separated by spaces. The vocabulary is every word seen (source and target share it).
 *
 * Lines end at \n, \r\n or \r; a UTF-8 byte-order mark at the start is skipped.
 * Rules (each violation is an error naming the file and line):
 *   - valid UTF-8 without NUL bytes, at most TSV_MAX_LINE bytes per line, exactly one tab,
 *     no empty side;
 *   - BOS + source + SEP + target must fit in --context;
 *   - <pad>, <bos>, <sep> and <eos> are the model's own tokens and may not appear as words.
 * Blank lines are skipped; identical pairs are kept once (the number dropped is reported).
 * About 10% of the distinct sources go to validation, chosen by a hash of the source so
 * that a source never appears in both sets and the split does not depend on line order.
 */
#include "data.h"

#include "../tensor/base.h"
#include "../tensor/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TSV_MAX_LINE = 65536, TSV_MAX_WORDS = 4096, TSV_MAX_FILE = 1 << 30 };

/* True when s[0..n) is well-formed UTF-8 (base.h's utf8_char at every character). */
static bool utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0, k; i < n; i += k)
        if ((k = utf8_char(s + i, n - i)) == 0) return false;
    return true;
}

/* Splits s[0..n) at spaces into vocabulary ids; returns the number of words, -1 when there
 * are too many, -2 when one is a reserved token (<pad> <bos> <sep> <eos>). */
static int words(Vocab *v, const char *s, size_t n, int *ids)
{
    int count = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t')) i++;
        size_t start = i;
        while (i < n && s[i] != ' ' && s[i] != '\t') i++;
        if (i > start) {
            if (count == TSV_MAX_WORDS) return -1;
            int id = vocab_add(v, s + start, i - start);
            if (id < TOK_FIRST_WORD) return -2;
            ids[count++] = id;
        }
    }
    return count;
}

typedef struct PairKey {
    uint64_t pair, source; /* hashes of (source, target) and of the source */
    int index;
} PairKey;

static int cmp_pair(const void *a, const void *b)
{
    const PairKey *x = a, *y = b;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    return x->index - y->index;
}

static uint64_t hash_ids(uint64_t h, const int *t, int n)
{
    h = rng_mix(h + (uint64_t)n);
    for (int i = 0; i < n; i++) h = rng_mix(h ^ (uint64_t)(uint32_t)t[i]);
    return h;
}

/* Reads the whole file (at most TSV_MAX_FILE bytes) into a NUL-terminated buffer. */
static char *read_file(const char *path, size_t *len, char *err, size_t err_len)
{
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why);
    if (!f) {
        errorf(err, err_len, "cannot open --data=%s: %s", path, why);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = mem_alloc(cap + 1);
    for (;;) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) break;
        if (cap >= TSV_MAX_FILE) {
            errorf(err, err_len, "--data=%s is larger than %d MiB", path, TSV_MAX_FILE >> 20);
            mem_free(buf);
            fclose(f);
            return NULL;
        }
        char *bigger = mem_alloc(2 * cap + 1);
        memcpy(bigger, buf, n);
        mem_free(buf);
        buf = bigger;
        cap *= 2;
    }
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        errorf(err, err_len, "cannot read --data=%s", path);
        mem_free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

static bool tsv_load(Dataset *d, char *err, size_t err_len)
{
    size_t size;
    char *text = read_file(d->cfg.path, &size, err, err_len);
    if (!text) return false;
    bool ok = tsv_parse(d, text, size, err, err_len);
    mem_free(text);
    return ok;
}

/* One line (n bytes, not blank) checked against the rules and appended to `all` as a pair of
 * word ids; src and tgt are scratch of TSV_MAX_WORDS ids each. false, with the message in err,
 * for a line that breaks a rule. */
static bool tsv_line(Dataset *d, const char *line, size_t n, long lineno, int *src, int *tgt, ExampleList *all,
                     char *err, size_t err_len)
{
    const char *path = d->cfg.path;
    if (!utf8_valid((const unsigned char *)line, n)) {
        errorf(err, err_len, "%s:%ld: not valid UTF-8", path, lineno);
        return false;
    }
    const char *tab = memchr(line, '\t', n);
    if (!tab) {
        errorf(err, err_len, "%s:%ld: no tab between source and target", path, lineno);
        return false;
    }
    if (memchr(tab + 1, '\t', n - (size_t)(tab + 1 - line))) {
        errorf(err, err_len, "%s:%ld: more than one tab (expected source<TAB>target)", path, lineno);
        return false;
    }
    int ns = words(&d->vocab, line, (size_t)(tab - line), src);
    int nt = words(&d->vocab, tab + 1, n - (size_t)(tab + 1 - line), tgt);
    if (ns == -2 || nt == -2) {
        errorf(err, err_len, "%s:%ld: the words <pad>, <bos>, <sep> and <eos> are reserved", path, lineno);
        return false;
    }
    if (ns < 0 || nt < 0) {
        errorf(err, err_len, "%s:%ld: more than %d words on one side", path, lineno, TSV_MAX_WORDS);
        return false;
    }
    if (ns == 0 || nt == 0) {
        errorf(err, err_len, "%s:%ld: empty %s", path, lineno, ns == 0 ? "source" : "target");
        return false;
    }
    if (ns + nt + 2 > d->cfg.context) {
        errorf(err, err_len, "%s:%ld: %d + %d words need %d positions with BOS and SEP, but --context=%d",
                 path, lineno, ns, nt, ns + nt + 2, d->cfg.context);
        return false;
    }
    example_list_push(all, src, ns, tgt, nt);
    return true;
}

/* Every line of the text into `all` (blank lines skipped), or false with the first broken
 * rule in err. */
static bool tsv_lines(Dataset *d, const char *text, size_t size, ExampleList *all, char *err, size_t err_len)
{
    const char *path = d->cfg.path;
    int *src = mem_alloc(TSV_MAX_WORDS * sizeof(int)), *tgt = mem_alloc(TSV_MAX_WORDS * sizeof(int));
    bool ok = true;
    long lineno = 0;
    /* a byte-order mark an editor put first is no part of the first word; lines end at \n,
     * \r\n or \r */
    for (size_t pos = text_bom(text, size), next; ok && pos < size; pos = next) {
        const char *line = text + pos;
        size_t n = text_line(text, size, pos, &next);
        lineno++;
        if (n > TSV_MAX_LINE) {
            errorf(err, err_len, "%s:%ld: line longer than %d bytes", path, lineno, TSV_MAX_LINE);
            ok = false;
        } else if (memchr(line, 0, n)) {
            errorf(err, err_len, "%s:%ld: contains a NUL byte", path, lineno);
            ok = false;
        } else {
            size_t blank = 0;
            while (blank < n && (line[blank] == ' ' || line[blank] == '\t')) blank++;
            if (blank < n) ok = tsv_line(d, line, n, lineno, src, tgt, all, err, err_len); /* else a blank line */
        }
    }
    mem_free(src);
    mem_free(tgt);
    return ok;
}

/* The distinct pairs of `all`, in file order, into d->train and d->val (the split by source
 * hash), counting the repeated ones in d->skipped and noting the lengths. */
static void tsv_split(Dataset *d, const ExampleList *all)
{
    PairKey *keys = mem_alloc((size_t)all->n * sizeof *keys);
    for (int i = 0; i < all->n; i++) {
        Example e = example_list_get(all, i);
        keys[i].source = hash_ids(1, e.src, e.src_len);
        keys[i].pair = hash_ids(keys[i].source, e.tgt, e.tgt_len);
        keys[i].index = i;
    }
    qsort(keys, (size_t)all->n, sizeof *keys, cmp_pair);
    unsigned char *keep = mem_alloc((size_t)all->n);
    uint64_t *source = mem_alloc((size_t)all->n * sizeof(uint64_t));
    for (int i = 0; i < all->n; i++) {
        bool dup = i > 0 && keys[i].pair == keys[i - 1].pair;
        keep[keys[i].index] = !dup;
        source[keys[i].index] = keys[i].source;
        d->skipped += dup;
    }
    bool any_val = false;
    for (int i = 0; i < all->n; i++) any_val |= keep[i] && rng_mix(source[i]) % 10 == 0;
    for (int i = 0; i < all->n; i++) {
        if (!keep[i]) continue;
        Example e = example_list_get(all, i);
        /* if no source fell in the validation bucket, the first line's source goes there */
        bool val = any_val ? rng_mix(source[i]) % 10 == 0 : source[i] == source[0];
        example_list_push(val ? &d->val : &d->train, e.src, e.src_len, e.tgt, e.tgt_len);
        if (e.src_len > d->max_src) d->max_src = e.src_len;
        if (d->min_src == 0 || e.src_len < d->min_src) d->min_src = e.src_len;
        if (e.tgt_len > d->max_tgt) d->max_tgt = e.tgt_len;
        if (e.src_len + e.tgt_len > d->max_pair) d->max_pair = e.src_len + e.tgt_len;
    }
    mem_free(source);
    mem_free(keep);
    mem_free(keys);
}

bool tsv_parse(Dataset *d, const char *text, size_t size, char *err, size_t err_len)
{
    const char *path = d->cfg.path;
    ExampleList all = {0};
    bool ok = tsv_lines(d, text, size, &all, err, err_len);
    if (ok && all.n < 2) {
        errorf(err, err_len, "--data=%s: %s (need at least 2 sentence pairs)", path,
                 all.n ? "only one sentence pair" : "no sentence pairs");
        ok = false;
    }
    if (ok) tsv_split(d, &all);
    if (ok && d->train.n == 0) {
        errorf(err, err_len, "--data=%s: every pair has the same source; nothing is left to train on", path);
        ok = false;
    }
    example_list_free(&all);
    return ok;
}

const TaskSpec task_tsv = {
    .name = "tsv",
    .help = "a user's corpus, one source<TAB>target pair per line (set by --data)",
    .reads = {"data"},
    .load = tsv_load,
};
