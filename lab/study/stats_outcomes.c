/* stats_outcomes.c - see stats_outcomes.h. */
#include "stats_outcomes.h"

#include "stats.h"

#include "../../tensor/base.h"
#include "../../tensor/rng.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define Z975 1.959963984540054 /* z_{0.975} */

/* ------------------------------------------------------------------ success counts */

StatsInterval stats_wilson(int k, int n)
{
    StatsInterval w = {NAN, NAN, NAN};
    if (n < 1 || k < 0 || k > n) return w;
    double z2 = Z975 * Z975, centre = (k + z2 / 2) / (n + z2);
    double half = Z975 / (n + z2) * sqrt((double)k * (n - k) / n + z2 / 4);
    w.est = (double)k / n;
    w.lo = fmax(0, centre - half); /* rounding aside, the bounds are inside [0, 1] */
    w.hi = fmin(1, centre + half);
    if (k == 0) w.lo = 0;
    if (k == n) w.hi = 1;
    return w;
}

StatsInterval stats_newcombe(int ka, int na, int kb, int nb)
{
    StatsInterval a = stats_wilson(ka, na), b = stats_wilson(kb, nb), d = {NAN, NAN, NAN};
    if (isnan(a.est) || isnan(b.est)) return d;
    d.est = a.est - b.est;
    d.lo = d.est - sqrt((a.est - a.lo) * (a.est - a.lo) + (b.hi - b.est) * (b.hi - b.est));
    d.hi = d.est + sqrt((a.hi - a.est) * (a.hi - a.est) + (b.est - b.lo) * (b.est - b.lo));
    return d;
}

/* log C(n, k) = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) */
static double log_choose(int n, int k) { return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0); }

double stats_fisher(int ka, int na, int kb, int nb)
{
    if (na < 1 || nb < 1 || ka < 0 || ka > na || kb < 0 || kb > nb) return NAN;
    int k = ka + kb, n = na + nb, lo = k - nb > 0 ? k - nb : 0, hi = k < na ? k : na;
    /* log P(x) = log C(K, x) + log C(N - K, na - x) - log C(N, na) */
    double base = log_choose(n, na), obs = exp(log_choose(k, ka) + log_choose(n - k, na - ka) - base), p = 0;
    for (int x = lo; x <= hi; x++) {
        double px = exp(log_choose(k, x) + log_choose(n - k, na - x) - base);
        if (px <= obs * (1 + 1e-7)) p += px;
    }
    return fmin(1, p);
}

/* ------------------------------------------------------------------ paired permutation test */

double stats_sign_flip(const double *d, int n, bool *exact)
{
    if (exact) *exact = n <= STATS_EXACT_FLIPS_MAX;
    if (n < 1) return NAN;
    double obs = 0, scale = 0;
    for (int i = 0; i < n; i++) {
        obs += d[i];
        scale += fabs(d[i]);
    }
    double reach = fabs(obs) - 1e-9 * scale; /* |sum| >= |observed sum|, ties included */
    if (n <= STATS_EXACT_FLIPS_MAX) {
        long hits = 0, total = 1L << n;
        for (long mask = 0; mask < total; mask++) { /* bit i set: d_i flipped */
            double s = 0;
            for (int i = 0; i < n; i++) s += (mask >> i & 1) ? -d[i] : d[i];
            hits += fabs(s) >= reach;
        }
        return (double)hits / (double)total;
    }
    /* the cost bounded: at most STATS_FLIP_WORK sign flips in all (200000 draws up to n = 1000,
     * fewer beyond, never fewer than STATS_FLIP_MIN_DRAWS) */
    long draws = STATS_FLIP_WORK / n;
    draws = draws > STATS_FLIP_DRAWS ? STATS_FLIP_DRAWS : draws < STATS_FLIP_MIN_DRAWS ? STATS_FLIP_MIN_DRAWS : draws;
    Rng flips = {0x5EED5EED5EED5EEDull}; /* a fixed seed: the report's bytes never change */
    long hits = 0;
    for (long r = 0; r < draws; r++) {
        double s = 0;
        uint64_t bits = 0;
        for (int i = 0; i < n; i++) {
            if (i % 64 == 0) bits = rng_next(&flips);
            s += (bits >> (i % 64) & 1) ? -d[i] : d[i];
        }
        hits += fabs(s) >= reach;
    }
    return (1.0 + (double)hits) / (1.0 + (double)draws); /* the observed signs count as one draw: p > 0 */
}

/* ------------------------------------------------------------------ many tests */

static const double *g_sort_p; /* what cmp_p_index compares (qsort has no context argument) */

static int cmp_p_index(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    if (g_sort_p[a] != g_sort_p[b]) return g_sort_p[a] < g_sort_p[b] ? -1 : 1;
    return a - b; /* equal p: the order given, so the result never depends on qsort */
}

/* The indices of the tests (p not NaN), in ascending order of p; returns how many. */
static int sorted_tests(const double *p, int m, int *order)
{
    int k = 0;
    for (int i = 0; i < m; i++)
        if (!isnan(p[i])) order[k++] = i;
    g_sort_p = p;
    qsort(order, (size_t)k, sizeof(int), cmp_p_index);
    return k;
}

void stats_holm(const double *p, int m, double *adj)
{
    int *order = mem_alloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    int k = sorted_tests(p, m, order);
    for (int i = 0; i < m; i++) adj[i] = NAN;
    double run = 0; /* max_{j <= i} (k - j + 1) p_(j), j counted from 1 */
    for (int j = 0; j < k; j++) {
        run = fmax(run, (k - j) * p[order[j]]);
        adj[order[j]] = fmin(1, run);
    }
    mem_free(order);
}

void stats_bh(const double *p, int m, double *adj)
{
    int *order = mem_alloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    int k = sorted_tests(p, m, order);
    for (int i = 0; i < m; i++) adj[i] = NAN;
    double run = 1; /* min_{j >= i} k p_(j) / j */
    for (int j = k - 1; j >= 0; j--) {
        run = fmin(run, k * p[order[j]] / (j + 1));
        adj[order[j]] = run;
    }
    mem_free(order);
}

/* The threshold each test's own p meets in the step-down (Holm) or step-up (BH) procedure: the
 * alpha that test is judged at (stats_power.h). */
static void judged_alpha(const double *p, int m, double level, bool holm, double *alpha)
{
    int *order = mem_alloc(sizeof(int) * (size_t)(m > 0 ? m : 1));
    int k = sorted_tests(p, m, order);
    for (int i = 0; i < m; i++) alpha[i] = NAN;
    for (int j = 0; j < k; j++) alpha[order[j]] = holm ? level / (k - j) : level * (j + 1) / k;
    mem_free(order);
}

void stats_holm_alpha(const double *p, int m, double level, double *alpha) { judged_alpha(p, m, level, true, alpha); }
void stats_bh_alpha(const double *p, int m, double level, double *alpha) { judged_alpha(p, m, level, false, alpha); }

/* ------------------------------------------------------------------ steps to a threshold */

/* A run's time, its group (0: a, 1: b) and whether it reached the threshold. */
typedef struct TimedRun {
    double t;
    int group;
    bool event;
} TimedRun;

static int cmp_timed(const void *x, const void *y)
{
    const TimedRun *a = x, *b = y;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    if (a->event != b->event) return a->event ? -1 : 1; /* at one time: events, then censorings */
    return a->group - b->group;
}

/* The runs of both groups in one sorted list (nb = 0 for one group). */
static TimedRun *timed_runs(const double *ta, const bool *ea, int na, const double *tb, const bool *eb, int nb)
{
    TimedRun *r = mem_alloc(sizeof(TimedRun) * (size_t)(na + nb));
    for (int i = 0; i < na; i++) r[i] = (TimedRun){ta[i], 0, ea[i]};
    for (int i = 0; i < nb; i++) r[na + i] = (TimedRun){tb[i], 1, eb[i]};
    qsort(r, (size_t)(na + nb), sizeof(TimedRun), cmp_timed);
    return r;
}

int stats_km_curve(const double *time, const bool *event, int n, double *t_out, double *s_out)
{
    TimedRun *r = timed_runs(time, event, n, NULL, NULL, 0);
    double s = 1;
    int m = 0;
    for (int i = 0; i < n;) {
        int j = i, d = 0;
        while (j < n && r[j].t == r[i].t) d += r[j++].event; /* the runs at this time */
        if (d > 0) {
            s *= 1 - (double)d / (n - i); /* n - i runs at risk: every run from this time on */
            t_out[m] = r[i].t;
            s_out[m++] = s;
        }
        i = j;
    }
    mem_free(r);
    return m;
}

StatsKm stats_km_median(const double *time, const bool *event, int n)
{
    StatsKm km = {NAN, 0, 0};
    double *t = mem_alloc(sizeof(double) * (size_t)(n + 1)), *s = mem_alloc(sizeof(double) * (size_t)(n + 1));
    int m = stats_km_curve(time, event, n, t, s);
    for (int k = 0; k < m && isnan(km.median); k++)
        if (s[k] <= 0.5 + 1e-12) km.median = t[k];
    for (int i = 0; i < n; i++) km.events += event[i];
    km.censored = n - km.events;
    mem_free(t);
    mem_free(s);
    return km;
}

/* The log-rank sums of group a: observed events, expected events, and the variance. */
static void logrank_sums(const double *ta, const bool *ea, int na, const double *tb, const bool *eb, int nb, double *o_out,
                         double *e_out, double *v_out)
{
    int n = na + nb;
    TimedRun *r = timed_runs(ta, ea, na, tb, eb, nb);
    double o_a = 0, e_a = 0, v = 0;
    int at_risk_a = na, at_risk_b = nb;
    for (int i = 0; i < n;) {
        int j = i, d = 0, d_a = 0, gone_a = 0;
        while (j < n && r[j].t == r[i].t) {
            d += r[j].event;
            d_a += r[j].event && r[j].group == 0;
            gone_a += r[j].group == 0;
            j++;
        }
        double risk = at_risk_a + at_risk_b;
        if (d > 0) {
            o_a += d_a;
            e_a += d * at_risk_a / risk;
            if (risk > 1) v += (double)at_risk_a * at_risk_b * d * (risk - d) / (risk * risk * (risk - 1));
        }
        at_risk_a -= gone_a;
        at_risk_b -= (j - i) - gone_a;
        i = j;
    }
    mem_free(r);
    *o_out = o_a;
    *e_out = e_a;
    *v_out = v;
}

double stats_logrank(const double *ta, const bool *ea, int na, const double *tb, const bool *eb, int nb)
{
    double o_a, e_a, v;
    logrank_sums(ta, ea, na, tb, eb, nb, &o_a, &e_a, &v);
    if (!(v > 0)) return NAN;
    double chi2 = (o_a - e_a) * (o_a - e_a) / v;
    return erfc(sqrt(chi2 / 2));
}

double stats_logrank_excess(const double *ta, const bool *ea, int na, const double *tb, const bool *eb, int nb)
{
    double o_a, e_a, v;
    logrank_sums(ta, ea, na, tb, eb, nb, &o_a, &e_a, &v);
    return o_a - e_a;
}
