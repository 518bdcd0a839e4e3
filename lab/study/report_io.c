/* report_io.c - the inputs of ./report: result folders and runs.csv.
 *
 * A result folder: FOLDER/jobs.tsv lists the planned runs; FOLDER/runs/ID.out exists once a
 * run has finished, and its last "summary:" line holds the run's final numbers; FOLDER/runs/
 * ID.csv is its log. Several folders (shards of one study) are merged by id: the same id must
 * plan the same run everywhere, and where it finished twice it must have given the same
 * numbers (all but time_s). Every file is checked whole before anything is written: a file
 * cut short is an error that names it, never a partial table.
 */
#define _POSIX_C_SOURCE 200809L

#include "report_io.h"

#include "report_cells.h" /* row_key: the cell of a run */
#include "report_common.h"
#include "report_log.h"
#include "../../tensor/base.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------ the fields of a job */

static bool is_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

/* Letters, digits and the characters of `extra`, starting with a letter or digit. */
static bool is_word(const char *s, const char *extra)
{
    if (!is_alnum(*s)) return false;
    for (; *s; s++)
        if (!is_alnum(*s) && !strchr(extra, *s)) return false;
    return true;
}

/* "-", or key=value[,key=value...] */
static bool is_variant(const char *s)
{
    if (!strcmp(s, "-")) return true;
    char buf[1024];
    if (strlen(s) >= sizeof buf) return false;
    strcpy(buf, s);
    char *save = NULL;
    int items = 0;
    if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,")) return false;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save), items++) {
        char *eq = strchr(item, '=');
        if (!eq || eq == item || !eq[1]) return false;
        *eq = 0;
        if (!is_word(item, "_-") || !is_word(eq + 1, "._+-")) return false;
    }
    return items > 0;
}

/* Checks the jobs.tsv fields of a run (where: "FILE:LINE" for the message). */
static void check_job(char *const *f, const char *where)
{
    double c, v;
    long l;
    if (strlen(f[JOB_ID]) > 200 || !is_word(f[JOB_ID], "._+=,-"))
        die(EXIT_USER, "%s: id \"%s\" is not a file-name-safe name (letters, digits, . _ + = , -)", where, f[JOB_ID]);
    if (!is_word(f[JOB_STAGE], "_-")) die(EXIT_USER, "%s: stage \"%s\" is not a word", where, f[JOB_STAGE]);
    if (!is_word(f[JOB_TASK], "_-")) die(EXIT_USER, "%s: task \"%s\" is not a word", where, f[JOB_TASK]);
    if (!is_word(f[JOB_OPTIM], "_-")) die(EXIT_USER, "%s: optim \"%s\" is not a word", where, f[JOB_OPTIM]);
    if (!scale_valid(f[JOB_SCALE], &c))
        die(EXIT_USER, "%s: scale \"%s\": expected %s", where, f[JOB_SCALE], scale_names());
    if (!parse_long(f[JOB_DK], &l) || l < 1 || l > 1000000) die(EXIT_USER, "%s: dk \"%s\" is not a positive integer", where, f[JOB_DK]);
    if (!parse_number(f[JOB_LR], &v, FINITE_ONLY) || !(v > 0)) die(EXIT_USER, "%s: lr \"%s\" is not a positive number", where, f[JOB_LR]);
    if (!parse_long(f[JOB_SEED], &l)) die(EXIT_USER, "%s: seed \"%s\" is not an integer", where, f[JOB_SEED]);
    if (!is_variant(f[JOB_VARIANT])) die(EXIT_USER, "%s: variant \"%s\": expected - or key=value[,key=value...]", where, f[JOB_VARIANT]);
    if (!f[JOB_COMMAND][0]) die(EXIT_USER, "%s: empty command", where);
}

/* The column of metric m in runs.csv, counted from 1 (after the job's fields and the status). */
static int metric_column(int m) { return JOB_COMMAND + 2 + m; }

/* Parses the numbers of a row whose texts are set; `where` names its line. */
static void parse_row(Row *r, const char *where)
{
    check_job(r->job, where);
    long l;
    parse_long(r->job[JOB_DK], &l);
    r->dk = (double)l;
    parse_number(r->job[JOB_LR], &r->lr, FINITE_ONLY);
    parse_long(r->job[JOB_SEED], &r->seed);
    scale_valid(r->job[JOB_SCALE], &r->scale_c);
    for (int m = 0; m < N_METRICS; m++) {
        r->value[m] = NAN;
        if (!r->metric[m][0]) continue;
        const char *should_be = metric_parse(m, r->metric[m], &r->value[m]);
        if (should_be)
            die(EXIT_USER, "%s, column %d (%s): \"%s\" is not %s", where, metric_column(m), metric_name(m), r->metric[m], should_be);
    }
    /* the loss threshold is crossed within the run's steps, or never (-1) */
    double crossed = r->value[M_STEPS_TO_THRESHOLD], steps = r->value[M_STEPS];
    if (crossed > steps)
        die(EXIT_USER, "%s, column %d (%s): \"%s\" is more than the run's %s=%s", where, metric_column(M_STEPS_TO_THRESHOLD),
            metric_name(M_STEPS_TO_THRESHOLD), r->metric[M_STEPS_TO_THRESHOLD], metric_name(M_STEPS), r->metric[M_STEPS]);
    /* the test accuracy is a number when there was a test set, and nan when there was none */
    double examples = r->value[M_TEST_EXAMPLES], acc = r->value[M_TEST_ACC];
    if (r->done && (examples > 0) == isnan(acc))
        die(EXIT_USER, "%s, column %d (%s): \"%s\" with %s=%s: %s", where, metric_column(M_TEST_ACC), metric_name(M_TEST_ACC),
            r->metric[M_TEST_ACC], metric_name(M_TEST_EXAMPLES), r->metric[M_TEST_EXAMPLES],
            examples > 0 ? "a test set gives a number" : "without a test set it is nan");
}

/* The strings a row owns. */
static void free_row(Row *r)
{
    for (int c = 0; c < N_JOB_COLS; c++) mem_free(r->job[c]);
    for (int m = 0; m < N_METRICS; m++) mem_free(r->metric[m]);
}

void free_rows(Row *rows, int n_rows)
{
    for (int i = 0; i < n_rows; i++) free_row(&rows[i]);
    mem_free(rows);
}

/* The arrays of one curve. */
static void free_curve(Curve *c)
{
    mem_free(c->id);
    mem_free(c->step);
    mem_free(c->score_std);
    mem_free(c->qgrad_median);
    mem_free(c->loss);
}

void free_curves(Curve *curves, int n_curves)
{
    for (int i = 0; i < n_curves; i++) free_curve(&curves[i]);
    mem_free(curves);
}

/* ------------------------------------------------------------------ jobs.tsv */

typedef struct Job {
    char *f[N_JOB_COLS];
    int folder, line;
} Job;

static Job *g_jobs;
static int g_n_jobs, g_cap_jobs;

static void read_jobs(const char *folder, int folder_index)
{
    char path[4096];
    out_path(path, sizeof path, folder, "jobs.tsv");
    size_t size, pos, next;
    char *text = read_text(path, &size, MUST_EXIST);
    pos = text_bom(text, size);
    int lineno = 0, before = g_n_jobs;
    if (size > 0 && text[size - 1] != '\n' && text[size - 1] != '\r')
        die(EXIT_USER, "%s: the last line has no line end: the file is cut short", path);
    for (; pos < size; pos = next) {
        size_t len = text_line(text, size, pos, &next);
        char *line = xstrndup(text + pos, len);
        lineno++;
        char where[4200];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (lineno == 1) {
            char header[256] = "";
            for (int c = 0; c < N_JOB_COLS; c++) {
                strcat(header, g_job_cols[c]);
                if (c + 1 < N_JOB_COLS) strcat(header, "\t");
            }
            if (strcmp(line, header)) die(EXIT_USER, "%s: the header is not the tab-separated columns: id stage task optim scale dk lr seed variant command", where);
            mem_free(line);
            continue;
        }
        if (!*line) { /* a blank line */
            mem_free(line);
            continue;
        }
        g_jobs = mem_grow_array(g_jobs, g_n_jobs, &g_cap_jobs, sizeof(Job), 256);
        Job *j = &g_jobs[g_n_jobs];
        char *p = line;
        for (int c = 0; c < N_JOB_COLS; c++) {
            char *tab = c + 1 < N_JOB_COLS ? strchr(p, '\t') : NULL;
            if (c + 1 < N_JOB_COLS && !tab) die(EXIT_USER, "%s: %d tab-separated fields, expected %d", where, c + 1, N_JOB_COLS);
            size_t n = tab ? (size_t)(tab - p) : strlen(p);
            j->f[c] = xstrndup(p, n);
            p += n + 1;
        }
        if (strchr(j->f[JOB_COMMAND], '\t')) die(EXIT_USER, "%s: more than %d tab-separated fields", where, N_JOB_COLS);
        check_job(j->f, where);
        j->folder = folder_index;
        j->line = lineno;
        g_n_jobs++;
        mem_free(line);
    }
    mem_free(text);
    if (lineno == 0) die(EXIT_USER, "%s: empty (no header)", path);
    if (g_n_jobs == before) die(EXIT_USER, "%s: plans no run", path);
}

static int cmp_job(const void *x, const void *y)
{
    const Job *a = x, *b = y;
    int c = strcmp(a->f[JOB_ID], b->f[JOB_ID]);
    return c ? c : a->folder - b->folder;
}

/* ------------------------------------------------------------------ summary lines */

typedef struct Summary {
    char *text[N_SUMMARY_FIELDS]; /* the fields' values as written ("nan" for any NaN); NULL: absent */
    char *rest;                   /* the whole line without time_s, to compare two copies */
    double steps;
    double vocab;                 /* "vocabulary N" of the "task ..." line; NAN when there is none */
} Summary;

static void free_summary(Summary *s)
{
    for (int f = 0; f < N_SUMMARY_FIELDS; f++) mem_free(s->text[f]);
    mem_free(s->rest);
}

/* The vocabulary size in the first line of a run's output, "task sort: ..., vocabulary 20";
 * NAN when it says none. */
static double vocabulary_of(const char *text, size_t size)
{
    const char *first_end = memchr(text, '\n', size);
    const char *voc = strstr(text, ", vocabulary ");
    if (strncmp(text, "task ", 5) || !voc || (first_end && voc > first_end)) return NAN;
    char *end;
    long v = strtol(voc + 13, &end, 10);
    return end != voc + 13 && v > 0 ? (double)v : NAN;
}

/* The fields of a summary line (its text after "summary:") into s, by the table of
 * run/log_columns.h; fields it does not know (a newer ./train's) are kept in s->rest. */
static void parse_summary_fields(const char *path, char *fields, size_t len, Summary *s)
{
    s->rest = mem_alloc(len + 1);
    s->rest[0] = 0;
    char *save = NULL;
    for (char *tok = strtok_r(fields, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) die(EXIT_USER, "%s: summary field \"%s\" is not key=value", path, tok);
        *eq = 0;
        const char *key = tok, *value = eq + 1;
        if (strcmp(key, g_summary_fields[SUMMARY_TIME_S].name)) {
            if (s->rest[0]) strcat(s->rest, " ");
            strcat(s->rest, key);
            strcat(s->rest, "=");
            strcat(s->rest, value);
        }
        for (int f = 0; f < N_SUMMARY_FIELDS; f++) {
            if (strcmp(key, g_summary_fields[f].name)) continue;
            double v;
            LogRange range = g_summary_fields[f].range;
            if (!parse_number(value, &v, NAN_AND_INF_TOO)) die(EXIT_USER, "%s: summary field %s=%s is not a number", path, key, value);
            if (!log_range_holds(range, v)) die(EXIT_USER, "%s: summary field %s=%s is not %s", path, key, value, log_range_text(range));
            if (s->text[f]) die(EXIT_USER, "%s: summary field %s given twice", path, key);
            s->text[f] = xstrdup(isnan(v) ? "nan" : value);
            if (f == SUMMARY_STEPS) s->steps = v;
        }
    }
}

/* Reads the last "summary:" line of a run's console output. False when the file does not
 * exist (the run did not finish); dies when it exists but holds no whole summary line. */
static bool read_summary(const char *path, Summary *s)
{
    size_t size, pos, next, prefix = strlen(SUMMARY_PREFIX);
    char *text = read_text(path, &size, MAY_BE_ABSENT);
    if (!text) return false;
    const char *line = NULL;
    size_t line_len = 0;
    bool line_ended = false;
    for (pos = 0; pos < size; pos = next) {
        size_t len = text_line(text, size, pos, &next);
        if (len >= prefix && !strncmp(text + pos, SUMMARY_PREFIX, prefix)) {
            line = text + pos;
            line_len = len;
            line_ended = next > pos + len;
        }
    }
    if (!line) die(EXIT_USER, "%s: no summary line: not the output of a finished ./train run", path);
    if (!line_ended) die(EXIT_USER, "%s: the summary line has no line end: the file is cut short", path);
    memset(s, 0, sizeof *s);
    s->vocab = vocabulary_of(text, size);
    char *fields = xstrndup(line + prefix, line_len - prefix);
    parse_summary_fields(path, fields, line_len, s);
    mem_free(fields);
    mem_free(text);
    /* a run without a test set leaves the test set's fields out: no test examples, no test numbers */
    int test_given = 0;
    for (int f = 0; f < N_SUMMARY_FIELDS; f++) test_given += g_summary_fields[f].present == LOG_WITH_TEST_SET && s->text[f];
    for (int f = 0; test_given == 0 && f < N_SUMMARY_FIELDS; f++)
        if (g_summary_fields[f].present == LOG_WITH_TEST_SET)
            s->text[f] = xstrdup(g_summary_fields[f].type == LOG_COUNT ? "0" : "nan");
    for (int m = 0; m < N_METRICS; m++)
        if (g_metrics[m].from == FROM_SUMMARY && !s->text[g_metrics[m].source])
            die(EXIT_USER, "%s: the summary line has no %s= field: cut short, or made by an older ./train", path, metric_name(m));
    return true;
}

/* ------------------------------------------------------------------ CSV logs */

/* Reads a run's CSV log (see report_log.h); its last row must be the run's last step (steps,
 * from its summary line). Sets the log metrics of r and fills the curve. */
static void read_log(const char *path, double steps, Row *r, Curve *curve)
{
    LogTable t;
    log_table_read(&t, path, g_metric_multiplier);
    int last = t.rows - 1;
    double last_step = log_table_mean(&t, LOG_STEP, last);
    if (last_step != steps) die(EXIT_USER, "%s: its last row is step %.0f but the run did %.0f steps: the log is incomplete", path, last_step, steps);
    for (int m = 0; m < N_METRICS; m++) {
        if (g_metrics[m].from == FROM_SUMMARY) continue;
        char buf[64] = ""; /* "": the log has no such column (scale_x_sqrt_dk: a learned s only) */
        if (t.layers[g_metrics[m].source])
            format_number(buf, sizeof buf, log_table_mean(&t, g_metrics[m].source, g_metrics[m].from == FROM_FIRST_ROW ? 0 : last));
        mem_free(r->metric[m]);
        r->metric[m] = xstrdup(buf);
    }
    curve->id = xstrdup(r->job[JOB_ID]);
    curve->n = t.rows;
    curve->step = mem_alloc(sizeof(double) * (size_t)t.rows);
    curve->score_std = mem_alloc(sizeof(double) * (size_t)t.rows);
    curve->qgrad_median = mem_alloc(sizeof(double) * (size_t)t.rows);
    curve->loss = mem_alloc(sizeof(double) * (size_t)t.rows);
    curve->vocab = NAN;
    for (int i = 0; i < t.rows; i++) {
        curve->step[i] = log_table_mean(&t, LOG_STEP, i);
        curve->loss[i] = log_table_mean(&t, LOG_LOSS, i);
        curve->score_std[i] = log_table_mean(&t, LOG_SCORE_STD, i);
        curve->qgrad_median[i] = log_table_mean(&t, LOG_QGRAD_MEDIAN, i);
    }
    log_table_free(&t);
}

/* ------------------------------------------------------------------ merging folders */

/* Jobs a .. b-1 share an id: each must come from another folder and plan the same run. */
static void check_same_plan(const char *const *folders, int a, int b)
{
    const Job *first = &g_jobs[a];
    const char *id = first->f[JOB_ID];
    for (int k = a + 1; k < b; k++) {
        const Job *j = &g_jobs[k];
        if (j->folder == first->folder)
            die(EXIT_USER, "%s/jobs.tsv lines %d and %d both plan the run %s", folders[j->folder], first->line, j->line, id);
        for (int c = 0; c < N_JOB_COLS; c++)
            if (strcmp(j->f[c], first->f[c]))
                die(EXIT_USER, "run %s is planned differently in %s/jobs.tsv:%d and %s/jobs.tsv:%d (its %s: \"%s\" vs \"%s\")", id,
                    folders[first->folder], first->line, folders[j->folder], j->line, g_job_cols[c], first->f[c], j->f[c]);
    }
}

/* A log read only to be checked. */
static void check_log(const char *path, double steps, const Row *r)
{
    Row scratch = *r;
    Curve curve;
    for (int m = 0; m < N_METRICS; m++) scratch.metric[m] = xstrdup("");
    read_log(path, steps, &scratch, &curve);
    for (int m = 0; m < N_METRICS; m++) mem_free(scratch.metric[m]);
    free_curve(&curve);
}

/* The results of run r, planned by jobs a .. b-1 (one per folder): the summary of the first
 * folder where it finished (where it finished again, it must have given the same numbers),
 * and the metrics and curve of the first log (every other log is checked whole, then
 * dropped). Returns whether it has a log, in *curve. */
static bool merge_results(const char *const *folders, int a, int b, Row *r, Curve *curve)
{
    const char *id = r->job[JOB_ID];
    Summary used = {0};
    char used_path[4200] = "";
    bool have_log = false;
    for (int k = a; k < b; k++) {
        const char *folder = folders[g_jobs[k].folder];
        char out[4200], log[4200];
        snprintf(out, sizeof out, "%s/runs/%s.out", folder, id);
        snprintf(log, sizeof log, "%s/runs/%s.csv", folder, id);
        Summary s;
        if (!read_summary(out, &s)) continue;
        if (!r->done) {
            used = s;
            snprintf(used_path, sizeof used_path, "%s", out);
            r->done = true;
            for (int m = 0; m < N_METRICS; m++) {
                if (g_metrics[m].from != FROM_SUMMARY) continue;
                mem_free(r->metric[m]);
                r->metric[m] = xstrdup(s.text[g_metrics[m].source]);
            }
        } else {
            if (strcmp(s.rest, used.rest))
                die(EXIT_USER, "run %s finished with different results in %s and %s (summary lines differ beyond time_s)", id, used_path, out);
            free_summary(&s);
        }
        struct stat st;
        if (stat(log, &st) != 0 && errno == ENOENT) continue;
        if (have_log) {
            check_log(log, used.steps, r);
            continue;
        }
        read_log(log, used.steps, r, curve);
        curve->vocab = used.vocab;
        have_log = true;
    }
    if (r->done) free_summary(&used);
    return have_log;
}

static void free_jobs(void)
{
    for (int i = 0; i < g_n_jobs; i++)
        for (int c = 0; c < N_JOB_COLS; c++) mem_free(g_jobs[i].f[c]);
    mem_free(g_jobs);
    g_jobs = NULL;
    g_n_jobs = g_cap_jobs = 0;
}

void load_folders(const char *const *folders, int n_folders, Row **rows_out, int *n_rows_out, Curve **curves_out,
                  int *n_curves_out)
{
    for (int i = 0; i < n_folders; i++) read_jobs(folders[i], i);
    qsort(g_jobs, (size_t)g_n_jobs, sizeof(Job), cmp_job);
    Row *rows = mem_alloc(sizeof(Row) * (size_t)g_n_jobs);
    Curve *curves = mem_alloc(sizeof(Curve) * (size_t)g_n_jobs);
    int n_rows = 0, n_curves = 0;
    for (int a = 0, b; a < g_n_jobs; a = b) {
        b = a + 1; /* jobs a .. b-1 share an id */
        while (b < g_n_jobs && !strcmp(g_jobs[b].f[JOB_ID], g_jobs[a].f[JOB_ID])) b++;
        check_same_plan(folders, a, b);
        Row *r = &rows[n_rows++];
        memset(r, 0, sizeof *r);
        for (int c = 0; c < N_JOB_COLS; c++) r->job[c] = xstrdup(g_jobs[a].f[c]);
        for (int m = 0; m < N_METRICS; m++) r->metric[m] = xstrdup("");
        n_curves += merge_results(folders, a, b, r, &curves[n_curves]);
        char where[4200];
        snprintf(where, sizeof where, "run %s", r->job[JOB_ID]);
        parse_row(r, where);
    }
    free_jobs();
    *rows_out = rows;
    *n_rows_out = n_rows;
    *curves_out = curves;
    *n_curves_out = n_curves;
}

/* ------------------------------------------------------------------ runs.csv */

/* A CSV field, quoted (with "" for a quote) when it holds a comma or a quote, or always. */
typedef enum CsvQuote { QUOTE_WHEN_NEEDED, QUOTE_ALWAYS } CsvQuote;
static void put_field(FILE *f, const char *s, CsvQuote how)
{
    bool quote = how == QUOTE_ALWAYS || strpbrk(s, ",\"") != NULL;
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The header of runs.csv. */
static void put_header(char *buf, size_t n)
{
    buf[0] = 0;
    for (int c = 0; c < JOB_COMMAND; c++) {
        strncat(buf, g_job_cols[c], n - strlen(buf) - 1);
        strncat(buf, ",", n - strlen(buf) - 1);
    }
    strncat(buf, "status,", n - strlen(buf) - 1);
    for (int m = 0; m < N_METRICS; m++) {
        strncat(buf, metric_name(m), n - strlen(buf) - 1);
        strncat(buf, ",", n - strlen(buf) - 1);
    }
    strncat(buf, "command", n - strlen(buf) - 1);
}

void write_runs_csv(const char *path, const Row *rows, int n_rows)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    OutFile o;
    FILE *f = out_open(&o, dir, slash ? slash + 1 : path);
    char header[1024];
    put_header(header, sizeof header);
    fprintf(f, "%s\n", header);
    for (int i = 0; i < n_rows; i++) {
        const Row *r = &rows[i];
        for (int c = 0; c < JOB_COMMAND; c++) {
            put_field(f, r->job[c], QUOTE_WHEN_NEEDED);
            fputc(',', f);
        }
        fputs(r->done ? "done," : "missing,", f);
        for (int m = 0; m < N_METRICS; m++) {
            put_field(f, r->metric[m], QUOTE_WHEN_NEEDED);
            fputc(',', f);
        }
        put_field(f, r->job[JOB_COMMAND], QUOTE_ALWAYS);
        fputc('\n', f);
    }
    out_close(&o);
}

/* Splits a CSV line into at most max fields (quotes as put_field writes them); returns the
 * count. Fields are new strings; scratch: room for the line. */
static int split_csv(const char *line, char *scratch, char **out, int max, const char *where)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        size_t len = 0;
        if (*p == '"') {
            for (p++;; p++) {
                if (!*p) /* every line of runs.csv ends in a line end: the quote runs past it */
                    die(EXIT_USER, "%s, column %d: the quoted field is not closed on its line: a line break inside a field, or a "
                        "closing quote missing (runs.csv holds one run per line)", where, n + 1);
                if (*p == '"' && p[1] == '"') {
                    scratch[len++] = '"';
                    p++;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    scratch[len++] = *p;
                }
            }
            if (*p && *p != ',') die(EXIT_USER, "%s: text after a quoted field", where);
        } else {
            len = strcspn(p, ",\"");
            if (p[len] == '"') die(EXIT_USER, "%s: a quote inside an unquoted field", where);
            memcpy(scratch, p, len);
            p += len;
        }
        if (n == max) die(EXIT_USER, "%s: more than %d fields", where, max);
        out[n++] = xstrndup(scratch, len);
        if (!*p) return n;
        p++; /* the comma */
    }
}

static int cmp_string(const void *x, const void *y) { return strcmp(*(const char *const *)x, *(const char *const *)y); }

static bool same_cell_and_seed(const Row *a, const Row *b)
{
    CellKey ka = row_key(a), kb = row_key(b);
    return a->seed == b->seed && cell_key_compare(&ka, &kb, CELL_KEYS) == 0;
}

/* The same outcome: done or missing alike, and every number the same text (the time aside). */
static bool same_results(const Row *a, const Row *b)
{
    if (a->done != b->done) return false;
    for (int m = 0; m < N_METRICS; m++)
        if (m != M_TIME_S && strcmp(a->metric[m], b->metric[m])) return false;
    return true;
}

/* Each (cell, seed) once: the same run listed under two ids (a merge that took a shard twice)
 * would count twice in every test and every mean. Identical results are kept once (the first id),
 * with a note; different results for one cell and seed are refused, naming both runs. */
static void drop_repeated_runs(const char *path, Row *rows, int *n_rows)
{
    int n = *n_rows, dropped = 0;
    const Row **order = mem_alloc(sizeof(Row *) * (size_t)n);
    bool *drop = mem_alloc(sizeof(bool) * (size_t)n); /* zeroed */
    for (int i = 0; i < n; i++) order[i] = &rows[i];
    qsort(order, (size_t)n, sizeof(Row *), cells_row_order);
    const Row *kept_eg = NULL, *dropped_eg = NULL;
    for (int i = 1, k = 0; i < n; i++) {
        if (!same_cell_and_seed(order[k], order[i])) {
            k = i;
            continue;
        }
        if (!same_results(order[k], order[i]))
            die(EXIT_USER, "%s: the runs %s and %s are one cell with one seed (%ld) but differ in their results; a run listed "
                           "twice under two ids? Keep one of them", path, order[k]->job[JOB_ID], order[i]->job[JOB_ID], order[i]->seed);
        drop[order[i] - rows] = true;
        if (!dropped++) {
            kept_eg = order[k];
            dropped_eg = order[i];
        }
    }
    if (dropped)
        fprintf(stderr, "note: %s: %d run%s repeat%s another of the same cell and seed with the same results: counted once (%s, kept, = %s%s)\n",
                path, dropped, dropped == 1 ? "" : "s", dropped == 1 ? "s" : "", kept_eg->job[JOB_ID], dropped_eg->job[JOB_ID],
                dropped > 1 ? ", ..." : "");
    int w = 0;
    for (int i = 0; i < n; i++) {
        if (drop[i]) free_row(&rows[i]);
        else rows[w++] = rows[i];
    }
    mem_free(order);
    mem_free(drop);
    *n_rows = w;
}

void read_runs_csv(const char *path, Row **rows_out, int *n_rows_out)
{
    enum { N_FIELDS = JOB_COMMAND + 1 + N_METRICS + 1 };
    size_t size, pos, next;
    char *text = read_text(path, &size, MUST_EXIST);
    if (size > 0 && text[size - 1] != '\n' && text[size - 1] != '\r')
        die(EXIT_USER, "%s: the last line has no line end: the file is cut short", path);
    pos = text_bom(text, size);
    char header[1024];
    put_header(header, sizeof header);
    size_t len = text_line(text, size, pos, &next);
    if (len != strlen(header) || memcmp(text + pos, header, len))
        die(EXIT_USER, "%s:1: not a runs.csv of ./report (expected the header %s)", path, header);
    Row *rows = NULL;
    int n_rows = 0, cap = 0, lineno = 1;
    for (pos = next; pos < size; pos = next) {
        len = text_line(text, size, pos, &next);
        lineno++;
        char where[4200];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        if (len == 0) continue;
        char *line = xstrndup(text + pos, len), *scratch = mem_alloc(len + 1);
        char *f[N_FIELDS];
        int n = split_csv(line, scratch, f, N_FIELDS, where);
        mem_free(line);
        mem_free(scratch);
        if (n != N_FIELDS) die(EXIT_USER, "%s: %d fields, expected %d", where, n, N_FIELDS);
        rows = mem_grow_array(rows, n_rows, &cap, sizeof(Row), 256);
        Row *r = &rows[n_rows++];
        memset(r, 0, sizeof *r);
        for (int c = 0; c < JOB_COMMAND; c++) r->job[c] = f[c];
        const char *status = f[JOB_COMMAND];
        if (strcmp(status, "done") && strcmp(status, "missing")) die(EXIT_USER, "%s: status \"%s\": expected done or missing", where, status);
        r->done = !strcmp(status, "done");
        mem_free(f[JOB_COMMAND]);
        for (int m = 0; m < N_METRICS; m++) r->metric[m] = f[JOB_COMMAND + 1 + m];
        r->job[JOB_COMMAND] = f[N_FIELDS - 1];
        parse_row(r, where);
        for (int m = 0; m < N_METRICS; m++) {
            if (r->done && g_metrics[m].from == FROM_SUMMARY && !r->metric[m][0]) die(EXIT_USER, "%s: a done run without %s", where, metric_name(m));
            if (!r->done && r->metric[m][0]) die(EXIT_USER, "%s: a missing run with a %s", where, metric_name(m));
        }
    }
    mem_free(text);
    if (n_rows == 0) die(EXIT_USER, "%s: lists no run", path);
    /* each id once: sorted, equal ids are neighbours */
    const char **ids = mem_alloc(sizeof(char *) * (size_t)n_rows);
    for (int i = 0; i < n_rows; i++) ids[i] = rows[i].job[JOB_ID];
    qsort(ids, (size_t)n_rows, sizeof(char *), cmp_string);
    for (int i = 1; i < n_rows; i++)
        if (!strcmp(ids[i - 1], ids[i])) die(EXIT_USER, "%s: the run %s is listed twice", path, ids[i]);
    mem_free(ids);
    drop_repeated_runs(path, rows, &n_rows);
    *rows_out = rows;
    *n_rows_out = n_rows;
}

/* ------------------------------------------------------------------ a runs.csv and folders, merged */

static int cmp_row_id(const void *x, const void *y) { return strcmp(((const Row *)x)->job[JOB_ID], ((const Row *)y)->job[JOB_ID]); }

void merge_rows(Row *a, int na, Row *b, int nb, Row **out, int *n_out)
{
    qsort(a, (size_t)na, sizeof(Row), cmp_row_id);
    qsort(b, (size_t)nb, sizeof(Row), cmp_row_id);
    Row *rows = mem_alloc(sizeof(Row) * (size_t)(na + nb + 1));
    int n = 0, i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].job[JOB_ID], b[j].job[JOB_ID]);
        if (c < 0) {
            rows[n++] = a[i++];
        } else if (c > 0) {
            rows[n++] = b[j++];
        } else { /* one run in both: planned alike (its command may name another folder for its log); done in both,
                  * with the same results */
            Row *x = &a[i++], *y = &b[j++];
            for (int k = 0; k < JOB_COMMAND; k++)
                if (strcmp(x->job[k], y->job[k]))
                    die(EXIT_USER, "run %s is planned differently in the runs.csv and the folders (its %s: \"%s\" vs \"%s\")",
                        x->job[JOB_ID], g_job_cols[k], x->job[k], y->job[k]);
            if (x->done && y->done && !same_results(x, y)) /* the time aside */
                die(EXIT_USER, "run %s is done in the runs.csv and in the folders with other results", x->job[JOB_ID]);
            Row *keep = x->done || !y->done ? x : y;
            rows[n++] = *keep;
            free_row(keep == x ? y : x);
        }
    }
    mem_free(a);
    mem_free(b);
    *out = rows;
    *n_out = n;
}
