/* scale_table.h - the attention scales the project names, one row each (model/scale_table.c).
 *
 * A row says how the study names a scale, s(dk) as ./train computes it, how ./train is told
 * (its flags), how tables and plots write it and how plots draw it. --scale's names, ./probe's
 * columns, ./report's labels, order and styles, and scripts/ablation.sh's flags (through
 * `./report --scales`) all read this table: no other file spells a scale.
 */
#ifndef MODEL_SCALE_TABLE_H
#define MODEL_SCALE_TABLE_H

#include "gpt.h"

#include <stdbool.h>
#include <stddef.h>

/* How a scale is written: in Markdown tables, in plots (no subscripts: SVG fonts lack them), in
 * plain ASCII (./probe's console tables). */
typedef enum ScaleScript { SCALE_MARKDOWN, SCALE_PLOT, SCALE_ASCII, SCALE_SCRIPTS } ScaleScript;

/* How a plot draws a scale's line: its colour (a constant c takes the k-th colour for the k-th
 * constant drawn), dash pattern (NULL: solid), marker ("circle", "square", "triangle",
 * "diamond", "cross", "plus") and whether the marker is hollow. */
typedef struct ScaleStyle {
    const char *colors[4];
    const char *dash;
    const char *marker;
    bool hollow;
} ScaleStyle;

typedef struct ScaleRow {
    const char *name;  /* the study's name (jobs.tsv, run ids); "<c>" stands for any number c > 0 */
    ScaleMode mode;    /* s as ./train computes it: SCALE_LEARNED starts at `init`; SCALE_CONST: 1/c */
    ScaleMode init;    /* SCALE_LEARNED only: where s starts */
    bool no_scale;     /* score rules that take no --scale (cosine, additive): no flag, no s */
    const char *divisor[SCALE_SCRIPTS]; /* 1/s written out: "√dₖ", "√dk", "sqrt(dk)"; NULL: learned, none or <c> */
    const char *help;  /* --scale's help line (the fixed rows and <c>) */
    ScaleStyle style;
} ScaleRow;

/* The rows, in the order tables and plots list scales; the rule 1/sqrt(dk) is the reference. */
extern const ScaleRow g_scale_rows[];
extern const int g_n_scale_rows;
extern const char *const g_scale_rule; /* the name of the 1/sqrt(dk) row */

/* The row of a study name, or NULL; *c: the constant of the "<c>" row (NaN for the others). */
const ScaleRow *scale_row_find(const char *name, double *c);
/* s at dk for a row and its constant (a learned s: where it starts; NaN for no_scale). */
double scale_row_s(const ScaleRow *r, double c, int dk);
/* The divisor 1/s of a fixed scale or a constant, written out: "sqrt(dk)", "dk", "8", "1" (into
 * buf of n bytes; returns buf). */
const char *scale_write_divisor(const char *name, ScaleScript script, char *buf, size_t n);
/* How a scale (a name that scale_row_find knows) is written: "1/√dₖ", "learned from 1", "1/8",
 * "none" (into buf of n bytes; returns buf). */
const char *scale_write_label(const char *name, ScaleScript script, char *buf, size_t n);
/* ./train's flags for a scale: "--scale=sqrt", "--scale=learned --scale-init=1", "--scale=8", "". */
const char *scale_write_flags(const char *name, char *buf, size_t n);

#endif
