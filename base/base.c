/* base.c - counted heap memory, one-line error messages, overflow-safe sizes. */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MEM_ALIGN = 64 };

static uint64_t g_alloc_count;

/* calloc, aligned by hand: calloc's zeroing of a large block costs nothing until a page is
 * touched (fresh pages from the OS are already zero), where aligned_alloc + memset would make
 * the whole block resident at once. The pointer calloc returned is kept just before the
 * aligned one, for mem_free. */
void *mem_alloc(size_t bytes)
{
    size_t total;
    if (!size_add(bytes, MEM_ALIGN + sizeof(void *), &total)) goto oom;
    char *raw = calloc(1, total);
    if (!raw) goto oom;
    uintptr_t at = ((uintptr_t)raw + sizeof(void *) + MEM_ALIGN - 1) & ~(uintptr_t)(MEM_ALIGN - 1);
    ((void **)at)[-1] = raw;
    g_alloc_count++;
    return (void *)at;
oom:
    fprintf(stderr, "error: out of memory (asked for %zu bytes)\n", bytes);
    exit(2);
}

void mem_free(void *p)
{
    if (p) free(((void **)p)[-1]);
}

uint64_t mem_alloc_count(void) { return g_alloc_count; }

void *mem_grow(void *old, size_t used_bytes, size_t new_bytes)
{
    void *p = mem_alloc(new_bytes);
    if (used_bytes) memcpy(p, old, used_bytes);
    mem_free(old);
    return p;
}

bool errorf(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    message_one_line(err);
    return false;
}

void message_one_line(char *msg)
{
    /* messages quote input (a path, a value, a name from a file): its control characters,
     * newlines among them, become '?' so that a message stays on one line */
    for (unsigned char *p = (unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p == 0x7f) *p = '?';
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
