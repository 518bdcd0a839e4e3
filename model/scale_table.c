/* scale_table.c - the scales the project names, one row each (scale_table.h), and what is read
 * from the rows: a scale found by its name, its s at dk, its label, ./train's flags for it, and
 * --scale's and --scale-init's names. s itself is computed by attn_scale.c: attention_scale. */
#include "scale_table.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rows, in the order tables and plots list them. Each fixed s is attn_scale.c's
 * attention_scale of the row's mode; a learned s starts at its `init` row's s. */
const ScaleRow g_scale_rows[] = {
    {.name = "1", .mode = SCALE_ONE, .divisor = {"1", "1", "1"},
     .help = "raw q.k: std sqrt(dk) when q, k entries have unit variance (--qk-init=unit)",
     .style = {{"#d62728"}, NULL, "circle", false}},
    {.name = "sqrt", .mode = SCALE_SQRT, .divisor = {"√dₖ", "√dk", "sqrt(dk)"},
     .help = "s = 1/sqrt(dk): score std 1 at init with --qk-init=unit (less with Xavier)",
     .style = {{"#1f77b4"}, NULL, "square", false}},
    {.name = "dk", .mode = SCALE_DK, .divisor = {"dₖ", "dk", "dk"}, .help = "s = 1/dk",
     .style = {{"#2ca02c"}, "7,3", "triangle", false}},
    {.name = "<c>", .mode = SCALE_CONST, .help = "s = 1/c", /* the k-th constant drawn: the k-th colour */
     .style = {{"#ff7f0e", "#8c564b", "#e377c2", "#bcbd22"}, "2,2", "diamond", false}},
    {.name = "learned-sqrt", .mode = SCALE_LEARNED, .init = SCALE_SQRT, .style = {{"#9467bd"}, "8,3,2,3", "cross", false}},
    {.name = "learned-1", .mode = SCALE_LEARNED, .init = SCALE_ONE, .style = {{"#7f7f7f"}, "3,3", "plus", false}},
    {.name = "none", .no_scale = true, .style = {{"#17becf"}, "1,3", "circle", true}}, /* cosine, additive */
};
const int g_n_scale_rows = (int)(sizeof g_scale_rows / sizeof g_scale_rows[0]);
const char *const g_scale_rule = "sqrt";

/* A plain decimal number c > 0 as a scale's name (the "<c>" row): no sign, spaces, hex or inf. */
static bool scale_constant(const char *name, double *c)
{
    bool digit_first = isdigit((unsigned char)name[0]) || (name[0] == '.' && isdigit((unsigned char)name[1]));
    if (!digit_first || strpbrk(name, "xX")) return false;
    char *end;
    double v = strtod(name, &end);
    if (*end || !isfinite(v) || !(v > 0)) return false;
    *c = v;
    return true;
}

const ScaleRow *scale_row_find(const char *name, double *c)
{
    *c = NAN;
    for (int i = 0; i < g_n_scale_rows; i++)
        if (!strcmp(g_scale_rows[i].name, name)) return &g_scale_rows[i]; /* "<c>" itself too */
    for (int i = 0; i < g_n_scale_rows; i++)
        if (g_scale_rows[i].mode == SCALE_CONST && scale_constant(name, c)) return &g_scale_rows[i];
    *c = NAN;
    return NULL;
}

/* The row of a fixed mode (1, sqrt, dk): where a learned s starts is one of these. */
static const ScaleRow *fixed_row(ScaleMode mode)
{
    for (int i = 0; i < g_n_scale_rows; i++) {
        const ScaleRow *r = &g_scale_rows[i];
        if (!r->no_scale && r->mode == mode && r->divisor[0]) return r;
    }
    return NULL;
}

double scale_row_s(const ScaleRow *r, double c, int dk)
{
    if (r->no_scale) return NAN;
    return r->mode == SCALE_LEARNED ? attention_scale(r->init, c, dk) : attention_scale(r->mode, c, dk);
}

const char *scale_write_divisor(const char *name, ScaleScript script, char *buf, size_t n)
{
    double c;
    const ScaleRow *r = scale_row_find(name, &c);
    assert(r && !r->no_scale && r->mode != SCALE_LEARNED && script < SCALE_SCRIPTS);
    snprintf(buf, n, "%s", r->mode == SCALE_CONST ? name : r->divisor[script]);
    return buf;
}

const char *scale_write_label(const char *name, ScaleScript script, char *buf, size_t n)
{
    double c;
    const ScaleRow *r = scale_row_find(name, &c);
    assert(r);
    if (r->no_scale) {
        snprintf(buf, n, "%s", r->name);
        return buf;
    }
    const char *fixed = r->mode == SCALE_LEARNED ? fixed_row(r->init)->name : name;
    char d[32];
    scale_write_divisor(fixed, script, d, sizeof d);
    snprintf(buf, n, "%s%s%s", r->mode == SCALE_LEARNED ? "learned from " : "", strcmp(d, "1") ? "1/" : "", d);
    return buf;
}

const char *scale_write_flags(const char *name, char *buf, size_t n)
{
    double c;
    const ScaleRow *r = scale_row_find(name, &c);
    assert(r);
    if (r->no_scale) snprintf(buf, n, "%s", "");
    else if (r->mode == SCALE_LEARNED)
        snprintf(buf, n, "--scale=%s --scale-init=%s", scale_mode_name(SCALE_LEARNED, NULL), fixed_row(r->init)->name);
    else snprintf(buf, n, "--scale=%s", name);
    return buf;
}

/* --scale's names: the fixed rows' (1, sqrt, dk) and "learned"; a number stands for SCALE_CONST. */
const char *scale_mode_name(int mode, const char **help)
{
    if (mode == SCALE_LEARNED) {
        if (help) *help = "one learned s per head, starting at --scale-init";
        return "learned";
    }
    const ScaleRow *r = mode == SCALE_CONST ? NULL : fixed_row((ScaleMode)mode);
    if (r && help) *help = r->help;
    return r ? r->name : NULL;
}

/* --scale-init's names: the fixed rows'. */
const char *scale_init_name(int mode, const char **help)
{
    static char helps[SCALE_LEARNED][48];
    const ScaleRow *r = mode == SCALE_CONST || mode == SCALE_LEARNED ? NULL : fixed_row((ScaleMode)mode);
    if (!r) return NULL;
    char label[24];
    snprintf(helps[mode], sizeof helps[mode], "a learned s starts at %s", scale_write_label(r->name, SCALE_ASCII, label, sizeof label));
    if (help) *help = helps[mode];
    return r->name;
}
