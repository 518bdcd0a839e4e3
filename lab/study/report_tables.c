/* report_tables.c - best_lr.tsv and summary.md, computed from the rows of runs.csv only.
 *
 * Per cell (report_cells.h: the runs that differ only in their seed): the mean validation
 * accuracy (which chooses learning rates) and the mean test accuracy with its 95 % interval
 * over seeds (which is reported). Wherever one (stage, task, optim, variant, scale, dk) was run
 * at several learning rates, the one compared is the one with the highest mean validation
 * accuracy (ties: the smaller rate); in stage "lr" that is the chosen rate of best_lr.tsv.
 * Each stage's tables read its own cells only, and every lookup is a binary search, so the
 * time grows with the rows times their logarithm, never with their square.
 * Everything is printed with fixed formats, in a fixed order, so the same runs.csv always
 * gives the same bytes.
 */
#include "report_tables.h"

#include "report_cells.h"
#include "report_common.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CEILING 0.99 /* "within 1 % of 100 %" */

/* The best cell (over lr) of a (stage, task, optim, variant, scale, dk), or NULL. */
static const Cell *best_cell(const Cells *cs, const char *stage, const char *task, const char *optim, const char *variant,
                             const char *scale, double dk)
{
    CellKey k = {stage, task, optim, variant, scale, dk, NAN};
    return cells_best(cs, &k);
}

/* The cells of one stage: [from, to) of cs. */
typedef struct Stage {
    const Cells *cs;
    int from, to;
    const char *name;
} Stage;

/* ------------------------------------------------------------------ best_lr.tsv */

/* One line per (task, optim, scale, dk, variant, lr) of stage lr: its mean validation accuracy
 * over n seeds, chosen = 1 on the chosen rate's line, and chosen_lr (the same on every line of
 * the cell; empty when no run of it is done), so a script can read the rate of a cell from
 * any of its lines. */

void write_best_lr(const char *dir, const Cells *cs)
{
    OutFile o;
    FILE *f = out_open(&o, dir, "best_lr.tsv");
    fprintf(f, "task\toptim\tscale\tdk\tvariant\tlr\tn\tmean_val_acc\tchosen\tchosen_lr\n");
    for (int a = 0; a < cs->n;) {
        int b = cells_group_end(cs, a, KEYS_DK);
        const Row *k = cell_row(&cs->cell[a]);
        if (!strcmp(k->job[JOB_STAGE], LR_STAGE)) {
            const Cell *best = cells_best_of(cs, a, b);
            for (int i = a; i < b; i++) {
                const Cell *c = &cs->cell[i];
                const Row *r = cell_row(c);
                char mean[32];
                if (c->n_val) snprintf(mean, sizeof mean, "%.4f", c->val_mean);
                else snprintf(mean, sizeof mean, "nan");
                fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%d\t%s\n", r->job[JOB_TASK], r->job[JOB_OPTIM],
                        r->job[JOB_SCALE], r->job[JOB_DK], r->job[JOB_VARIANT], r->job[JOB_LR], c->n_val, mean, c == best,
                        best ? cell_row(best)->job[JOB_LR] : "");
            }
        }
        a = b;
    }
    out_close(&o);
}

/* ------------------------------------------------------------------ text of numbers */

static bool at_ceiling(double mean) { return mean >= CEILING - 1e-9; }

/* "0.712 ± 0.031 (n=5)", "0.712 (n=1, no CI)", "– (0 of 5 done)"; "(n=4, 1 missing)"; a
 * dagger at the ceiling. */
static void cell_text(char *buf, size_t len, const Cell *c)
{
    char missing[32] = "";
    if (c->done < c->n) snprintf(missing, sizeof missing, ", %d missing", c->n - c->done);
    const StatsCi *t = &c->test;
    if (t->n == 0) snprintf(buf, len, "– (0 of %d done)", c->n);
    else if (!t->defined) snprintf(buf, len, "%.3f (n=%d, no CI%s)", t->mean, t->n, missing);
    else snprintf(buf, len, "%.3f ± %.3f (n=%d%s)", t->mean, t->half, t->n, missing);
    if (t->n && at_ceiling(t->mean)) strncat(buf, " †", len - strlen(buf) - 1);
}

/* Where the uncorrected interval of a difference a - b lies (with the two means, for the
 * ceiling): a description, not a verdict; the verdicts, corrected, are outcomes.md's. */
static void verdict_text(char *buf, size_t len, StatsCi d, double mean_a, double mean_b)
{
    switch (stats_verdict(d)) {
    case VERDICT_HIGHER: snprintf(buf, len, "CI above 0"); break;
    case VERDICT_LOWER: snprintf(buf, len, "CI below 0"); break;
    case VERDICT_NOT_DISTINCT: snprintf(buf, len, "CI spans 0 (n = %d)", d.n); break;
    case VERDICT_UNDEFINED:
        if (d.n == 0) snprintf(buf, len, "no seed in common");
        else snprintf(buf, len, "n = %d: no interval", d.n);
        break;
    }
    if (d.n && at_ceiling(mean_a) && at_ceiling(mean_b)) strncat(buf, " (both at the ceiling)", len - strlen(buf) - 1);
}

/* The paired difference in test accuracy, a - b, over the seeds both cells have done. */
static StatsCi paired(const Cell *a, const Cell *b)
{
    long *sa = mem_alloc(sizeof(long) * (size_t)a->n), *sb = mem_alloc(sizeof(long) * (size_t)b->n);
    double *va = mem_alloc(sizeof(double) * (size_t)a->n), *vb = mem_alloc(sizeof(double) * (size_t)b->n);
    double *diff = mem_alloc(sizeof(double) * (size_t)a->n);
    int na = 0, nb = 0;
    for (int i = 0; i < a->n; i++)
        if (a->runs[i]->done && isfinite(a->runs[i]->value[M_TEST_ACC])) {
            sa[na] = a->runs[i]->seed;
            va[na++] = a->runs[i]->value[M_TEST_ACC];
        }
    for (int i = 0; i < b->n; i++)
        if (b->runs[i]->done && isfinite(b->runs[i]->value[M_TEST_ACC])) {
            sb[nb] = b->runs[i]->seed;
            vb[nb++] = b->runs[i]->value[M_TEST_ACC];
        }
    int n = stats_paired(sa, va, na, sb, vb, nb, diff, a->n);
    StatsCi d = stats_ci95(diff, n);
    mem_free(sa);
    mem_free(sb);
    mem_free(va);
    mem_free(vb);
    mem_free(diff);
    return d;
}

static void diff_text(char *buf, size_t len, StatsCi d)
{
    if (d.n == 0) snprintf(buf, len, "–");
    else if (!d.defined) snprintf(buf, len, "%+.3f", d.mean);
    else snprintf(buf, len, "%+.3f ± %.3f", d.mean, d.half);
}

static void block_title(FILE *f, const Row *k, const char *what)
{
    fprintf(f, "\n### %s%s · %s", what, k->job[JOB_TASK], k->job[JOB_OPTIM]);
    if (strcmp(k->job[JOB_VARIANT], "-")) fprintf(f, " · `%s`", k->job[JOB_VARIANT]);
    fprintf(f, "\n\n");
}

/* The distinct dks of cells [from, to), ascending (at most max); returns how many. */
static int block_dks(const Cells *cs, int from, int to, double *out, int max)
{
    int n = 0;
    for (int i = from; i < to; i++) {
        double dk = cell_row(&cs->cell[i])->dk;
        int j = 0;
        while (j < n && out[j] != dk) j++;
        if (j == n && n < max) out[n++] = dk;
    }
    for (int i = 1; i < n; i++) /* insertion sort */
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            double t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* ------------------------------------------------------------------ (a) LR sweeps */

/* True when some (scale, dk) of the stage was run at several learning rates. */
static bool stage_sweeps(const Stage *st)
{
    for (int a = st->from, b; a < st->to; a = b)
        if ((b = cells_group_end(st->cs, a, KEYS_DK)) - a > 1) return true;
    return false;
}

/* Per (task, optim, variant) of the stage: rows scale x dk, columns lr, the mean validation
 * accuracy, the chosen rate in bold. */
/* Why the chosen rate `best` of one row's cells [from, to) is not interior, as the sweep table
 * writes it after the rate: "" when it is (a rate run on each side of it, each worse), " (edge)"
 * when no rate was run on one side, " (tie)" when another rate has the same mean, or both. */
static const char *not_interior(const Cells *cs, int from, int to, const Cell *best)
{
    bool below = false, above = false, tie = false;
    double lr = cell_row(best)->lr;
    for (int i = from; i < to; i++) {
        const Cell *c = &cs->cell[i];
        if (c == best || !c->n_val) continue;
        below |= cell_row(c)->lr < lr;
        above |= cell_row(c)->lr > lr;
        tie |= c->val_mean == best->val_mean;
    }
    bool edge = !below || !above;
    return edge && tie ? " (edge, tie)" : edge ? " (edge)" : tie ? " (tie)" : "";
}

static void lr_sweep_tables(FILE *f, const Stage *st)
{
    const Cells *cs = st->cs;
    const char *stage = st->name;
    if (!stage_sweeps(st)) return;
    fprintf(f, "\n## Learning-rate sweep (stage `%s`): mean validation accuracy over seeds\n\n"
               "Bold: the chosen rate of each row, the highest mean validation accuracy (ties: the smaller rate)%s. "
               "Test accuracy plays no part in the choice. The chosen rate is interior when a rate on each side of "
               "it was run and is worse (docs/ablation/DESIGN.md); else it says why not: \"edge\" (the lowest or the "
               "highest rate the row ran), \"tie\" (another rate has the same mean).\n",
            stage, !strcmp(stage, LR_STAGE) ? "; it is the rate of best_lr.tsv" : "");
    for (int a = st->from, b; a < st->to; a = b) {
        b = cells_group_end(cs, a, BLOCK_KEYS);
        const Row *k = cell_row(&cs->cell[a]);
        block_title(f, k, "");
        /* the columns: the distinct lrs of the block, ascending, named by their first text */
        int n_lr = 0;
        const Row **lrs = mem_alloc(sizeof(Row *) * (size_t)(b - a));
        for (int i = a; i < b; i++) {
            const Row *r = cell_row(&cs->cell[i]);
            int j = 0;
            while (j < n_lr && lrs[j]->lr != r->lr) j++;
            if (j == n_lr) lrs[n_lr++] = r;
        }
        for (int i = 1; i < n_lr; i++)
            for (int j = i; j > 0 && lrs[j]->lr < lrs[j - 1]->lr; j--) {
                const Row *t = lrs[j];
                lrs[j] = lrs[j - 1];
                lrs[j - 1] = t;
            }
        fprintf(f, "| s | dₖ |");
        for (int j = 0; j < n_lr; j++) fprintf(f, " lr %s |", lrs[j]->job[JOB_LR]);
        fprintf(f, " chosen lr | seeds |\n|---|---:|");
        for (int j = 0; j < n_lr; j++) fprintf(f, "---:|");
        fprintf(f, "---:|---:|\n");
        for (int r0 = a; r0 < b;) {
            int r1 = cells_group_end(cs, r0, KEYS_DK); /* one (scale, dk): its lrs */
            const Cell *best = cells_best_of(cs, r0, r1);
            const Row *rk = cell_row(&cs->cell[r0]);
            fprintf(f, "| %s | %s |", scale_label(rk->job[JOB_SCALE], SCALE_MARKDOWN), rk->job[JOB_DK]);
            int lo = 1 << 30, hi = 0, missing = 0;
            for (int j = 0; j < n_lr; j++) {
                const Cell *c = NULL;
                for (int i = r0; i < r1 && !c; i++)
                    if (cell_row(&cs->cell[i])->lr == lrs[j]->lr) c = &cs->cell[i];
                if (!c) {
                    fprintf(f, " |");
                    continue;
                }
                lo = c->n_val < lo ? c->n_val : lo;
                hi = c->n_val > hi ? c->n_val : hi;
                missing += c->n - c->done;
                if (!c->n_val) fprintf(f, " – |");
                else if (c == best) fprintf(f, " **%.3f** |", c->val_mean);
                else fprintf(f, " %.3f |", c->val_mean);
            }
            fprintf(f, " %s%s |", best ? cell_row(best)->job[JOB_LR] : "none", best ? not_interior(cs, r0, r1, best) : "");
            if (lo == hi) fprintf(f, " %d", lo);
            else fprintf(f, " %d–%d", lo, hi);
            if (missing) fprintf(f, " (%d missing)", missing);
            fprintf(f, " |\n");
            r0 = r1;
        }
        mem_free(lrs);
    }
}

/* For a sweep stage of several variants (the width sweep): the chosen rate of each (task,
 * optim, scale) under each variant, side by side: does the best rate move? */
static void chosen_rates_table(FILE *f, const Stage *st)
{
    const Cells *cs = st->cs;
    const char *stage = st->name;
    if (!strcmp(stage, LR_STAGE) || !stage_sweeps(st)) return;
    const char *variants[64];
    int nv = 0;
    for (int i = st->from; i < st->to; i++) {
        const Row *k = cell_row(&cs->cell[i]);
        int j = 0;
        while (j < nv && strcmp(variants[j], k->job[JOB_VARIANT])) j++;
        if (j == nv && nv < 64) variants[nv++] = k->job[JOB_VARIANT];
    }
    if (nv < 2) return;
    for (int i = 1; i < nv; i++) /* in table order */
        for (int j = i; j > 0 && variant_compare(variants[j], variants[j - 1]) < 0; j--) {
            const char *t = variants[j];
            variants[j] = variants[j - 1];
            variants[j - 1] = t;
        }
    fprintf(f, "\n### Chosen rate by variant (stage `%s`)\n\n| task · optim | s |", stage);
    for (int v = 0; v < nv; v++) fprintf(f, " `%s` |", variants[v]);
    fprintf(f, "\n|---|---|");
    for (int v = 0; v < nv; v++) fprintf(f, "---:|");
    fprintf(f, "\n");
    /* the rows: distinct (task, optim, scale) of the stage, in table order */
    const Row *seen_rows[256];
    int n_seen = 0;
    for (int i = st->from; i < st->to; i++) {
        const Row *k = cell_row(&cs->cell[i]);
        bool seen = false;
        for (int j = 0; j < n_seen && !seen; j++)
            seen = !strcmp(seen_rows[j]->job[JOB_TASK], k->job[JOB_TASK]) && !strcmp(seen_rows[j]->job[JOB_OPTIM], k->job[JOB_OPTIM]) &&
                   !strcmp(seen_rows[j]->job[JOB_SCALE], k->job[JOB_SCALE]);
        if (seen || n_seen == 256) continue;
        seen_rows[n_seen++] = k;
        fprintf(f, "| %s · %s | %s |", k->job[JOB_TASK], k->job[JOB_OPTIM], scale_label(k->job[JOB_SCALE], SCALE_MARKDOWN));
        for (int v = 0; v < nv; v++) {
            /* the (.., variant v, scale) of this row: its chosen rate at each dk */
            CellKey key = row_key(k);
            key.variant = variants[v];
            fprintf(f, " ");
            int from = cells_find(cs, &key, KEYS_SCALE), to = from < 0 ? from : cells_group_end(cs, from, KEYS_SCALE);
            for (int c = from; c < to; c = cells_group_end(cs, c, KEYS_DK)) {
                const Cell *best = cells_best_of(cs, c, cells_group_end(cs, c, KEYS_DK));
                fprintf(f, "%s%s (dₖ %s)", c == from ? "" : "<br>", best ? cell_row(best)->job[JOB_LR] : "none",
                        cell_row(&cs->cell[c])->job[JOB_DK]);
            }
            fprintf(f, " |");
        }
        fprintf(f, "\n");
    }
}

/* The runs of a stage that met non-finite values: NaN steps (nan_count), and in reduced
 * precision the values rounded to ±Inf (fp_overflows) and the NaNs made (fp_nans). Printed
 * only when some run has any. */
static void nonfinite_table(FILE *f, const Stage *st)
{
    bool any = false;
    for (int i = st->from; i < st->to; i++) {
        const Cell *c = &st->cs->cell[i];
        int n = 0, with_nan = 0, with_over = 0;
        double over = 0, fp_nans = 0;
        for (int r = 0; r < c->n; r++) {
            const Row *run = c->runs[r];
            if (!run->done) continue;
            n++;
            with_nan += run->value[M_NAN_COUNT] > 0;
            with_over += run->value[M_FP_OVERFLOWS] > 0;
            over += isfinite(run->value[M_FP_OVERFLOWS]) ? run->value[M_FP_OVERFLOWS] : 0;
            fp_nans += isfinite(run->value[M_FP_NANS]) ? run->value[M_FP_NANS] : 0;
        }
        if (!with_nan && !with_over && !(fp_nans > 0)) continue;
        if (!any)
            fprintf(f, "\n### Non-finite values (stage `%s`)\n\n"
                       "| task · optim · variant | s | dₖ | lr | runs with NaN steps | runs with fp overflows | "
                       "mean fp_overflows | mean fp_nans |\n|---|---|---:|---:|---:|---:|---:|---:|\n", st->name);
        any = true;
        const Row *k = cell_row(c);
        fprintf(f, "| %s · %s · `%s` | %s | %s | %s | %d of %d | %d of %d | %.3g | %.3g |\n", k->job[JOB_TASK],
                k->job[JOB_OPTIM], k->job[JOB_VARIANT], scale_label(k->job[JOB_SCALE], SCALE_MARKDOWN), k->job[JOB_DK],
                k->job[JOB_LR], with_nan, n, with_over, n, n ? over / n : 0, n ? fp_nans / n : 0);
    }
}

/* Where the multiplier is learned: s·√dₖ at the end of training (mean over layers and heads;
 * 1 is 1/√dₖ), per cell of the stage, against where it started (1 from 1/√dₖ, √dₖ from 1).
 * Printed only when some cell of the stage learns its s; not for the sweep stage, whose
 * cells have one seed each. */
static void learned_scale_table(FILE *f, const Stage *st)
{
    if (!strcmp(st->name, LR_STAGE)) return;
    bool any = false;
    for (int i = st->from; i < st->to; i++) {
        const Cell *c = &st->cs->cell[i];
        const Row *k = cell_row(c);
        double start = scale_learned_start(k->job[JOB_SCALE], (int)k->dk); /* s·√dₖ */
        if (isnan(start)) continue;
        double *v = mem_alloc(sizeof(double) * (size_t)c->n);
        int n = 0;
        double lo = INFINITY, hi = -INFINITY;
        for (int r = 0; r < c->n; r++) {
            double x = c->runs[r]->value[M_SCALE_END];
            if (!c->runs[r]->done || !isfinite(x)) continue;
            v[n++] = x;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        if (n == 0) {
            mem_free(v);
            continue;
        }
        if (!any)
            fprintf(f, "\n### Learned multipliers (stage `%s`): s·√dₖ at the end (1 = 1/√dₖ)\n\n"
                       "Mean over layers and heads of each run; then mean ± 95 %% CI over seeds, and the range over seeds.\n\n"
                       "| task · optim · variant | s | dₖ | lr | s·√dₖ at the start | at the end | range |\n"
                       "|---|---|---:|---:|---:|---:|---:|\n", st->name);
        any = true;
        StatsCi ci = stats_ci95(v, n);
        char end[96];
        if (ci.defined) snprintf(end, sizeof end, "%.3f ± %.3f (n=%d)", ci.mean, ci.half, n);
        else snprintf(end, sizeof end, "%.3f (n=%d, no CI)", ci.mean, n);
        fprintf(f, "| %s · %s · `%s` | %s | %s | %s | %.3g | %s | %.3f – %.3f |\n", k->job[JOB_TASK], k->job[JOB_OPTIM],
                k->job[JOB_VARIANT], scale_label(k->job[JOB_SCALE], SCALE_MARKDOWN), k->job[JOB_DK], k->job[JOB_LR], start, end, lo,
                hi);
        mem_free(v);
    }
}

/* ------------------------------------------------------------------ (b) test accuracy */

/* Per (task, optim, variant) of the stage: rows scale, columns dk, the test accuracy of each
 * (scale, dk) at its rate (the one of the best mean validation accuracy when there are several). */
static void accuracy_tables(FILE *f, const Stage *st)
{
    const Cells *cs = st->cs;
    bool sweeps = stage_sweeps(st);
    fprintf(f, "\n## Stage `%s`: test accuracy, mean ± 95 %% CI over seeds\n", st->name);
    if (sweeps) fprintf(f, "\nEach cell at its rate of the highest mean validation accuracy (the sweep above).\n");
    for (int a = st->from, b; a < st->to; a = b) {
        b = cells_group_end(cs, a, BLOCK_KEYS);
        const Row *k = cell_row(&cs->cell[a]);
        block_title(f, k, "");
        /* the cell shown for each (scale, dk), and whether they share one lr */
        bool one_lr = true;
        for (int i = a; i < b; i = cells_group_end(cs, i, KEYS_DK)) {
            const Cell *c = cells_best_of(cs, i, cells_group_end(cs, i, KEYS_DK));
            one_lr &= !c || cell_row(c)->lr == k->lr;
        }
        if (one_lr && !sweeps) fprintf(f, "All at lr %s.\n\n", k->job[JOB_LR]);
        double dks[256];
        int nd = block_dks(cs, a, b, dks, 256), ceiling = 0, shown = 0;
        fprintf(f, "| s |");
        for (int d = 0; d < nd; d++) fprintf(f, " dₖ = %.0f |", dks[d]);
        fprintf(f, "\n|---|");
        for (int d = 0; d < nd; d++) fprintf(f, "---:|");
        fprintf(f, "\n");
        for (int s0 = a; s0 < b;) {
            int s1 = cells_group_end(cs, s0, KEYS_SCALE); /* one scale */
            fprintf(f, "| %s |", scale_label(cell_row(&cs->cell[s0])->job[JOB_SCALE], SCALE_MARKDOWN));
            for (int d = 0; d < nd; d++) {
                fprintf(f, " ");
                bool any_here = false;
                for (int i = s0; i < s1; i = cells_group_end(cs, i, KEYS_DK)) {
                    if (cell_row(&cs->cell[i])->dk != dks[d]) continue;
                    any_here = true;
                    const Cell *c = cells_best_of(cs, i, cells_group_end(cs, i, KEYS_DK));
                    if (!c) c = &cs->cell[i]; /* nothing done at any rate: say so */
                    char text[160];
                    cell_text(text, sizeof text, c);
                    fprintf(f, "%s", text);
                    if (!one_lr || sweeps) fprintf(f, " @ lr %s", cell_row(c)->job[JOB_LR]);
                    shown++;
                    ceiling += c->test.n && at_ceiling(c->test.mean);
                }
                if (!any_here) fprintf(f, "–"); /* this scale was not run at this dk */
                fprintf(f, " |");
            }
            fprintf(f, "\n");
            s0 = s1;
        }
        fprintf(f, "\nAt the ceiling: %d of %d cells.\n", ceiling, shown);
    }
}

/* ------------------------------------------------------------------ (c) paired comparisons */

/* The cell to compare c with, of the same task and optim and the given (variant, scale, dk):
 * in c's own stage when it has one; else in the stage whose cell shares the most seeds with c
 * (ties: the same lr as c, then the stage order), none when no stage shares a seed. Each
 * stage's candidate at its rate of the best mean validation accuracy. */
static const Cell *reference_cell(const Cells *cs, const Cell *c, const char *variant, const char *scale, double dk)
{
    const Row *k = cell_row(c);
    const Cell *own = best_cell(cs, k->job[JOB_STAGE], k->job[JOB_TASK], k->job[JOB_OPTIM], variant, scale, dk);
    if (own) return own;
    const Cell *best = NULL;
    int best_n = 0;
    bool best_same_lr = false;
    for (int i = 0; i < cs->n_stages; i++) {
        const char *stage = cell_row(&cs->cell[cs->stage_from[i]])->job[JOB_STAGE];
        const Cell *cand = best_cell(cs, stage, k->job[JOB_TASK], k->job[JOB_OPTIM], variant, scale, dk);
        if (!cand) continue;
        int n = paired(c, cand).n;
        bool same_lr = cell_row(cand)->lr == k->lr;
        if (n > best_n || (n == best_n && n > 0 && same_lr && !best_same_lr)) {
            best = cand;
            best_n = n;
            best_same_lr = same_lr;
        }
    }
    return best;
}

/* One comparison row's last cells: "| difference | n | lr a; b | verdict |". */
static void put_comparison(FILE *f, const Cell *ca, const Cell *cb)
{
    StatsCi diff = paired(ca, cb);
    char dt[64], vt[96];
    diff_text(dt, sizeof dt, diff);
    verdict_text(vt, sizeof vt, diff, ca->test.mean, cb->test.mean);
    fprintf(f, " %s | %d | %s; %s | %s |\n", dt, diff.n, cell_row(ca)->job[JOB_LR], cell_row(cb)->job[JOB_LR], vt);
}

/* The name of b's stage when it is not the stage of the table. */
static const char *from_stage(const Cell *b, const char *stage)
{
    static char buf[2][128];
    static int next;
    char *out = buf[next++ % 2];
    if (!strcmp(cell_row(b)->job[JOB_STAGE], stage)) snprintf(out, 128, "%s", "");
    else snprintf(out, 128, " (%s)", cell_row(b)->job[JOB_STAGE]);
    return out;
}

/* Scales against 1/√dₖ per dk (from another stage when the table's has none at that dk; else
 * against the first scale). */
static void scale_comparisons(FILE *f, const Stage *st)
{
    const Cells *cs = st->cs;
    const char *stage = st->name;
    bool any = false;
    for (int a = st->from, b; a < st->to; a = b) {
        b = cells_group_end(cs, a, BLOCK_KEYS);
        const Row *k = cell_row(&cs->cell[a]);
        double dks[256];
        int nd = block_dks(cs, a, b, dks, 256);
        bool title = false;
        for (int d = 0; d < nd; d++) {
            /* the best cell of each scale at this dk, in scale order */
            const Cell *cells[64];
            int ns = 0, ref = -1;
            for (int i = a; i < b && ns < 64; i = cells_group_end(cs, i, KEYS_DK)) {
                if (cell_row(&cs->cell[i])->dk != dks[d]) continue;
                const Cell *c = cells_best_of(cs, i, cells_group_end(cs, i, KEYS_DK));
                if (!c) continue;
                if (scale_is_rule(cell_row(c)->job[JOB_SCALE])) ref = ns;
                cells[ns++] = c;
            }
            if (ns == 0) continue;
            for (int s = 0; s < ns; s++) {
                const Cell *cr = ref >= 0 ? cells[ref] : NULL;
                if (s == ref) continue;
                if (!cr) cr = reference_cell(cs, cells[s], k->job[JOB_VARIANT], g_scale_rule, dks[d]);
                if (!cr && s == 0) continue; /* no 1/√dₖ anywhere: against the first scale */
                if (!cr) cr = cells[0];
                if (!title) {
                    if (!any) fprintf(f, "\n## Stage `%s`: paired comparisons of scales, against 1/√dₖ\n", stage);
                    any = title = true;
                    block_title(f, k, "");
                    fprintf(f, "| dₖ | a − b | difference ± 95 %% CI | n | lr a; b | verdict |\n|---:|---|---:|---:|---|---|\n");
                }
                fprintf(f, "| %.0f | %s%s − %s |", dks[d], scale_label(cell_row(cr)->job[JOB_SCALE], SCALE_MARKDOWN), from_stage(cr, stage),
                        scale_label(cell_row(cells[s])->job[JOB_SCALE], SCALE_MARKDOWN));
                put_comparison(f, cr, cells[s]);
            }
        }
    }
}

/* Each variant against the plain model (variant "-") of the same task, optim, dk and scale
 * (1/√dₖ for scale "none": the variants that take no scale), from the stage with the most seeds
 * in common when this one has none. */
static void variant_comparisons(FILE *f, const Stage *st)
{
    const Cells *cs = st->cs;
    const char *stage = st->name;
    bool any = false;
    const char *task = NULL, *optim = NULL;
    for (int i = st->from; i < st->to; i = cells_group_end(cs, i, KEYS_DK)) {
        const Row *k = cell_row(&cs->cell[i]);
        if (!strcmp(k->job[JOB_VARIANT], "-")) continue;
        const Cell *cv = cells_best_of(cs, i, cells_group_end(cs, i, KEYS_DK));
        if (!cv) continue;
        const char *scale = scale_is_none(k->job[JOB_SCALE]) ? g_scale_rule : k->job[JOB_SCALE];
        const Cell *cr = reference_cell(cs, cv, "-", scale, k->dk);
        if (!cr) continue;
        if (!any)
            fprintf(f, "\n## Stage `%s`: paired comparisons with the plain model\n\n"
                       "b: the same cell without the variant (`-`), at 1/√dₖ for a variant without a scale (s = none).\n",
                    stage);
        any = true;
        if (!task || strcmp(task, k->job[JOB_TASK]) || strcmp(optim, k->job[JOB_OPTIM])) {
            task = k->job[JOB_TASK];
            optim = k->job[JOB_OPTIM];
            fprintf(f, "\n### %s · %s\n\n| dₖ | a − b | difference ± 95 %% CI | n | lr a; b | verdict |\n"
                       "|---:|---|---:|---:|---|---|\n", task, optim);
        }
        fprintf(f, "| %.0f | `%s` %s − `-` %s%s |", k->dk, k->job[JOB_VARIANT], scale_label(k->job[JOB_SCALE], SCALE_MARKDOWN),
                scale_label(cell_row(cr)->job[JOB_SCALE], SCALE_MARKDOWN), from_stage(cr, stage));
        put_comparison(f, cv, cr);
    }
}

/* ------------------------------------------------------------------ (e) a stage at a glance; inside attention */

/* Whether the block of cells [a, b) (one task, optim, variant) compares scales against 1/√dₖ:
 * it has 1/√dₖ and at least one other scale. */
static bool block_compares_scales(const Cells *cs, int a, int b)
{
    bool sqrt_seen = false, other = false;
    for (int i = a; i < b; i++) {
        bool is_sqrt = scale_is_rule(cell_row(&cs->cell[i])->job[JOB_SCALE]);
        sqrt_seen |= is_sqrt;
        other |= !is_sqrt;
    }
    return sqrt_seen && other;
}

/* A stage that compares scales (headline, dk16, qkinit, ..) in one table: a row per (task, optim,
 * variant, dk) whose block compares scales, a column per scale (its test accuracy at its chosen
 * rate), then 1/√dₖ against each other scale, paired by seed, with the verdict. The same numbers
 * as the stage's own tables, side by side. */
static void overview_table(FILE *f, const Stage *st)
{
    const Cells *cs = st->cs;
    const char *stage = st->name;
    if (!strcmp(stage, LR_STAGE)) return;
    const char *scales[16];
    int ns = 0;
    for (int a = st->from, b; a < st->to; a = b) { /* the scales of the blocks that compare scales, in scale order */
        b = cells_group_end(cs, a, BLOCK_KEYS);
        if (block_compares_scales(cs, a, b))
            for (int i = a; i < b; i++) {
                const char *sc = cell_row(&cs->cell[i])->job[JOB_SCALE];
                int j = 0;
                while (j < ns && strcmp(scales[j], sc)) j++;
                if (j == ns && ns < 16) scales[ns++] = sc;
            }
    }
    if (ns < 2) return;
    for (int i = 1; i < ns; i++)
        for (int j = i; j > 0 && scale_compare(scales[j], scales[j - 1]) < 0; j--) {
            const char *t = scales[j];
            scales[j] = scales[j - 1];
            scales[j - 1] = t;
        }
    int ref = -1;
    for (int j = 0; j < ns; j++)
        if (scale_is_rule(scales[j])) ref = j;
    fprintf(f, "\n## Stage `%s` at a glance\n\nTest accuracy, mean ± 95 %% CI over seeds, each scale at its chosen rate; "
               "then the paired differences (seed by seed) and their verdict.\n\n| task · optim | dₖ |", stage);
    for (int j = 0; j < ns; j++) fprintf(f, " s = %s |", scale_label(scales[j], SCALE_MARKDOWN));
    for (int j = 0; j < ns; j++)
        if (j != ref) fprintf(f, " 1/√dₖ − %s |", scale_label(scales[j], SCALE_MARKDOWN));
    fprintf(f, "\n|---|---:|");
    for (int j = 0; j < ns; j++) fprintf(f, "---:|");
    for (int j = 0; j < ns; j++)
        if (j != ref) fprintf(f, "---|");
    fprintf(f, "\n");
    for (int a = st->from, b; a < st->to; a = b) {
        b = cells_group_end(cs, a, BLOCK_KEYS);
        const Row *k = cell_row(&cs->cell[a]);
        if (!block_compares_scales(cs, a, b)) continue;
        double dks[64];
        int nd = block_dks(cs, a, b, dks, 64);
        for (int d = 0; d < nd; d++) {
            const Cell *cells[16];
            for (int j = 0; j < ns; j++)
                cells[j] = best_cell(cs, stage, k->job[JOB_TASK], k->job[JOB_OPTIM], k->job[JOB_VARIANT], scales[j], dks[d]);
            fprintf(f, "| %s · %s", k->job[JOB_TASK], k->job[JOB_OPTIM]);
            if (strcmp(k->job[JOB_VARIANT], "-")) fprintf(f, " · `%s`", k->job[JOB_VARIANT]);
            fprintf(f, " | %.0f |", dks[d]);
            for (int j = 0; j < ns; j++) {
                char text[160] = "–";
                if (cells[j]) cell_text(text, sizeof text, cells[j]);
                fprintf(f, " %s |", text);
            }
            for (int j = 0; j < ns; j++) {
                if (j == ref) continue;
                if (!cells[ref] || !cells[j]) {
                    fprintf(f, " – |");
                    continue;
                }
                StatsCi diff = paired(cells[ref], cells[j]);
                char dt[64], vt[96];
                diff_text(dt, sizeof dt, diff);
                verdict_text(vt, sizeof vt, diff, cells[ref]->test.mean, cells[j]->test.mean);
                fprintf(f, " %s: %s |", dt, vt);
            }
            fprintf(f, "\n");
        }
    }
}

/* The median over a cell's done runs of one metric; NAN when none has it. */
static double cell_median(const Cell *c, int metric)
{
    double *v = mem_alloc(sizeof(double) * (size_t)c->n);
    int n = 0;
    for (int r = 0; r < c->n; r++)
        if (c->runs[r]->done && isfinite(c->runs[r]->value[metric])) v[n++] = c->runs[r]->value[metric];
    double m = stats_quantile(v, n, 0.5);
    mem_free(v);
    return m;
}

/* For every stage but the sweep: what happened inside attention in each cell, as medians over
 * its seeds of the per-run means over layers (from the runs' logs): the spread of the scaled
 * scores s·q·k, and the per-query median of ||dL/dS_row|| (what the softmax's backward pass
 * hands on to the scores of one query) and of the softmax Jacobian's norm, at the first logged
 * step and at the last. */
static void inside_table(FILE *f, const Stage *st)
{
    const Cells *cs = st->cs;
    if (!strcmp(st->name, LR_STAGE)) return;
    bool any = false;
    for (int i = st->from; i < st->to; i++) any |= cs->cell[i].done > 0;
    if (!any) return;
    fprintf(f, "\n## Stage `%s`: inside attention, first and last logged step\n\n"
               "Medians over the seeds of each cell (at its chosen rate) of the per-run means over layers: the std of the "
               "scaled scores s·q·k, the median over query rows of ‖∂L/∂S_row‖ (the gradient the softmax hands back to "
               "one query's scores) and of the softmax Jacobian's norm ‖diag(p) − ppᵀ‖_F; the attention entropy ÷ "
               "log(visible keys) at the end (1: uniform, 0: one key); the norm of Wq's gradient at the first step (before "
               "clipping).\n\n"
               "| task · optim | s | dₖ | score std: first | last | ‖∂L/∂S_row‖ median: first | last | "
               "‖J‖ median: last | H/log n: last | ‖∇Wq‖: first | runs with NaN steps |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n", st->name);
    for (int i = st->from; i < st->to; i = cells_group_end(cs, i, KEYS_DK)) {
        const Row *k = cell_row(&cs->cell[i]);
        const Cell *c = cells_best_of(cs, i, cells_group_end(cs, i, KEYS_DK));
        if (!c) continue;
        int with_nan = 0, done = 0;
        for (int r = 0; r < c->n; r++)
            if (c->runs[r]->done) {
                done++;
                with_nan += c->runs[r]->value[M_NAN_COUNT] > 0;
            }
        static const int metrics[] = {M_STD_INIT, M_STD_END, M_QGRAD_INIT, M_QGRAD_END, M_JAC_END, M_ENTROPY_END, M_WQ_GRAD_INIT};
        fprintf(f, "| %s · %s", k->job[JOB_TASK], k->job[JOB_OPTIM]);
        if (strcmp(k->job[JOB_VARIANT], "-")) fprintf(f, " · `%s`", k->job[JOB_VARIANT]);
        fprintf(f, " | %s | %s |", scale_label(k->job[JOB_SCALE], SCALE_MARKDOWN), k->job[JOB_DK]);
        for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
            double v = cell_median(c, metrics[m]);
            if (isfinite(v)) fprintf(f, " %.3g |", v);
            else fprintf(f, " – |"); /* no run of the cell logged it */
        }
        fprintf(f, " %d of %d |\n", with_nan, done);
    }
}

/* ------------------------------------------------------------------ summary.md */

/* (d): the runs per stage, the binomial error of one accuracy, and the missing runs' count. */
static void runs_section(FILE *f, const Cells *cs, const Row *rows, int n_rows)
{
    fprintf(f, "\n## Runs\n\n\"With NaN steps\": done runs in which some step's loss, gradients or weights were NaN "
               "or Inf (nan_count > 0; with --nan=continue such a step's update is skipped and the run goes on).\n\n"
               "| stage | planned | done | missing | with NaN steps |\n|---|---:|---:|---:|---:|\n");
    int planned = 0, done = 0, with_nan = 0;
    for (int k = 0; k < cs->n_stages; k++) {
        int a = cs->stage_from[k], b = cs->stage_from[k + 1], p = 0, d = 0, w = 0;
        for (int i = a; i < b; i++) {
            p += cs->cell[i].n;
            d += cs->cell[i].done;
            for (int r = 0; r < cs->cell[i].n; r++) w += cs->cell[i].runs[r]->done && cs->cell[i].runs[r]->value[M_NAN_COUNT] > 0;
        }
        fprintf(f, "| %s | %d | %d | %d | %d |\n", cell_row(&cs->cell[a])->job[JOB_STAGE], p, d, p - d, w);
        planned += p;
        done += d;
        with_nan += w;
    }
    fprintf(f, "| all | %d | %d | %d | %d |\n\n", planned, done, planned - done, with_nan);
    double n_min = INFINITY, n_max = 0, p_sum = 0;
    int n_p = 0;
    for (int i = 0; i < n_rows; i++) {
        const Row *r = &rows[i];
        if (!r->done) continue;
        double n = r->value[M_TEST_EXAMPLES];
        if (isfinite(n) && n >= 1) {
            n_min = fmin(n_min, n);
            n_max = fmax(n_max, n);
        }
        if (isfinite(r->value[M_TEST_ACC])) {
            p_sum += r->value[M_TEST_ACC];
            n_p++;
        }
    }
    if (isfinite(n_min)) {
        double p = n_p ? p_sum / n_p : NAN;
        int n = (int)n_min;
        fprintf(f, "Binomial standard error of one run's test accuracy, sqrt(p(1 − p)/N), ");
        if (n_min == n_max) fprintf(f, "N = %d test examples", n);
        else fprintf(f, "N = %.0f to %.0f test examples (the worst case, N = %d, below)", n_min, n_max, n);
        fprintf(f, ": at most %.4f (p = 0.5)", stats_binomial_se(0.5, n));
        if (n_p) fprintf(f, "; %.4f at the mean test accuracy of the done runs (p = %.3f)", stats_binomial_se(p, n), p);
        fprintf(f, ".\n");
    } else {
        fprintf(f, "Binomial standard error of one run's test accuracy: no done run gives its test_examples.\n");
    }
    fprintf(f, "Missing runs: %d of %d planned%s.\n", planned - done, planned, planned > done ? " (listed at the end)" : "");
}

static void missing_section(FILE *f, const Row *rows, int n_rows)
{
    int missing = 0;
    for (int i = 0; i < n_rows; i++) missing += !rows[i].done;
    if (!missing) return;
    fprintf(f, "\n## Missing runs\n\nPlanned but not done (%d), by id:\n\n", missing);
    for (int i = 0; i < n_rows; i++) /* rows are in id order */
        if (!rows[i].done) fprintf(f, "- `%s` (stage %s)\n", rows[i].job[JOB_ID], rows[i].job[JOB_STAGE]);
}

void write_summary(const char *dir, const Cells *cs, const Row *rows, int n_rows)
{
    OutFile o;
    FILE *f = out_open(&o, dir, "summary.md");
    fprintf(f, "# Scale ablation: summary\n\n"
               "Generated by `./report` from runs.csv alone (`./report --runs runs.csv` makes this file again, byte for "
               "byte): no number here is typed in. Accuracy is the exact-match accuracy of greedy decoding. Learning "
               "rates are chosen on the validation split; every other table reports the separate test split.\n\n"
               "- `0.712 ± 0.031 (n=5)`: the mean test accuracy over n seeds ± its 95 %% confidence interval, "
               "t₀.₉₇₅,ₙ₋₁ · sd / √n (Student t, n − 1 degrees of freedom); n = 1 has no interval; \"k missing\": "
               "planned runs of the cell that are not done.\n"
               "- †: at the ceiling, a mean ≥ %.2f (within 1 %% of 100 %%), where no difference can show.\n"
               "- a − b: the paired difference, seed by seed (a_seed − b_seed over the seeds both have): its mean ± its "
               "95 %% CI, uncorrected and descriptive: \"CI above 0\", \"CI below 0\" or \"CI spans 0 (n = k)\" say "
               "only where that one interval lies. They are no verdicts: the verdicts (each pre-registered contrast "
               "by its own test, corrected for the number of contrasts, with its minimum detectable difference) "
               "are in outcomes.md. "
               "Each side at its learning rate of the highest mean validation accuracy (in stage `%s`: the chosen "
               "rate). A stage in brackets: b comes from that stage (the one sharing the most seeds with a), this one "
               "having no such cell.\n", CEILING, LR_STAGE);
    runs_section(f, cs, rows, n_rows);
    /* the stages in order (lr, headline, then by name): the sweep if the stage has one, its
     * test accuracies (not for lr, whose runs chose the rates), its comparisons */
    for (int k = 0; k < cs->n_stages; k++) {
        Stage st = {cs, cs->stage_from[k], cs->stage_from[k + 1], cell_row(&cs->cell[cs->stage_from[k]])->job[JOB_STAGE]};
        lr_sweep_tables(f, &st);
        chosen_rates_table(f, &st);
        overview_table(f, &st);
        inside_table(f, &st);
        if (strcmp(st.name, LR_STAGE)) accuracy_tables(f, &st);
        nonfinite_table(f, &st);
        learned_scale_table(f, &st);
        scale_comparisons(f, &st);
        variant_comparisons(f, &st);
    }
    missing_section(f, rows, n_rows);
    out_close(&o);
}
