/* report_common.c - see report_common.h. */
#define _POSIX_C_SOURCE 200809L /* mkdir */

#include "report_common.h"

#include "../../tensor/base.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ text copies */

char *xstrndup(const char *s, size_t n)
{
    char *d = mem_alloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

/* ------------------------------------------------------------------ numbers */

bool parse_number(const char *text, double *out, NumberWords words)
{
    /* strtod would skip leading spaces and accept hex: a number here is plain decimal */
    const char *t = text;
    if (*t == '-' || *t == '+') t++;
    bool word = !strcmp(t, "nan") || !strcmp(t, "inf");
    if (!word && !((*t >= '0' && *t <= '9') || (*t == '.' && t[1] >= '0' && t[1] <= '9'))) return false;
    if (strchr(text, 'x') || strchr(text, 'X')) return false;
    char *end;
    double v = strtod(text, &end);
    if (end == text || *end) return false;
    if (isinf(v) && !word) return false; /* 1e400: too large for a double, not "inf" */
    if (!isfinite(v) && words == FINITE_ONLY) return false;
    *out = v;
    return true;
}

bool parse_long(const char *text, long *out)
{
    const char *t = text + (*text == '-' || *text == '+');
    if (!*t) return false;
    for (; *t; t++)
        if (*t < '0' || *t > '9') return false;
    errno = 0;
    long v = strtol(text, NULL, 10);
    if (errno) return false;
    *out = v;
    return true;
}

void format_number(char *buf, size_t n, double v)
{
    if (isnan(v)) snprintf(buf, n, "nan");
    else snprintf(buf, n, "%.6g", v);
}

/* ------------------------------------------------------------------ input files */

char *read_text(const char *path, size_t *size, FileNeed need)
{
    struct stat st;
    if (need == MAY_BE_ABSENT && stat(path, &st) != 0 && errno == ENOENT) return NULL;
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why); /* a FIFO is refused, not waited on */
    if (!f) die(EXIT_USER, "%s: %s", path, why);
    size_t cap = 4096, n = 0; /* the file's size and a byte, when it says */
    if (fstat(fileno(f), &st) == 0 && st.st_size > 0) cap = (size_t)st.st_size + 2;
    char *buf = mem_alloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            buf = mem_grow(buf, n, 2 * cap);
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        n += got;
        if (got == 0) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) die(EXIT_USER, "%s: read error", path);
    if (memchr(buf, 0, n)) die(EXIT_USER, "%s: holds a NUL byte: not a text file", path);
    buf[n] = 0;
    *size = n;
    return buf;
}

/* ------------------------------------------------------------------ output files */

void out_path(char *buf, size_t n, const char *dir, const char *name)
{
    if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n) die(EXIT_USER, "%s/%s: path too long", dir, name);
}

FILE *out_open(OutFile *o, const char *dir, const char *name)
{
    out_path(o->path, sizeof o->path, dir, name);
    char tmp_name[512];
    snprintf(tmp_name, sizeof tmp_name, ".%s.tmp", name);
    out_path(o->tmp, sizeof o->tmp, dir, tmp_name);
    o->f = fopen(o->tmp, "w");
    if (!o->f) die(EXIT_USER, "cannot write %s: %s", o->tmp, strerror(errno));
    return o->f;
}

void out_close(OutFile *o)
{
    bool ok = !ferror(o->f);
    ok &= fclose(o->f) == 0;
    o->f = NULL;
    if (!ok) {
        remove(o->tmp);
        die(EXIT_USER, "cannot write %s (disk full?)", o->path);
    }
    if (rename(o->tmp, o->path) != 0) die(EXIT_USER, "cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
}

void out_make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) die(EXIT_USER, "%s: path too long", dir);
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = 0;
        struct stat st;
        if (stat(path, &st) != 0) {
            if (mkdir(path, 0777) != 0 && errno != EEXIST) die(EXIT_USER, "cannot make the folder %s: %s", path, strerror(errno));
        } else if (!S_ISDIR(st.st_mode)) {
            die(EXIT_USER, "--out %s: %s is not a folder", dir, path);
        }
        *p = c;
        if (!c) break;
    }
}
