/* vocab.c - words <-> token ids, with a small open-addressing hash table. */
#include "data.h"

#include "../tensor/base.h"

#include <stdio.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

void vocab_init(Vocab *v)
{
    memset(v, 0, sizeof *v);
    const char *special[TOK_FIRST_WORD] = {"<pad>", "<bos>", "<sep>", "<eos>"};
    for (int i = 0; i < TOK_FIRST_WORD; i++) vocab_add(v, special[i], strlen(special[i]));
}

void vocab_free(Vocab *v)
{
    for (int i = 0; i < v->size; i++) mem_free(v->words[i]);
    mem_free(v->words);
    mem_free(v->table);
    memset(v, 0, sizeof *v);
}

static int *slot(const Vocab *v, const char *word, size_t len)
{
    size_t mask = (size_t)v->table_cap - 1, i = hash_bytes(word, len) & mask;
    for (;;) {
        int id = v->table[i];
        if (id < 0) return &v->table[i];
        if (strlen(v->words[id]) == len && memcmp(v->words[id], word, len) == 0) return &v->table[i];
        i = (i + 1) & mask;
    }
}

int vocab_find(const Vocab *v, const char *word, size_t len)
{
    if (!v->table_cap) return -1;
    return *slot(v, word, len);
}

static void rehash(Vocab *v, int cap)
{
    mem_free(v->table);
    v->table = mem_alloc((size_t)cap * sizeof(int));
    v->table_cap = cap;
    for (int i = 0; i < cap; i++) v->table[i] = -1;
    for (int id = 0; id < v->size; id++) *slot(v, v->words[id], strlen(v->words[id])) = id;
}

int vocab_add(Vocab *v, const char *word, size_t len)
{
    int id = vocab_find(v, word, len);
    if (id >= 0) return id;
    if (v->size == v->cap) {
        int cap = v->cap ? 2 * v->cap : 64;
        v->words = mem_grow(v->words, (size_t)v->size * sizeof(char *), (size_t)cap * sizeof(char *));
        v->cap = cap;
    }
    char *copy = mem_alloc(len + 1);
    memcpy(copy, word, len);
    copy[len] = 0;
    v->words[v->size++] = copy;
    if (2 * v->size > v->table_cap) rehash(v, v->table_cap ? 2 * v->table_cap : 128);
    else *slot(v, copy, len) = v->size - 1;
    return v->size - 1;
}

void vocab_format(const Vocab *v, const int *tokens, int n, char *buf, size_t buf_len)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n && used + 1 < buf_len; i++) {
        const char *w = tokens[i] >= 0 && tokens[i] < v->size ? v->words[tokens[i]] : "?";
        int k = snprintf(buf + used, buf_len - used, "%s%s", i ? " " : "", w);
        if (k < 0) break;
        used += (size_t)k;
    }
}
