/* report_cells.c - see report_cells.h. */
#include "report_cells.h"

#include "report_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

CellKey row_key(const Row *r)
{
    return (CellKey){r->job[JOB_STAGE], r->job[JOB_TASK], r->job[JOB_OPTIM], r->job[JOB_VARIANT], r->job[JOB_SCALE], r->dk, r->lr};
}

CellKey any_key(void) { return (CellKey){NULL, NULL, NULL, NULL, NULL, NAN, NAN}; }

int cell_key_compare(const CellKey *a, const CellKey *b, int depth)
{
    int c = 0;
    if (depth >= KEYS_STAGE && (c = stage_compare(a->stage, b->stage))) return c;
    if (depth >= KEYS_TASK && (c = strcmp(a->task, b->task))) return c;
    if (depth >= KEYS_OPTIM && (c = strcmp(a->optim, b->optim))) return c;
    if (depth >= KEYS_VARIANT && (c = variant_compare(a->variant, b->variant))) return c;
    if (depth >= KEYS_SCALE && (c = scale_compare(a->scale, b->scale))) return c;
    if (depth >= KEYS_DK && a->dk != b->dk) return a->dk < b->dk ? -1 : 1;
    if (depth >= KEYS_LR && a->lr != b->lr) return a->lr < b->lr ? -1 : 1;
    return 0;
}

bool cell_key_matches(const Row *r, const CellKey *q)
{
    return (!q->stage || !strcmp(r->job[JOB_STAGE], q->stage)) && (!q->task || !strcmp(r->job[JOB_TASK], q->task)) &&
           (!q->optim || !strcmp(r->job[JOB_OPTIM], q->optim)) &&
           (!q->variant || !strcmp(r->job[JOB_VARIANT], q->variant)) &&
           (!q->scale || !strcmp(r->job[JOB_SCALE], q->scale)) && (isnan(q->dk) || r->dk == q->dk) &&
           (isnan(q->lr) || r->lr == q->lr);
}

/* The order of rows: by cell, then seed, then id. */
int cells_row_order(const void *x, const void *y)
{
    const Row *a = *(const Row *const *)x, *b = *(const Row *const *)y;
    CellKey ka = row_key(a), kb = row_key(b);
    int c = cell_key_compare(&ka, &kb, CELL_KEYS);
    if (c) return c;
    if (a->seed != b->seed) return a->seed < b->seed ? -1 : 1;
    return strcmp(a->job[JOB_ID], b->job[JOB_ID]);
}

/* A cell's statistics from its runs; val and test: room for n values. */
static void cell_stats(Cell *c, double *val, double *test)
{
    int nv = 0, nt = 0;
    for (int i = 0; i < c->n; i++) {
        const Row *r = c->runs[i];
        if (!r->done) continue;
        c->done++;
        if (isfinite(r->value[M_VAL_ACC])) val[nv++] = r->value[M_VAL_ACC];
        if (isfinite(r->value[M_TEST_ACC])) test[nt++] = r->value[M_TEST_ACC];
    }
    c->val_mean = stats_mean(val, nv);
    c->n_val = nv;
    c->test = stats_ci95(test, nt);
}

void cells_build(Cells *cs, const Row *rows, int n_rows)
{
    cs->sorted = mem_alloc(sizeof(Row *) * (size_t)n_rows);
    cs->cell = mem_alloc(sizeof(Cell) * (size_t)n_rows);
    cs->n = 0;
    cs->n_rows = n_rows;
    for (int i = 0; i < n_rows; i++) cs->sorted[i] = &rows[i];
    qsort(cs->sorted, (size_t)n_rows, sizeof(Row *), cells_row_order);
    double *val = mem_alloc(sizeof(double) * (size_t)n_rows), *test = mem_alloc(sizeof(double) * (size_t)n_rows);
    for (int a = 0, b; a < n_rows; a = b) {
        CellKey ka = row_key(cs->sorted[a]), kb;
        for (b = a + 1; b < n_rows && (kb = row_key(cs->sorted[b]), !cell_key_compare(&ka, &kb, CELL_KEYS)); b++) continue;
        Cell *c = &cs->cell[cs->n++];
        memset(c, 0, sizeof *c);
        c->runs = &cs->sorted[a];
        c->n = b - a;
        cell_stats(c, val, test);
    }
    mem_free(val);
    mem_free(test);
    cs->stage_from = mem_alloc(sizeof(int) * (size_t)(cs->n + 1));
    cs->n_stages = 0;
    for (int a = 0; a < cs->n; a = cells_group_end(cs, a, KEYS_STAGE)) cs->stage_from[cs->n_stages++] = a;
    cs->stage_from[cs->n_stages] = cs->n;
}

void cells_free(Cells *cs)
{
    mem_free(cs->sorted);
    mem_free(cs->cell);
    mem_free(cs->stage_from);
    memset(cs, 0, sizeof *cs);
}

const Row *cell_row(const Cell *c) { return c->runs[0]; }

/* Compares cell i's first `depth` keys with k's. */
static int compare_cell(const Cells *cs, int i, const CellKey *k, int depth)
{
    CellKey ki = row_key(cell_row(&cs->cell[i]));
    return cell_key_compare(&ki, k, depth);
}

int cells_group_end(const Cells *cs, int from, int depth)
{
    CellKey k = row_key(cell_row(&cs->cell[from]));
    int to = from + 1;
    while (to < cs->n && !compare_cell(cs, to, &k, depth)) to++;
    return to;
}

int cells_find(const Cells *cs, const CellKey *k, int depth)
{
    int lo = 0, hi = cs->n; /* the first cell not below k is in [lo, hi] */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (compare_cell(cs, mid, k, depth) < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo < cs->n && !compare_cell(cs, lo, k, depth) ? lo : -1;
}

/* The cell of [from, to) with the highest mean validation accuracy (ties: the smaller lr). */
static const Cell *best_by_validation(const Cells *cs, int from, int to)
{
    int n = to - from;
    double *lr = mem_alloc(sizeof(double) * (size_t)n), *score = mem_alloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++) {
        lr[i] = cell_row(&cs->cell[from + i])->lr;
        score[i] = cs->cell[from + i].val_mean;
    }
    int best = stats_best(lr, score, n);
    mem_free(lr);
    mem_free(score);
    return best < 0 ? NULL : &cs->cell[from + best];
}

const Cell *cells_best_of(const Cells *cs, int from, int to)
{
    const Row *k = cell_row(&cs->cell[from]);
    if (strcmp(k->job[JOB_STAGE], LR_STAGE)) { /* the rate the sweep of the same cell chose, if run here */
        CellKey sweep = row_key(k);
        sweep.stage = LR_STAGE;
        sweep.lr = NAN;
        int i = cells_find(cs, &sweep, KEYS_DK);
        const Cell *chosen = i < 0 ? NULL : best_by_validation(cs, i, cells_group_end(cs, i, KEYS_DK));
        for (int j = from; chosen && j < to; j++)
            if (cell_row(&cs->cell[j])->lr == cell_row(chosen)->lr && cs->cell[j].done) return &cs->cell[j];
    }
    return best_by_validation(cs, from, to);
}

const Cell *cells_best(const Cells *cs, const CellKey *k)
{
    int i = cells_find(cs, k, KEYS_DK);
    return i < 0 ? NULL : cells_best_of(cs, i, cells_group_end(cs, i, KEYS_DK));
}
