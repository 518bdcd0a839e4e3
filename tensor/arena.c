/* arena.c - the bump allocator used for activations.
 *
 * A training step allocates its activations by moving a pointer forward in one big block,
 * and arena_reset() moves it back to the start: no malloc/free inside a step. The block's
 * size is learned in the first step: if the step overflows, extra blocks are taken, and the
 * reset at the end of that step replaces everything by one block large enough for a step.
 */
#include "tensor.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#define ARENA_ALIGN 64

/* An overflow block: a header followed by its bytes. */
struct ArenaBlock {
    ArenaBlock *next;
    size_t size;   /* bytes, header included */
    size_t used;   /* bytes handed out, header included */
    size_t total;  /* sizes of the main block and all overflow blocks up to this one */
};

enum { OVERFLOW_MIN = 64 << 20 };

static size_t round_up(size_t n)
{
    size_t r;
    if (!size_add(n, ARENA_ALIGN - 1, &r)) {
        fprintf(stderr, "error: out of memory (asked for %zu bytes)\n", n);
        exit(2);
    }
    return r - r % ARENA_ALIGN;
}

void arena_init(Arena *a, size_t cap)
{
    memset(a, 0, sizeof *a);
    a->cap = round_up(cap);
    a->base = a->cap ? mem_alloc(a->cap) : NULL;
}

static void free_overflow(Arena *a)
{
    while (a->overflow) {
        ArenaBlock *next = a->overflow->next;
        mem_free(a->overflow);
        a->overflow = next;
    }
}

void arena_free(Arena *a)
{
    free_overflow(a);
    mem_free(a->base);
    memset(a, 0, sizeof *a);
}

void *arena_alloc(Arena *a, size_t bytes)
{
    size_t n = round_up(bytes);
    a->wanted += n;
    if (a->wanted > a->peak) a->peak = a->wanted;
    if (a->cap - a->used >= n) {
        void *p = a->base + a->used;
        a->used += n;
        return p;
    }
    /* The main block is full (only while the first step sizes the arena): carve from the
     * current overflow block, or start a new one at least as large as all before it and at
     * least OVERFLOW_MIN. Big blocks come straight from the OS and go back to it when freed;
     * many blocks of a few MB would stay in the C library's heap after arena_reset, resident
     * next to the new main block. */
    ArenaBlock *b = a->overflow;
    size_t header = round_up(sizeof(ArenaBlock));
    if (!b || b->size - b->used < n) {
        size_t size = n + header, before = b ? b->total : a->cap;
        if (size < OVERFLOW_MIN) size = OVERFLOW_MIN;
        if (size < before) size = before;
        ArenaBlock *nb = mem_alloc(size);
        nb->next = b;
        nb->size = size;
        nb->used = header;
        nb->total = before + size;
        a->overflow = b = nb;
    }
    void *p = (char *)b + b->used;
    b->used += n;
    return p;
}

void *arena_calloc(Arena *a, size_t bytes)
{
    void *p = arena_alloc(a, bytes);
    memset(p, 0, bytes);
    return p;
}

void arena_reset(Arena *a)
{
    if (a->overflow) {
        /* Grow once, to what the whole step needed. */
        free_overflow(a);
        mem_free(a->base);
        a->cap = a->peak;
        a->base = mem_alloc(a->cap);
    }
    a->used = 0;
    a->wanted = 0;
}
