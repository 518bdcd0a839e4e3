/* arena.c - heap allocation (counted), overflow-safe sizes, error messages, and the bump
 * allocator used for activations.
 *
 * A training step allocates its activations by moving a pointer forward in one big block,
 * and arena_reset() moves it back to the start: no malloc/free inside a step. The block's
 * size is learned in the first step: if the step overflows, extra blocks are taken, and the
 * reset at the end of that step replaces everything by one block large enough for a step.
 */
#include "tensor.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 64

static uint64_t g_alloc_count;

void *mem_alloc(size_t bytes)
{
    size_t rounded;
    if (bytes == 0) bytes = 1;
    if (!size_add(bytes, ARENA_ALIGN - 1, &rounded)) goto oom;
    rounded -= rounded % ARENA_ALIGN;
    void *p = aligned_alloc(ARENA_ALIGN, rounded);
    if (!p) goto oom;
    memset(p, 0, rounded);
    g_alloc_count++;
    return p;
oom:
    fprintf(stderr, "error: out of memory (asked for %zu bytes)\n", bytes);
    exit(2);
}

void mem_free(void *p) { free(p); }

uint64_t mem_alloc_count(void) { return g_alloc_count; }

bool errorf(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return false;
}

bool size_mul(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return false;
    *out = a * b;
    return true;
}

bool size_add(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return false;
    *out = a + b;
    return true;
}

/* An overflow block: a header followed by its bytes. */
struct ArenaBlock {
    ArenaBlock *next;
    size_t size;
};

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
    /* The main block is full: take a block of its own (only happens while sizing the arena). */
    size_t header = round_up(sizeof(ArenaBlock)), total;
    if (!size_add(header, n, &total)) {
        fprintf(stderr, "error: out of memory (asked for %zu bytes)\n", bytes);
        exit(2);
    }
    ArenaBlock *b = mem_alloc(total);
    b->next = a->overflow;
    b->size = total;
    a->overflow = b;
    return (char *)b + header;
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
