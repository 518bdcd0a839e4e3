/* decode_line.c - one line that --decode reads, as the word ids of a source, or why it is not
 * one (see decode.h). */
#include "decode.h"

#include "../tensor/base.h"

#include <stdio.h>
#include <string.h>

/* How many bytes of a word a message shows; the room for the vocabulary in a message. */
enum { SHOWN_WORD = 40, SHOWN_VOCAB = 800 };

void decode_vocab_sample(const Vocab *v, int max_words, char *buf, size_t len)
{
    enum { TAIL = 24 }; /* " ... (NNNNNNNNN words)" */
    int words = v->size - TOK_FIRST_WORD, shown = 0;
    size_t used = 0;
    buf[0] = 0;
    for (; shown < words && shown < max_words; shown++) {
        const char *w = v->words[TOK_FIRST_WORD + shown];
        if (used + 1 + strlen(w) + TAIL >= len) break; /* whole words only */
        used += (size_t)snprintf(buf + used, len - used, "%s%s", shown ? " " : "", w);
    }
    if (shown < words) snprintf(buf + used, len - used, " ... (%d words)", words);
}

/* The word s[0..n) for a message: at most SHOWN_WORD bytes of it, "..." after a cut; bytes
 * that are not well-formed UTF-8 as \xNN, so that the message is text. (errorf turns control
 * characters into '?'.) */
static void shown_word(const char *s, size_t n, char *buf, size_t len)
{
    size_t used = 0, i = 0;
    buf[0] = 0;
    while (i < n && i < SHOWN_WORD && used + 8 < len) {
        size_t k = utf8_char((const unsigned char *)s + i, n - i);
        if (k == 0) used += (size_t)snprintf(buf + used, len - used, "\\x%02X", (unsigned char)s[i++]);
        else if (i + k > SHOWN_WORD) break; /* a character is not cut */
        else {
            memcpy(buf + used, s + i, k);
            buf[used += k] = 0;
            i += k;
        }
    }
    if (i < n) snprintf(buf + used, len - used, "...");
}

int decode_line_tokens(const Vocab *v, const char *line, size_t n, int context, int *ids, char *err, size_t err_len)
{
    int max_len = context - 2, count = 0;
    bool ok = true;
    if (memchr(line, 0, n)) ok = errorf(err, err_len, "contains a NUL byte");
    else if (memchr(line, '\t', n))
        ok = errorf(err, err_len, "contains a tab: give the source only, not source<TAB>target (cut -f1 gives it)");
    char word[4 * SHOWN_WORD + 8], sample[SHOWN_VOCAB];
    for (size_t i = 0; ok && i < n;) {
        while (i < n && line[i] == ' ') i++;
        size_t start = i;
        while (i < n && line[i] != ' ') i++;
        if (i == start) break;
        int id = vocab_find(v, line + start, i - start);
        if (id < 0) {
            shown_word(line + start, i - start, word, sizeof word);
            decode_vocab_sample(v, v->size, sample, sizeof sample); /* all the words that fit in a line */
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
