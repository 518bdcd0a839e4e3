/* report_log.c - see report_log.h. */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "report_log.h"

#include "report_common.h"
#include "../../tensor/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The column id and layer of a header name ("loss": layer -1; "l3_score_std": layer 3; the
 * learned multiplier's "l3_<multiplier>" as LOG_MULTIPLIER); false for a name of no column of the
 * table (a newer ./train's, or another multiplier's: kept but not read). */
static bool column_of_name(const char *name, const char *multiplier, LogColumnId *id, int *layer)
{
    int l = -1;
    const char *rest = name;
    if (name[0] == 'l' && name[1] >= '0' && name[1] <= '9' && (name[1] != '0' || name[2] == '_')) { /* no "l01_" */
        char *end;
        long v = strtol(name + 1, &end, 10);
        if (*end == '_' && v < LOG_MAX_LAYERS) {
            l = (int)v;
            rest = end + 1;
        }
    }
    for (int c = 0; c < N_LOG_COLUMNS; c++) {
        const char *pattern = g_log_columns[c].name;
        bool per_layer = log_column_per_layer(c);
        if (c == LOG_MULTIPLIER) pattern = multiplier ? multiplier : "";
        else if (per_layer) pattern += 4; /* "l%d_" */
        if (per_layer != (l >= 0) || !pattern[0] || strcmp(pattern, rest)) continue;
        *id = c;
        *layer = l;
        return true;
    }
    return false;
}

/* The header's names: what each column is (id[k] = -1: a column of no table row) and the places
 * of the table's columns, each column id's layers 0, 1, .. up to the first one missing (a name
 * given twice: its first place). */
static void find_columns(LogTable *t, char **names, const char *multiplier, int *id)
{
    static int place[N_LOG_COLUMNS][LOG_MAX_LAYERS];
    for (int c = 0; c < N_LOG_COLUMNS; c++)
        for (int l = 0; l < LOG_MAX_LAYERS; l++) place[c][l] = -1;
    for (int k = t->cols - 1; k >= 0; k--) { /* backwards: the first of equal names stays */
        LogColumnId c;
        int layer;
        id[k] = -1;
        if (!column_of_name(names[k], multiplier, &c, &layer)) continue;
        id[k] = (int)c;
        place[c][layer < 0 ? 0 : layer] = k;
    }
    for (int c = 0; c < N_LOG_COLUMNS; c++) {
        int n = 0;
        while (n < LOG_MAX_LAYERS && place[c][n] >= 0) n++;
        t->layers[c] = n;
        t->col[c] = n ? mem_alloc(sizeof(int) * (size_t)n) : NULL;
        for (int l = 0; l < n; l++) t->col[c][l] = place[c][l];
    }
}

/* Where a row is read from, for its messages: the file, the line, the header's names and what
 * each column is. */
typedef struct RowSource {
    const char *path;
    int lineno;
    char **names;
    const int *id;
} RowSource;

/* One field's text: a number (NAN when empty) in the range of its column. */
static double read_field(const char *cell, size_t n, int c, const RowSource *src)
{
    double v = NAN;
    if (n == 0) return v;
    if (!parse_number(cell, &v, NAN_AND_INF_TOO))
        die(EXIT_USER, "%s:%d: field %d (%s) is not a number: \"%s\"", src->path, src->lineno, c + 1, src->names[c], cell);
    LogRange range = src->id[c] < 0 ? RANGE_ANY : g_log_columns[src->id[c]].range;
    if (!log_range_holds(range, v))
        die(EXIT_USER, "%s:%d: field %d (%s) \"%s\" is not %s", src->path, src->lineno, c + 1, src->names[c], cell, log_range_text(range));
    return v;
}

/* One row's fields into row[0 .. cols). */
static void read_row(const char *line, size_t len, double *row, int cols, const RowSource *src)
{
    const char *p = line, *end_of_line = line + len;
    for (int c = 0; c < cols; c++) {
        const char *comma = memchr(p, ',', (size_t)(end_of_line - p));
        const char *end = comma && c + 1 < cols ? comma : end_of_line;
        if (c + 1 < cols && !comma) die(EXIT_USER, "%s:%d: the row has fewer fields than the header's %d", src->path, src->lineno, cols);
        if (c + 1 == cols && comma) die(EXIT_USER, "%s:%d: the row has more fields than the header's %d", src->path, src->lineno, cols);
        char cell[64];
        size_t n = (size_t)(end - p);
        if (n >= sizeof cell) die(EXIT_USER, "%s:%d: field %d (%s) is not a number", src->path, src->lineno, c + 1, src->names[c]);
        memcpy(cell, p, n);
        cell[n] = 0;
        row[c] = read_field(cell, n, c, src);
        p = end + 1;
    }
}

void log_table_read(LogTable *t, const char *path, const char *multiplier)
{
    memset(t, 0, sizeof *t);
    size_t size, pos, next, len;
    char *text = read_text(path, &size, MUST_EXIST);
    int lineno = 1;
    for (pos = text_bom(text, size); (len = text_line(text, size, pos, &next)) > 0 && text[pos] == LOG_COMMENT[0]; pos = next) {
        size_t mark = strlen(LOG_COMMENT) + (len > strlen(LOG_COMMENT) && text[pos + strlen(LOG_COMMENT)] == ' ');
        if (!t->command) t->command = xstrndup(text + pos + mark, len - mark);
        lineno++;
    }
    if (len == 0) die(EXIT_USER, "%s:%d: empty: no header", path, lineno);
    char *header = xstrndup(text + pos, len);
    char **names = NULL;
    char *save = NULL;
    for (char *tok = strtok_r(header, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        names = mem_grow(names, sizeof(char *) * (size_t)t->cols, sizeof(char *) * (size_t)(t->cols + 1));
        names[t->cols++] = tok;
    }
    if (t->cols == 0 || strcmp(names[0], g_log_columns[LOG_STEP].name))
        die(EXIT_USER, "%s:%d: not a log of ./train (no step column first)%s", path, lineno,
            t->cols && !strcmp(names[0], "id") ? "; a runs.csv of ./report is read with --runs" : "");
    int *id = mem_alloc(sizeof(int) * (size_t)t->cols);
    find_columns(t, names, multiplier, id);
    RowSource src = {path, lineno, names, id};
    int cap = 0;
    for (pos = next; pos < size; pos = next) {
        len = text_line(text, size, pos, &next);
        src.lineno++;
        if (next == pos + len) die(EXIT_USER, "%s:%d: the last row is cut short (no line end): the log is incomplete", path, src.lineno);
        t->value = mem_grow_array(t->value, t->rows, &cap, sizeof(double) * (size_t)t->cols, 64);
        read_row(text + pos, len, t->value + (size_t)t->rows * (size_t)t->cols, t->cols, &src);
        t->rows++;
    }
    if (t->rows == 0) die(EXIT_USER, "%s: no rows", path);
    mem_free(id);
    mem_free(names);
    mem_free(header);
    mem_free(text);
}

void log_table_require_whole(const LogTable *t, const char *path)
{
    for (int c = 0; c < N_LOG_COLUMNS; c++)
        if (g_log_columns[c].present == LOG_ALWAYS && t->layers[c] == 0) {
            char name[64];
            log_column_name(name, sizeof name, (LogColumnId)c, 0, NULL);
            die(EXIT_USER, "%s: not a whole log of ./train: no column %s", path, name);
        }
}

void log_table_free(LogTable *t)
{
    mem_free(t->command);
    mem_free(t->value);
    for (int c = 0; c < N_LOG_COLUMNS; c++) mem_free(t->col[c]);
    memset(t, 0, sizeof *t);
}

double log_table_mean(const LogTable *t, LogColumnId c, int i)
{
    int n = t->layers[c];
    if (n == 0) return NAN;
    const double *row = t->value + (size_t)i * (size_t)t->cols;
    double s = 0;
    for (int l = 0; l < n; l++) s += row[t->col[c][l]];
    return s / n;
}
