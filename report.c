/* report.c - ./report: the tables and plots of a scale ablation made by scripts/ablation.sh.
 *
 *   ./report [--out DIR] FOLDER [FOLDER ...]    one or more result folders (shards are merged)
 *   ./report --runs RUNS.csv [--out DIR]         the same tables from a runs.csv alone
 *
 * A result folder holds jobs.tsv (the planned runs: id, stage, task, optim, scale, dk, lr, seed,
 * variant, command) and runs/ID.out (a finished run's console output, ending in its summary
 * line) with runs/ID.csv (its log). The report writes into DIR (default: the one FOLDER, or the
 * folder of RUNS.csv):
 *   runs.csv      every planned run, done or missing, with its final numbers and its command
 *   best_lr.tsv   the learning rate chosen per cell of stage "lr" (on validation accuracy)
 *   summary.md    the tables: the LR sweep, test accuracy with 95 % intervals over seeds,
 *                 paired per-seed comparisons of scales and of variants, the binomial error
 *   *.svg         lr_TASK_OPTIM (and lr_STAGE_TASK_OPTIM for another stage that sweeps rates),
 *                 dk_TASK, curves_TASK_OPTIM (the last from logs only)
 * From folders, runs.csv is written first and the tables are made from it as read back, so
 * `--runs runs.csv` gives byte-identical tables: no number in them comes from anywhere else.
 * (--runs writes no runs.csv: it is the input.)
 * Exit status 2, with a one-line message, on any bad or inconsistent input; nothing is
 * written then.
 */
#define _POSIX_C_SOURCE 200809L /* mkdir */

#include "study/report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ helpers */

void die(const char *fmt, ...)
{
    char msg[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (char *p = msg; *p; p++) /* one line, whatever the input quoted in it */
        if ((unsigned char)*p < 0x20) *p = '?';
    fprintf(stderr, "report: %s\n", msg);
    exit(2);
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) die("out of memory (%zu bytes)", bytes);
    return p;
}

void *xrealloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) die("out of memory (%zu bytes)", bytes);
    return q;
}

char *xstrndup(const char *s, size_t n)
{
    char *d = xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

bool parse_number(const char *text, double *out, bool allow_nonfinite)
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
    if (!isfinite(v) && !allow_nonfinite) return false;
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

/* ------------------------------------------------------------------ scales */

/* The class of a scale, in table order; *c the constant of class 3. */
static int scale_class(const char *s, double *c)
{
    *c = NAN;
    if (!strcmp(s, "1")) return 0;
    if (!strcmp(s, "sqrt")) return 1;
    if (!strcmp(s, "dk")) return 2;
    if (!strcmp(s, "learned-sqrt")) return 4;
    if (!strcmp(s, "learned-1")) return 5;
    if (!strcmp(s, "none")) return 6; /* score rules that take no scale (cosine, additive) */
    if (parse_number(s, c, false) && *c > 0) return 3;
    return -1;
}

bool scale_valid(const char *s, double *c) { return scale_class(s, c) >= 0; }

int scale_compare(const char *a, const char *b)
{
    double ca, cb;
    int ka = scale_class(a, &ca), kb = scale_class(b, &cb);
    if (ka != kb) return ka < kb ? -1 : 1;
    if (ka == 3 && ca != cb) return ca < cb ? -1 : 1;
    return strcmp(a, b);
}

const char *scale_label(const char *s, bool plain)
{
    static char bufs[8][64];
    static int next;
    char *b = bufs[next++ % 8];
    const char *sqrt_dk = plain ? "√dk" : "√dₖ", *dk = plain ? "dk" : "dₖ";
    if (!strcmp(s, "1")) snprintf(b, 64, "1");
    else if (!strcmp(s, "sqrt")) snprintf(b, 64, "1/%s", sqrt_dk);
    else if (!strcmp(s, "dk")) snprintf(b, 64, "1/%s", dk);
    else if (!strcmp(s, "learned-sqrt")) snprintf(b, 64, "learned from 1/%s", sqrt_dk);
    else if (!strcmp(s, "learned-1")) snprintf(b, 64, "learned from 1");
    else if (!strcmp(s, "none")) snprintf(b, 64, "none");
    else snprintf(b, 64, "1/%s", s);
    return b;
}

/* ------------------------------------------------------------------ output files */

void out_path(char *buf, size_t n, const char *dir, const char *name)
{
    if ((size_t)snprintf(buf, n, "%s/%s", dir, name) >= n) die("%s/%s: path too long", dir, name);
}

FILE *out_open(OutFile *o, const char *dir, const char *name)
{
    out_path(o->path, sizeof o->path, dir, name);
    char tmp_name[512];
    snprintf(tmp_name, sizeof tmp_name, ".%s.tmp", name);
    out_path(o->tmp, sizeof o->tmp, dir, tmp_name);
    o->f = fopen(o->tmp, "w");
    if (!o->f) die("cannot write %s: %s", o->tmp, strerror(errno));
    return o->f;
}

void out_close(OutFile *o)
{
    bool ok = !ferror(o->f);
    ok &= fclose(o->f) == 0;
    o->f = NULL;
    if (!ok) {
        remove(o->tmp);
        die("cannot write %s (disk full?)", o->path);
    }
    if (rename(o->tmp, o->path) != 0) die("cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
}

/* mkdir -p */
static void make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) die("%s: path too long", dir);
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p) continue;
        char c = *p;
        *p = 0;
        struct stat st;
        if (stat(path, &st) != 0) {
            if (mkdir(path, 0777) != 0 && errno != EEXIST) die("cannot make the folder %s: %s", path, strerror(errno));
        } else if (!S_ISDIR(st.st_mode)) {
            die("--out %s: %s is not a folder", dir, path);
        }
        *p = c;
        if (!c) break;
    }
}

/* ------------------------------------------------------------------ main */

static void usage(FILE *f)
{
    fprintf(f, "usage: report [--out DIR] FOLDER [FOLDER ...]   (result folders of scripts/ablation.sh; shards are merged)\n"
                    "       report --runs RUNS.csv [--out DIR]        (the tables again from a runs.csv)\n"
                    "       report --probe PROBE.md [--out DIR]       (probe_softmax.svg from ./probe's output)\n");
}

/* --name VALUE or --name=VALUE: the value, advancing *i; NULL when argv[*i] is not --name. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n)) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n]) return NULL;
    if (*i + 1 >= argc) die("%s needs a value", name);
    return argv[++*i];
}

int main(int argc, char **argv)
{
    const char *out = NULL, *runs = NULL, *probe = NULL;
    const char **folders = xmalloc(sizeof(char *) * (size_t)(argc + 1));
    int n_folders = 0;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            free(folders);
            return 0;
        } else if ((v = option_value(argc, argv, &i, "--out"))) {
            if (out) die("--out given twice");
            out = v;
        } else if ((v = option_value(argc, argv, &i, "--runs"))) {
            if (runs) die("--runs given twice");
            runs = v;
        } else if ((v = option_value(argc, argv, &i, "--probe"))) {
            if (probe) die("--probe given twice");
            probe = v;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            die("unknown option %s (see --help)", argv[i]);
        } else {
            folders[n_folders++] = argv[i];
        }
        if (v && !*v) die("%s needs a value", argv[i]);
    }
    if (probe) {
        if (runs || n_folders) die("--probe draws the probe figure alone: give no folder and no --runs");
        const char *d = out ? out : ".";
        make_dirs(d);
        report_probe_plot(probe, d);
        printf("report: %s -> %s/probe_softmax.svg\n", probe, d);
        free(folders);
        return 0;
    }
    if (runs && n_folders) die("--runs reads a runs.csv instead of folders: give one or the other");
    if (!runs && !n_folders) {
        usage(stderr);
        free(folders);
        return 2;
    }
    if (!runs && n_folders > 1 && !out) die("%d folders to merge: say where the report goes with --out DIR", n_folders);

    /* where the outputs go: --out, the one folder, or the folder of RUNS.csv */
    char dir[4096];
    if (out) snprintf(dir, sizeof dir, "%s", out);
    else if (!runs) snprintf(dir, sizeof dir, "%s", folders[0]);
    else {
        const char *slash = strrchr(runs, '/');
        if (!slash) snprintf(dir, sizeof dir, ".");
        else snprintf(dir, sizeof dir, "%.*s", (int)(slash - runs) + (slash == runs), runs);
    }

    Row *rows = NULL;
    Curve *curves = NULL;
    int n_rows = 0, n_curves = 0;
    char runs_path[4096];
    if (runs) {
        snprintf(runs_path, sizeof runs_path, "%s", runs);
    } else {
        load_folders(folders, n_folders, &rows, &n_rows, &curves, &n_curves);
        make_dirs(dir);
        out_path(runs_path, sizeof runs_path, dir, "runs.csv");
        write_runs_csv(runs_path, rows, n_rows);
        free_rows(rows, n_rows);
    }
    /* the tables read runs.csv, whichever way it came */
    read_runs_csv(runs_path, &rows, &n_rows);
    if (runs) make_dirs(dir);
    write_best_lr(dir, rows, n_rows);
    write_summary(dir, rows, n_rows);
    int plots = write_plots(dir, rows, n_rows, curves, n_curves);

    int done = 0;
    for (int i = 0; i < n_rows; i++) done += rows[i].done;
    printf("report: %d planned runs, %d done, %d missing -> %s/%sbest_lr.tsv, summary.md and %d plots\n", n_rows, done,
           n_rows - done, dir, runs ? "" : "runs.csv, ", plots);
    if (done < n_rows) fprintf(stderr, "report: %d of %d planned runs are missing (listed in summary.md)\n", n_rows - done, n_rows);
    free_rows(rows, n_rows);
    free_curves(curves, n_curves);
    free(folders);
    return 0;
}
