/* decode_line.c - one line that --decode reads, as the word ids of a source, or why it is not
 * one (see decode.h). */
#include "decode.h"

#include "../base/base.h"

#include <stdio.h>
#include <string.h>

/* How many bytes of a word a message shows, and how many vocabulary words. */
enum { SHOWN_WORD = 40, SHOWN_WORDS = 12 };

void decode_vocab_sample(const Vocab *v, int max_words, char *buf, size_t len)
{
    int words = v->size - TOK_FIRST_WORD, shown = words < max_words ? words : max_words;
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < shown && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", v->words[TOK_FIRST_WORD + i]);
    if (shown < words && used < len) snprintf(buf + used, len - used, " ... (%d words)", words);
}

/* The word s[0..n) for a message: at most SHOWN_WORD bytes, cut before a UTF-8 character's
 * continuation bytes, "..." after a cut. (errorf turns control characters into '?'.) */
static void shown_word(const char *s, size_t n, char *buf, size_t len)
{
    size_t keep = n;
    if (keep > SHOWN_WORD) {
        keep = SHOWN_WORD;
        while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80) keep--;
    }
    snprintf(buf, len, "%.*s%s", (int)keep, s, keep < n ? "..." : "");
}

int decode_line_tokens(const Vocab *v, const char *line, size_t n, int context, int *ids, char *err, size_t err_len)
{
    int max_len = context - 2, count = 0;
    bool ok = true;
    if (memchr(line, 0, n)) ok = errorf(err, err_len, "contains a NUL byte");
    else if (memchr(line, '\t', n))
        ok = errorf(err, err_len, "contains a tab: give the source only, not source<TAB>target (cut -f1 gives it)");
    char word[SHOWN_WORD + 8], sample[512];
    for (size_t i = 0; ok && i < n;) {
        while (i < n && line[i] == ' ') i++;
        size_t start = i;
        while (i < n && line[i] != ' ') i++;
        if (i == start) break;
        int id = vocab_find(v, line + start, i - start);
        if (id < 0) {
            shown_word(line + start, i - start, word, sizeof word);
            decode_vocab_sample(v, SHOWN_WORDS, sample, sizeof sample);
            ok = errorf(err, err_len, "unknown token \"%s\" (the vocabulary has: %s)", word, sample);
        } else if (id < TOK_FIRST_WORD) {
            ok = errorf(err, err_len, "\"%s\" is one of the model's own tokens, not a word of a source", v->words[id]);
        } else {
            if (count < max_len) ids[count] = id;
            count++;
        }
    }
    if (ok && count == 0) ok = errorf(err, err_len, "empty: no source to decode");
    if (ok && count > max_len)
        ok = errorf(err, err_len,
                    "%d tokens, more than the %d this model takes (its context of %d positions holds <bos>, the source, "
                    "<sep> and the answer)", count, max_len, context);
    return ok ? count : -1;
}
