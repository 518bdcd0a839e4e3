/* examples.c - growable lists of (source, target) examples whose tokens live in one pool. */
#include "data.h"

#include "../tensor/base.h"

#include <assert.h>
#include <string.h>

void example_list_free(ExampleList *l)
{
    mem_free(l->src_off);
    mem_free(l->src_len);
    mem_free(l->tgt_off);
    mem_free(l->tgt_len);
    mem_free(l->pool);
    memset(l, 0, sizeof *l);
}

void example_list_push(ExampleList *l, const int *src, int src_len, const int *tgt, int tgt_len)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 256;
        size_t used = (size_t)l->n * sizeof(int), bytes = (size_t)cap * sizeof(int);
        l->src_off = mem_grow(l->src_off, used, bytes);
        l->src_len = mem_grow(l->src_len, used, bytes);
        l->tgt_off = mem_grow(l->tgt_off, used, bytes);
        l->tgt_len = mem_grow(l->tgt_len, used, bytes);
        l->cap = cap;
    }
    size_t need = l->pool_len + (size_t)src_len + (size_t)tgt_len;
    if (need > l->pool_cap) {
        size_t cap = l->pool_cap ? 2 * l->pool_cap : 4096;
        while (cap < need) cap *= 2;
        l->pool = mem_grow(l->pool, l->pool_len * sizeof(int), cap * sizeof(int));
        l->pool_cap = cap;
    }
    l->src_off[l->n] = (int)l->pool_len;
    l->src_len[l->n] = src_len;
    memcpy(l->pool + l->pool_len, src, (size_t)src_len * sizeof(int));
    l->pool_len += (size_t)src_len;
    l->tgt_off[l->n] = (int)l->pool_len;
    l->tgt_len[l->n] = tgt_len;
    memcpy(l->pool + l->pool_len, tgt, (size_t)tgt_len * sizeof(int));
    l->pool_len += (size_t)tgt_len;
    l->n++;
}

Example example_list_get(const ExampleList *l, int i)
{
    assert(i >= 0 && i < l->n);
    Example e = {l->src_len[i], l->tgt_len[i], l->pool + l->src_off[i], l->pool + l->tgt_off[i]};
    return e;
}
