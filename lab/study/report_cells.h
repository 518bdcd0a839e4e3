/* report_cells.h - a study's runs grouped into cells, in table order, and found by key.
 *
 * A cell is the set of planned runs that differ only in their seed: one (stage, task, optim,
 * variant, scale, dk, lr). Cells are sorted by these keys, coarse to fine (stage: lr,
 * headline, then by name; variant: "-" first; scale: scale_compare; dk and lr by value), so
 * the cells sharing their first keys (a block: one table; a (..., dk): its learning rates)
 * stand together, and a cell or a group of them is found by binary search. Built once per
 * report; every table and plot reads them. */
#ifndef STUDY_REPORT_CELLS_H
#define STUDY_REPORT_CELLS_H

#include "report_rows.h"
#include "stats.h"

/* The keys of a cell, coarse to fine. In a query (cells_matches), NULL or NAN: any. */
typedef struct CellKey {
    const char *stage, *task, *optim, *variant, *scale;
    double dk, lr;
} CellKey;
/* How many of the keys a comparison looks at: up to the stage, .., up to the lr (a whole cell). */
enum { KEYS_STAGE = 1, KEYS_TASK, KEYS_OPTIM, KEYS_VARIANT, KEYS_SCALE, KEYS_DK, KEYS_LR };
enum { BLOCK_KEYS = KEYS_VARIANT, CELL_KEYS = KEYS_LR };

CellKey row_key(const Row *r);
/* A key that matches every cell. */
CellKey any_key(void);
int cell_key_compare(const CellKey *a, const CellKey *b, int depth);
/* Whether r matches every key of q that is not "any". */
bool cell_key_matches(const Row *r, const CellKey *q);

typedef struct Cell {
    const Row **runs; /* the planned runs of the cell, by seed */
    int n;            /* planned */
    int done;
    double val_mean;  /* mean validation accuracy of the done runs (NAN: none) */
    int n_val;
    StatsCi test;     /* mean test accuracy and its 95 % interval */
} Cell;

typedef struct Cells {
    Cell *cell;
    int n;
    const Row **sorted; /* the rows in table order: the cells' runs */
    int n_rows;
    int *stage_from;    /* the first cell of each stage, in stage order; stage_from[n_stages] = n */
    int n_stages;
} Cells;

/* qsort's order of Row pointers: by cell (its keys, coarse to fine), then seed, then id, so that
 * the runs of one cell and seed are neighbours. */
int cells_row_order(const void *x, const void *y);
void cells_build(Cells *cs, const Row *rows, int n_rows);
void cells_free(Cells *cs);

/* The row that stands for a cell's keys (its first run). */
const Row *cell_row(const Cell *c);
/* The end of the cells [from, end) sharing the first `depth` keys with cell `from`. */
int cells_group_end(const Cells *cs, int from, int depth);
/* The first cell whose first `depth` keys are k's; -1 when there is none. */
int cells_find(const Cells *cs, const CellKey *k, int depth);
/* Among the cells [from, to) of one (stage, .., scale, dk) (they differ in lr only), the one run
 * at the chosen rate. In the sweep (stage lr): the one with the highest mean validation accuracy;
 * ties: the smaller lr. In another stage: the one at the rate the sweep of the same (task, optim,
 * variant, scale, dk) chose, when the runs hold that sweep and a done run at that rate (a cell
 * whose chosen rate moved keeps its old runs beside the new); else chosen there as in the sweep.
 * NULL when none has a done run. */
const Cell *cells_best_of(const Cells *cs, int from, int to);
/* The best cell (over lr) of the (stage, task, optim, variant, scale, dk) of k, or NULL. */
const Cell *cells_best(const Cells *cs, const CellKey *k);

#endif
