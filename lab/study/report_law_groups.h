/* report_law_groups.h - the law experiment's runs as ./report reads them (report_law.h says
 * what is computed): grouped by (stage, steps, rate), and per init c* of each seed at each dk,
 * the median sigma0, alpha per seed and alpha_pred. Used by report_law.c (law.md) and
 * report_law_figure.c (law.svg). */
#ifndef STUDY_REPORT_LAW_GROUPS_H
#define STUDY_REPORT_LAW_GROUPS_H

#include "report_rows.h"

#include <stdbool.h>
#include <stddef.h>

enum { LAW_INITS = 2, LAW_MAX_DK = 16, LAW_MAX_SEEDS = 128, LAW_MAX_GROUPS = 32, LAW_NO_C = -1000, LAW_BOOTSTRAP = 10000 };
extern const char *const g_law_inits[LAW_INITS]; /* "unit", "xavier": qk-init=... */

/* The runs of one stage at one budget (steps, rate), and what is computed from them per init. */
typedef struct LawGroup {
    const char *stage, *lr_text;
    int steps;
    double lr;
    int init_n[LAW_INITS];                              /* runs per init */
    double dks[LAW_MAX_DK];
    int nd;
    long seeds[LAW_MAX_SEEDS];
    int ns;
    int kstar[LAW_INITS][LAW_MAX_DK][LAW_MAX_SEEDS];    /* c* = 2^kstar; LAW_NO_C: none (no c learned, or no run) */
    int learned[LAW_INITS][LAW_MAX_DK][LAW_MAX_SEEDS];  /* c that reached the threshold */
    int ran[LAW_INITS][LAW_MAX_DK][LAW_MAX_SEEDS];      /* c run (done) */
    int missing[LAW_INITS][LAW_MAX_DK][LAW_MAX_SEEDS];  /* c planned, not done (yet) */
    double tstar[LAW_INITS][LAW_MAX_DK][LAW_MAX_SEEDS]; /* the steps of c* */
    double sigma0[LAW_INITS][LAW_MAX_DK];               /* median over runs */
    double alpha[LAW_INITS][LAW_MAX_SEEDS];             /* per seed; NAN with fewer than 3 dk */
    double alpha_pred[LAW_INITS];
} LawGroup;

/* The groups of the done runs of the law's stages (cal, law, robust), sorted by stage, steps,
 * rate, with their estimates; returns how many (0: none). Dies (exit 2) on a law run whose
 * variant or scale is not the design's. */
int law_groups_build(LawGroup *gs, const Row *rows, int n_rows);
/* The median of the defined k* over the seeds of one (init, dk), and its 95 % percentile
 * bootstrap interval (LAW_BOOTSTRAP resamples of those seeds, a fixed stream); returns how
 * many seeds are defined (NAN for what they cannot give). */
int law_median_kstar(const LawGroup *g, int init, int d, double *median, double *lo, double *hi);
/* The alpha_i of one init that are defined, into a; returns how many. */
int law_defined_alphas(const LawGroup *g, int init, double *a);

#endif
