/* report_law_groups.h - the law experiment's runs as ./report reads them (report_law.h says
 * what is computed): grouped by (stage, steps, rate), and per init c* of each seed at each dk,
 * the median sigma0, alpha per seed and alpha_pred. Used by report_law.c (law.md) and
 * report_law_figure.c (law.svg). */
#ifndef STUDY_REPORT_LAW_GROUPS_H
#define STUDY_REPORT_LAW_GROUPS_H

#include "report_rows.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { LAW_INITS = 2, LAW_MAX_DK = 16, LAW_MAX_C = 16, LAW_MAX_SEEDS = 128, LAW_MAX_GROUPS = 32, LAW_NO_C = -1000, LAW_BOOTSTRAP = 10000 };
extern const char *const g_law_inits[LAW_INITS]; /* "unit", "xavier": qk-init=... */

/* The done runs of one (init, dk, c) over the seeds: success and time to learn against c. */
typedef struct LawCell {
    int runs, learned;    /* learned: reached the loss threshold within the budget */
    int tested, successes; /* runs with a test accuracy, and those at or above the task's threshold */
    double km_median;     /* Kaplan-Meier median steps to learn; NAN: not reached (or no run) */
    double sigma0;        /* median raw q.k std at step 1 */
    double entropy_end;   /* median attention entropy / log(keys) at the last step */
} LawCell;

/* The runs of one stage at one budget (steps, rate), and what is computed from them per init. */
typedef struct LawGroup {
    const char *stage, *task, *lr_text; /* one task per group (another dies) */
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
    double alpha_pred_seed[LAW_INITS][LAW_MAX_SEEDS];   /* the same from one seed's runs (its spread) */
    int ks[LAW_MAX_C];                                  /* the c = 2^k run, ascending */
    int nk;
    LawCell cell[LAW_INITS][LAW_MAX_DK][LAW_MAX_C];     /* per (init, dk, c) */
    int twin_pairs[LAW_MAX_DK], twin_same[LAW_MAX_DK];  /* runs of both inits at one (c, seed), and those alike in every number but the time */
} LawGroup;

/* The groups of the done runs of the law's stages (cal, law, robust), sorted by stage, steps,
 * rate, with their estimates; returns how many (0: none). Dies (exit 2) on a law run whose
 * variant or scale is not the design's. */
int law_groups_build(LawGroup *gs, const Row *rows, int n_rows);
/* The median of the defined k* over the seeds of one (init, dk), and its 95 % percentile
 * bootstrap interval (LAW_BOOTSTRAP resamples of those seeds, a fixed stream); returns how
 * many seeds are defined (NAN for what they cannot give). */
int law_median_kstar(const LawGroup *g, int init, int d, double *median, double *lo, double *hi);
/* Seed s's alpha under one init from its c* at the given dk only (those the group has): minus
 * the least-squares slope of log2 s* on log2 dk; NAN with fewer than 3 c* there, or while some
 * run there is planned and not done. The group's alpha[init][s] is this at all its dk. */
double law_alpha_at(const LawGroup *g, int init, int s, const double *dks, int nd);
/* c = 2^k as text: "1/4", "1", "8", "2^-2.5" for a median between two powers, "–" for NAN. */
void law_c_text(char *buf, size_t n, double k);
/* A paragraph naming the dk at which the two inits' runs are twins (twin_pairs, twin_same), so a
 * reader does not take two identical tables for a slip: the inits are one init there (the same
 * weights), and both inits' alpha use those runs; nothing when no pair is alike. */
void law_write_twins(FILE *f, const LawGroup *g);
/* The alpha_i of one init that are defined, into a; returns how many. */
int law_defined_alphas(const LawGroup *g, int init, double *a);

/* The seeds the experiment needs (DESIGN.md, "Seeds, sized by exact power"). */
#define LAW_FAMILY_ALPHA 0.05 /* the six tests' family-wise level (Holm) */
#define LAW_DELTA 0.5         /* the |alpha - alpha0| the seeds are sized for */
#define LAW_SD_FLOOR 0.25     /* the least sd of alpha_i assumed in sizing */
/* The spread of alpha between the two calibration seeds of a cal group under one init,
 * |alpha_1 - alpha_2| / sqrt 2; NAN unless exactly two seeds have an alpha. */
double law_seed_spread(const LawGroup *cal, int init);
/* The least n >= 5 at which the two-sided one-sample t test at LAW_FAMILY_ALPHA / 6 (Holm's
 * first step) has power 0.8 against LAW_DELTA (exact, noncentral t), the sd being the larger
 * of LAW_SD_FLOOR and the spreads of a cal group (into *sd). */
int law_seeds_needed(const LawGroup *cal, double *sd);
/* The seeds planned for a stage-law group: law_seeds_needed of the calibration at its budget
 * (stage cal, the same steps and rate, 3 dk or more); 0 for another stage, or when the runs
 * hold no such calibration. With fewer seeds done, the group is an interim look. */
int law_seeds_planned(const LawGroup *gs, int ng, const LawGroup *g);

#endif
