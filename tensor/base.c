/* base.c - counted heap memory, one-line error messages, safe input files, overflow-safe sizes. */
#define _POSIX_C_SOURCE 200809L /* open flags, fdopen */

#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { MEM_ALIGN = 64 };

static _Atomic uint64_t g_alloc_count; /* atomic: ./probe allocates on several threads at once */

/* calloc, aligned by hand: calloc's zeroing of a large block costs nothing until a page is
 * touched (fresh pages from the OS are already zero), where aligned_alloc + memset would make
 * the whole block resident at once. The pointer calloc returned is kept just before the
 * aligned one, for mem_free. A block too small to hold a vector of 16 floats is aligned as
 * malloc aligns it (16 bytes; 8 below 16 bytes), which keeps ./report's many short strings at
 * 8 or 16 bytes more each instead of 71. calloc's blocks are at least 8-byte aligned, so at most
 * `extra` bytes lie before the aligned block. */
void *mem_alloc(size_t bytes)
{
    size_t align = bytes >= MEM_ALIGN ? MEM_ALIGN : bytes >= 16 ? 16 : 8;
    size_t extra = align == MEM_ALIGN ? MEM_ALIGN + sizeof(void *) - 1 : align, total;
    if (!size_add(bytes, extra, &total)) goto oom;
    char *raw = calloc(1, total);
    if (!raw) goto oom;
    uintptr_t at = ((uintptr_t)raw + sizeof(void *) + align - 1) & ~(uintptr_t)(align - 1);
    ((void **)at)[-1] = raw;
    atomic_fetch_add_explicit(&g_alloc_count, 1, memory_order_relaxed);
    return (void *)at;
oom:
    fprintf(stderr, "error: out of memory (asked for %zu bytes)\n", bytes);
    exit(2);
}

void mem_free(void *p)
{
    if (p) free(((void **)p)[-1]);
}

uint64_t mem_alloc_count(void) { return atomic_load_explicit(&g_alloc_count, memory_order_relaxed); }

void *mem_grow(void *old, size_t used_bytes, size_t new_bytes)
{
    void *p = mem_alloc(new_bytes);
    if (used_bytes) memcpy(p, old, used_bytes);
    mem_free(old);
    return p;
}

void *mem_grow_array(void *old, int n, int *cap, size_t item_bytes, int first)
{
    if (n < *cap) return old;
    int grown = *cap ? 2 * *cap : first;
    void *p = mem_grow(old, item_bytes * (size_t)n, item_bytes * (size_t)grown);
    *cap = grown;
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

size_t text_line(const char *text, size_t size, size_t pos, size_t *next)
{
    size_t end = pos;
    while (end < size && text[end] != '\n' && text[end] != '\r') end++;
    *next = end;
    if (end < size) *next += text[end] == '\r' && end + 1 < size && text[end + 1] == '\n' ? 2 : 1;
    return end - pos;
}

size_t text_bom(const char *text, size_t size)
{
    return size >= 3 && !memcmp(text, "\xef\xbb\xbf", 3) ? 3 : 0;
}

const char *file_kind(mode_t mode)
{
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

FILE *file_open_regular(const char *path, char *why, size_t why_len)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISSOCK(st.st_mode)) { /* open() would only say "No such device" */
        snprintf(why, why_len, "%s, not a regular file", file_kind(st.st_mode));
        return NULL;
    }
    /* O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, why_len, "%s", strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "%s, not a regular file", fstat(fd, &st) == 0 ? file_kind(st.st_mode) : strerror(errno));
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "rb") : NULL;
    if (!f) {
        snprintf(why, why_len, "%s", strerror(errno));
        close(fd);
    }
    return f;
}

size_t utf8_char(const unsigned char *s, size_t n)
{
    if (n == 0) return 0;
    unsigned c = s[0], min;
    size_t extra;
    if (c < 0x80) return 1;
    else if ((c & 0xe0) == 0xc0) { extra = 1; min = 0x80; c &= 0x1f; }
    else if ((c & 0xf0) == 0xe0) { extra = 2; min = 0x800; c &= 0x0f; }
    else if ((c & 0xf8) == 0xf0) { extra = 3; min = 0x10000; c &= 0x07; }
    else return 0;
    if (extra >= n) return 0; /* truncated */
    for (size_t k = 1; k <= extra; k++) {
        if ((s[k] & 0xc0) != 0x80) return 0;
        c = (c << 6) | (s[k] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
    return extra + 1;
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

const char *name_of(NameTable table, int n, int v, const char **help)
{
    if (v < 0 || v >= n || !table[v][0]) return NULL;
    if (help) *help = table[v][1];
    return table[v][0];
}

void appendf(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    *used += n > 0 ? (size_t)n : 0;
}

int name_find(const char *(*names)(int value, const char **help), const char *name)
{
    const char *n;
    for (int v = 0; (n = names(v, NULL)) != NULL; v++)
        if (!strcmp(n, name)) return v;
    return -1;
}

int edit_distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    size_t n = strlen(a), m = strlen(b);
    if (n >= MAX || m >= MAX) return INT_MAX;
    /* d[i][j]: the distance between a's first i characters and b's first j (Damerau's
     * "optimal string alignment": a swap of neighbours costs 1, as a typist makes it) */
    int d[MAX][MAX];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            int best = sub < del ? sub : del;
            best = ins < best ? ins : best;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

NearestName nearest_start(const char *typed) { return (NearestName){.typed = typed, .best = INT_MAX}; }

void nearest_offer(NearestName *n, const char *known)
{
    int d = edit_distance(n->typed, known);
    if (d < n->best) n->best = d, n->found = known;
    else if (d == n->best) n->found = NULL;
}

const char *nearest_found(const NearestName *n)
{
    int limit = strlen(n->typed) >= 6 ? 2 : 1;
    return n->best <= limit ? n->found : NULL;
}

const char *nearest_flag(const char *arg, const char *const *known)
{
    char name[64];
    while (*arg == '-') arg++;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    NearestName n = nearest_start(name);
    for (; *known; known++) nearest_offer(&n, *known);
    return nearest_found(&n);
}

double base_monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
