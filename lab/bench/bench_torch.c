/* bench_torch.c - reads scripts/torch_bench.py's CSV (see bench_torch.h). Strict: any line
 * that is not what the script writes is an error, so a figure is never silently misread. */
#define _DEFAULT_SOURCE /* access */
#include "bench_torch.h"

#include "../../tensor/base.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { LINE_MAX_LEN = 4096 };

static int fail(char *err, size_t errlen, const char *path, int line, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0) snprintf(err, errlen, "%s line %d: %s", path, line, msg);
    else snprintf(err, errlen, "%s: %s", path, msg);
    message_one_line(err); /* a field quoted from the file may hold control characters */
    return -1;
}

/* Copies the text after `key` ("# blas: ") of a comment line into dst; false when line lacks it. */
static bool comment_value(const char *line, const char *key, char *dst, size_t len)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0) return false;
    size_t n = strlen(line + k);
    if (n >= len) n = len - 1; /* a longer value is cut: it is only printed */
    memcpy(dst, line + k, n);
    dst[n] = 0;
    return true;
}

/* A field of a row: non-empty, at most `max - 1` characters, printable ASCII (no comma). */
static bool field_ok(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n >= max) return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x21 || s[i] > 0x7e || s[i] == ',') return false;
    return true;
}

/* Splits a row into exactly 4 comma-separated fields (in place). */
static int split4(char *line, char *f[4])
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p; p++)
        if (*p == ',') {
            if (n == 4) return 5;
            *p = 0;
            f[n++] = p + 1;
        }
    return n;
}

static int parse_row(char *line, TorchRow *r, char *err, size_t errlen, const char *path, int ln)
{
    char *f[4];
    if (split4(line, f) != 4) return fail(err, errlen, path, ln, "expected 4 fields (%s)", TORCH_BENCH_COLUMNS);
    if (!field_ok(f[0], sizeof r->config)) return fail(err, errlen, path, ln, "bad config name");
    if (!field_ok(f[1], sizeof r->setting)) return fail(err, errlen, path, ln, "bad setting name");
    char *end;
    errno = 0;
    long th = strtol(f[2], &end, 10);
    if (errno || end == f[2] || *end || th < 1 || th > 4096 || f[2][0] == '+' || f[2][0] == ' ')
        return fail(err, errlen, path, ln, "threads '%s' is not a whole number in 1..4096", f[2]);
    errno = 0;
    double ms = strtod(f[3], &end);
    if (errno || end == f[3] || *end || !isfinite(ms) || ms <= 0 || f[3][0] == ' ')
        return fail(err, errlen, path, ln, "ms_per_step '%s' is not a positive number", f[3]);
    snprintf(r->config, sizeof r->config, "%s", f[0]);
    snprintf(r->setting, sizeof r->setting, "%s", f[1]);
    r->threads = (int)th;
    r->ms = ms;
    return 0;
}

int torch_table_read(const char *path, TorchTable *t, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    if (access(path, F_OK) != 0 && errno == ENOENT) return 0; /* no comparison: not an error */
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why); /* a FIFO or a folder is refused, not read */
    if (!f) return fail(err, errlen, path, 0, "cannot read: %s", why);
    char line[LINE_MAX_LEN + 2];
    int ln = 0, rc = 0;
    bool header = false;
    while (fgets(line, sizeof line, f)) {
        ln++;
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n') { /* a NUL byte in the line ends up here too */
            rc = fail(err, errlen, path, ln, n > LINE_MAX_LEN ? "line too long" : "no newline at the end (a cut-off file?)");
            break;
        }
        line[--n] = 0;
        if (ln == 1) {
            if (strcmp(line, TORCH_BENCH_MARKER) != 0) {
                rc = fail(err, errlen, path, ln, "not an output of scripts/torch_bench.py (no marker line)");
                break;
            }
            continue;
        }
        if (!header) {
            if (!strcmp(line, TORCH_BENCH_COLUMNS)) {
                header = true;
                continue;
            }
            if (line[0] != '#') {
                rc = fail(err, errlen, path, ln, "expected a '#' comment or the header '%s'", TORCH_BENCH_COLUMNS);
                break;
            }
            comment_value(line, "# torch: ", t->torch, sizeof t->torch);
            comment_value(line, "# blas: ", t->blas, sizeof t->blas);
            comment_value(line, "# date: ", t->date, sizeof t->date);
            continue;
        }
        if (t->n == TORCH_MAX_ROWS) {
            rc = fail(err, errlen, path, ln, "more than %d rows", TORCH_MAX_ROWS);
            break;
        }
        if ((rc = parse_row(line, &t->rows[t->n], err, errlen, path, ln)) != 0) break;
        for (int i = 0; i < t->n; i++)
            if (!strcmp(t->rows[i].config, t->rows[t->n].config) && !strcmp(t->rows[i].setting, t->rows[t->n].setting)) {
                rc = fail(err, errlen, path, ln, "config %s, setting %s given twice", t->rows[i].config, t->rows[i].setting);
                break;
            }
        if (rc) break;
        t->n++;
    }
    if (!rc && ferror(f)) rc = fail(err, errlen, path, 0, "cannot read: %s", strerror(errno));
    fclose(f);
    if (rc) return rc;
    if (ln == 0) return fail(err, errlen, path, 0, "empty file");
    if (!header) return fail(err, errlen, path, 0, "no header line '%s'", TORCH_BENCH_COLUMNS);
    if (t->n == 0) return fail(err, errlen, path, 0, "no rows");
    if (!t->torch[0] || !t->blas[0]) return fail(err, errlen, path, 0, "no '# torch: ' or '# blas: ' line");
    return 1;
}

const TorchRow *torch_table_best(const TorchTable *t, const char *name)
{
    const TorchRow *best = NULL;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->rows[i].config, name) && (!best || t->rows[i].ms < best->ms)) best = &t->rows[i];
    return best;
}

void torch_print_absent(const char *path)
{
    printf("No PyTorch comparison: %s not found (make torch-bench, or /usr/bin/python3 scripts/torch_bench.py --out=%s, "
           "writes it).\n",
           path, path);
}

void torch_print_header(const TorchTable *t)
{
    printf("\n## Side by side with PyTorch (from %s%s%s)\n\nPyTorch %s; BLAS: %s.\n"
           "PyTorch's figure is the best of its settings (threads, BLAS variant, wait policy) per config; ours the better "
           "of 1 and N threads above.\n\n"
           "| config | ours ms/step (threads) | PyTorch ms/step | PyTorch's best setting | ours / PyTorch (speed) |\n"
           "|---|---:|---:|---|---:|\n",
           t->path, t->date[0] ? ", measured " : "", t->date, t->torch, t->blas);
}

void torch_print_row(const TorchTable *t, const char *config, double our_ms, int our_threads)
{
    const TorchRow *b = torch_table_best(t, config);
    if (!b) printf("| %s | %.1f (%d) | (not in the file) | | |\n", config, our_ms, our_threads);
    else if (!isfinite(our_ms)) printf("| %s | (failed) | %.1f | %s | |\n", config, b->ms, b->setting);
    else printf("| %s | %.1f (%d) | %.1f | %s (%d threads) | %.2fx |\n", config, our_ms, our_threads, b->ms, b->setting,
                b->threads, b->ms / our_ms);
    fflush(stdout);
}
