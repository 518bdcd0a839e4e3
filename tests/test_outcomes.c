/* test_outcomes.c - ./report's outcome analysis (lab/study/report_outcomes.c) on a fixture runs.csv
 * (tests/fixtures/outcomes_runs.csv) built so that every count, p-value and verdict below can be
 * worked out by hand; and docs/ablation/DESIGN.md quoting the outcome table as it is in code.
 * Links ./report's parts (lab/study/), not the trainer's. Run from the top of the tree. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "test.h"

#include "../lab/study/report_cells.h"
#include "../lab/study/report_common.h"
#include "../lab/study/report_io.h"
#include "../lab/study/report_outcomes.h"
#include "../lab/study/stats_power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool near(double a, double b, double tol) { return fabs(a - b) <= tol; }

/* The fixture's contrasts, read once. */
static Row *g_rows;
static int g_n_rows, g_n;
static Cells g_cells;
static OutcomeContrast *g_v;

static void load(void)
{
    if (g_v) return;
    read_runs_csv("tests/fixtures/outcomes_runs.csv", &g_rows, &g_n_rows);
    cells_build(&g_cells, g_rows, g_n_rows);
    g_n = outcome_contrasts(&g_cells, &g_v);
}

/* The contrast of (task, dk, a's scale, b's scale, primary?) among v[0 .. n), or NULL. */
static const OutcomeContrast *find_in(const OutcomeContrast *v, int n, const char *task, double dk, const char *a, const char *b,
                                      bool primary)
{
    for (int i = 0; i < n; i++) {
        const OutcomeContrast *c = &v[i];
        if (!strcmp(c->task->task, task) && c->dk == dk && !strcmp(c->a.scale, a) && !strcmp(c->b.scale, b) && c->primary == primary)
            return c;
    }
    return NULL;
}

/* The same among the fixture's contrasts. */
static const OutcomeContrast *find(const char *task, double dk, const char *a, const char *b, bool primary)
{
    return find_in(g_v, g_n, task, dk, a, b, primary);
}

static void test_verdict_rule(void)
{
    CHECK(outcome_verdict(0.01, 0.2) == OUTCOME_HIGHER && outcome_verdict(0.01, -0.2) == OUTCOME_LOWER, "p 0.01: the sign");
    CHECK(outcome_verdict(0.05, 0.2) == OUTCOME_NOT_DISTINCT, "p = 0.05 exactly is not below 0.05");
    CHECK(outcome_verdict(0.0625, -0.15) == OUTCOME_NOT_DISTINCT, "p 0.0625: not distinguishable");
    CHECK(outcome_verdict(0.01, 0) == OUTCOME_NOT_DISTINCT, "no effect: no direction");
    CHECK(outcome_verdict(NAN, 0.2) == OUTCOME_NO_TEST && outcome_verdict(0.01, NAN) == OUTCOME_NO_TEST, "NaN: no test");
}

static void test_cells(void)
{
    load();
    /* lookup 1/sqrt(dk) at dk 64: 10 of 10 at 0.98 (the sweep's seed 99 is not counted); Wilson
     * [10 / (10 + z^2), 1] = [0.722467, 1]; loss threshold at steps 100 .. 1000: S falls by 1/10 a
     * step and reaches 1/2 at the 5th, 500 */
    const OutcomeContrast *c = find("lookup", 64, "1", "sqrt", true);
    CHECK(c && c->ca && c->cb, "lookup 1 - 1/sqrt(dk) found, both cells");
    if (!c || !c->ca || !c->cb) return;
    CHECK(c->ob.n == 10 && c->ob.successes == 10, "1/sqrt(dk): %d of %d (want 10 of 10)", c->ob.successes, c->ob.n);
    CHECK(near(c->ob.wilson.lo, 0.722467, 1e-6) && c->ob.wilson.hi == 1, "Wilson [%.6f, %g]", c->ob.wilson.lo, c->ob.wilson.hi);
    CHECK(c->ob.km.median == 500 && c->ob.km.events == 10, "KM median %g (want 500)", c->ob.km.median);
    CHECK(c->oa.n == 10 && c->oa.successes == 0 && isnan(c->oa.km.median) && c->oa.km.censored == 10,
          "s = 1: 0 of 10, never at the threshold: not reached");
}

/* A run at the threshold exactly succeeds (>=), one just below does not; runs not done, or without
 * a test accuracy, are not counted. Built by hand, apart from the fixture. */
static void test_success_at_the_threshold(void)
{
    Row r[5];
    memset(r, 0, sizeof r);
    double acc[5] = {0.5, 0.49999, 0.75, NAN, 0.9};
    const Row *runs[5];
    for (int i = 0; i < 5; i++) {
        for (int m = 0; m < N_METRICS; m++) r[i].value[m] = NAN;
        r[i].done = i != 4; /* the last: planned, not done */
        r[i].value[M_TEST_ACC] = acc[i];
        r[i].value[M_STEPS] = 1000;
        r[i].value[M_STEPS_TO_THRESHOLD] = -1;
        runs[i] = &r[i];
    }
    Cell c = {.runs = runs, .n = 5};
    OutcomeTask t = {.task = "hand", .threshold = 0.5};
    OutcomeCell o = outcome_cell(&c, &t);
    CHECK(o.n == 3 && o.successes == 2, "0.5 (= threshold), 0.49999, 0.75: %d of %d succeed (want 2 of 3)", o.successes, o.n);
}

/* The fixture, each line through edit(line): false drops it (it may change the line in place);
 * written as test file `name`, whose path is returned (NULL when the fixture cannot be read). */
static const char *fixture_edited(const char *name, bool (*edit)(char *line))
{
    FILE *f = fopen("tests/fixtures/outcomes_runs.csv", "rb");
    if (!f) return NULL;
    static char text[1 << 16], out[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, f), used = 0;
    fclose(f);
    text[n] = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (edit(line)) used += (size_t)snprintf(out + used, sizeof out - used, "%s\n", line);
    return test_write_file(name, out, used);
}

/* s = 1's seeds 7-10 left out (a: 0 of 6), 1/sqrt(dk)'s seed 1 failed (b: 9 of 10) */
static bool unequal_groups(char *line)
{
    for (int seed = 7; seed <= 10; seed++) {
        char id[64];
        snprintf(id, sizeof id, "headline_lookup_s-1_dk64_seed%d,", seed);
        if (!strncmp(line, id, strlen(id))) return false;
    }
    char *acc = strstr(line, ",0.9800,0.5,0.9800,");
    if (!strncmp(line, "headline_lookup_s-sqrt_dk64_seed1,", 34) && acc) memcpy(acc, ",0.0500,0.5,0.0500,", 19);
    return true;
}

/* The MDD of a Fisher contrast with unequal groups, around b's rate (the reference), with each
 * group's own n, at the alpha the contrast is judged at (its Holm step): the fixture with s = 1's
 * seeds 7-10 left out (a: 0 of 6) and one 1/sqrt(dk) run failed (b: 9 of 10). The wrong choices
 * give other numbers (checked too: the test can fail): equal groups of 10, a's rate, 0, and an
 * uncorrected 0.05. */
static void test_mdd_of_unequal_groups(void)
{
    const char *path = fixture_edited("unequal_runs.csv", unequal_groups);
    if (!CHECK(path != NULL, "the fixture")) return;
    Row *rows;
    int n_rows;
    read_runs_csv(path, &rows, &n_rows);
    Cells cs;
    cells_build(&cs, rows, n_rows);
    OutcomeContrast *v;
    int nv = outcome_contrasts(&cs, &v);
    const OutcomeContrast *c = find_in(v, nv, "lookup", 64, "1", "sqrt", true);
    if (CHECK(c && c->ca && c->cb, "lookup 1 - 1/sqrt(dk) at dk 64")) {
        double want = stats_mdd_fisher(0.9, 6, 10, c->alpha, -1);
        CHECK(c->oa.n == 6 && c->oa.successes == 0 && c->ob.n == 10 && c->ob.successes == 9, "a %d of %d, b %d of %d (want 0 of 6, 9 of 10)",
              c->oa.successes, c->oa.n, c->ob.successes, c->ob.n);
        CHECK(c->alpha > 0 && c->alpha < 0.05, "judged at a corrected alpha: %g", c->alpha);
        CHECK(c->n_mdd == 6 && c->mdd_down == want && isfinite(want), "MDD below %.6f at n = %d, want MDD(0.9; 6, 10) = %.6f", c->mdd_down,
              c->n_mdd, want);
        CHECK(want != stats_mdd_fisher(0.9, 10, 10, c->alpha, -1) && want != stats_mdd_fisher(0, 6, 10, c->alpha, 1) &&
                  want != stats_mdd_fisher(0.9, 6, 10, 0.05, -1),
              "the wrong choices give other values");
    }
    mem_free(v);
    cells_free(&cs);
    free_rows(rows, n_rows);
}

/* every headline run of lookup's 1/sqrt(dk) at dk 64 left out */
static bool without_b_headline(char *line) { return strncmp(line, "headline_lookup_s-sqrt_dk64_", 28) != 0; }

/* The sweep's runs are no test runs: with every headline run of lookup's 1/sqrt(dk) at dk 64 left
 * out, only its sweep run (seed 99) is there, and the contrast has no b (it must not take the
 * sweep's one run as the cell). */
static void test_sweep_runs_are_not_test_runs(void)
{
    const char *path = fixture_edited("no_b_runs.csv", without_b_headline);
    if (!CHECK(path != NULL, "the fixture")) return;
    Row *rows;
    int n_rows;
    read_runs_csv(path, &rows, &n_rows);
    Cells cs;
    cells_build(&cs, rows, n_rows);
    OutcomeSide b = {"-", "sqrt"};
    CHECK(outcome_find(&cs, "lookup", "adamw", &b, 64) == NULL, "lookup 1/sqrt(dk) at dk 64: only a sweep run, no test cell");
    cells_free(&cs);
    free_rows(rows, n_rows);
}

static void test_primaries_holm(void)
{
    load();
    /* tested primaries: lookup 1 - sqrt (Fisher, 0/10 vs 10/10: p = 2 / C(20, 10) = 1.0825e-5),
     * reverse 1 - sqrt and reverse dk - sqrt (sign-flip, six differences of one sign: p = 2/64 = 0.03125).
     * Holm over m = 3: 3 x 1.0825e-5; max(2 x 0.03125, 1 x 0.03125) = 0.0625 for both reverse contrasts. */
    int tested = 0, planned = 0;
    for (int i = 0; i < g_n; i++)
        if (g_v[i].primary) {
            planned++;
            tested += !isnan(g_v[i].p);
        }
    CHECK(planned == g_n_outcome_tasks * g_n_primary_contrasts && tested == 3, "%d primaries planned, %d tested (want 3)", planned, tested);
    const OutcomeContrast *l = find("lookup", 64, "1", "sqrt", true), *s1 = find("reverse", 64, "1", "sqrt", true),
                          *sd = find("reverse", 64, "dk", "sqrt", true);
    CHECK(l && s1 && sd, "the three tested primaries");
    if (!l || !s1 || !sd) return;
    CHECK(near(l->p, 2 / 184756.0, 1e-15) && near(l->p_corrected, 6 / 184756.0, 1e-15) && l->verdict == OUTCOME_LOWER,
          "lookup: p %.4g -> Holm %.4g, lower", l->p, l->p_corrected);
    CHECK(near(l->rate_diff.est, -1, 1e-15), "lookup: success rates 0 - 1");
    /* reverse 1 - sqrt: differences -0.10 .. -0.20, mean -0.15: raw 0.03125 < 0.05, Holm 0.0625: not
     * distinguishable. Its Holm step is the second of three (the two reverse p's tie; the table's
     * order ranks it first of them), alpha 0.05 / 2 = 0.025, below the smallest p six pairs can give
     * (2/64): no difference is detectable, MDD none. */
    CHECK(near(s1->p, 0.03125, 1e-12) && near(s1->p_corrected, 0.0625, 1e-12), "reverse 1: p %g -> Holm %g", s1->p, s1->p_corrected);
    CHECK(s1->verdict == OUTCOME_NOT_DISTINCT && near(s1->alpha, 0.025, 1e-15) && isnan(s1->mdd_up) && isnan(s1->mdd_down) &&
              s1->diff.n == 6 && near(s1->diff.mean, -0.15, 1e-9),
          "reverse 1: not distinguishable at alpha %g, MDD %g, mean %.4f over %d pairs", s1->alpha, s1->mdd_up, s1->diff.mean, s1->diff.n);
    char text[128];
    outcome_verdict_text(text, sizeof text, s1);
    CHECK(!strcmp(text, "not distinguishable (MDD: none either way at n = 6, α 0.025)"), "the words: \"%s\"", text);
    /* reverse dk - sqrt, the third step, alpha 0.05: six pairs reject only when all six have one
     * sign (p = 2/64; one flip already gives 4/64 > 0.05), so power = Phi(s)^6 + Phi(-s)^6 at a shift
     * of s sd: the MDD is sd times that function's 0.8 root (simulated: within 0.03 sd) */
    double lo = 0, hi = 10;
    for (int it = 0; it < 60; it++) {
        double mid = (lo + hi) / 2, up = 0.5 * erfc(-mid / sqrt(2.0)), down = 1 - up;
        if (pow(up, 6) + pow(down, 6) >= 0.8) hi = mid;
        else lo = mid;
    }
    CHECK(near(sd->alpha, 0.05, 1e-15) && sd->sd_pairs > 0 && fabs(sd->mdd_up / sd->sd_pairs - hi) < 0.03 && sd->mdd_down == sd->mdd_up,
          "reverse dk: alpha %g, MDD %.4f = %.4f sd, want %.4f sd", sd->alpha, sd->mdd_up, sd->mdd_up / sd->sd_pairs, hi);
    outcome_verdict_text(text, sizeof text, sd);
    char want[128];
    snprintf(want, sizeof want, "not distinguishable (MDD ±%.3f at α 0.05)", sd->mdd_up);
    CHECK(!strcmp(text, want), "the words: \"%s\"", text);
    CHECK(near(sd->p_corrected, 0.0625, 1e-12) && sd->verdict == OUTCOME_NOT_DISTINCT && near(sd->diff.mean, 0.17, 1e-9),
          "reverse dk: +0.17, Holm 0.0625: not distinguishable");
    /* its success counts: 6/6 vs 0/6, Fisher 2 / C(12, 6) = 2/924, reported uncorrected, not the verdict's test */
    CHECK(near(sd->fisher_p, 2 / 924.0, 1e-15), "reverse dk: Fisher p %g (2/924), shown only", sd->fisher_p);
    const OutcomeContrast *absent = find("recall", 64, "1", "sqrt", true);
    CHECK(absent && !absent->ca && !absent->cb && absent->verdict == OUTCOME_NO_TEST, "recall not run: no test");
    if (absent) {
        outcome_verdict_text(text, sizeof text, absent);
        CHECK(!strcmp(text, "no test (not run)"), "\"%s\"", text);
    }
}

static void test_secondaries_bh(void)
{
    load();
    /* one secondary: reverse at dk 16, 1 - sqrt, the same six differences: raw 0.03125, BH over m = 1
     * leaves it: lower. The same raw p that Holm lifted over 0.05 among the primaries. */
    int secondaries = 0;
    for (int i = 0; i < g_n; i++) secondaries += !g_v[i].primary;
    const OutcomeContrast *c = find("reverse", 16, "1", "sqrt", false);
    CHECK(secondaries == 1 && c, "one secondary (%d)", secondaries);
    if (!c) return;
    CHECK(near(c->p, 0.03125, 1e-12) && near(c->p_corrected, 0.03125, 1e-12) && c->verdict == OUTCOME_LOWER,
          "reverse dk 16: p %g -> BH %g, lower", c->p, c->p_corrected);
}

static void test_outcomes_md(void)
{
    load();
    const char *dir = test_path("outcomes");
    out_make_dirs(dir);
    CHECK(write_outcomes(dir, &g_cells), "outcomes.md written");
    char path[4200];
    snprintf(path, sizeof path, "%s/outcomes.md", dir);
    size_t size;
    char *md = read_text(path, &size, MUST_EXIST);
    CHECK(strstr(md, "| reverse · adamw | 64 | 1 − 1/√dₖ |") && strstr(md, "0.0312 → 0.0625 | not distinguishable (MDD: none either way at n = 6, α 0.025) |"),
          "the primary's row and its words");
    CHECK(strstr(md, "| reverse · adamw | 16 | 1 − 1/√dₖ |") && strstr(md, "0.0312 → 0.0312 | lower |"), "the secondary's row");
    CHECK(strstr(md, "| headline | lookup · adamw | - | 1/√dₖ | 64 | 0.001 | 10/10 [0.72, 1.00] |") &&
              strstr(md, "| 500 (10 of 10) |") && strstr(md, "not reached (0 of 10)"),
          "the cells' counts and steps");
    CHECK(strstr(md, "Holm over the 3 tested") && strstr(md, "Benjamini–Hochberg over the 1 tested"), "the families' sizes");
    mem_free(md);
}

/* docs/ablation/DESIGN.md holds outcome_table_markdown's output between its two markers, exactly. */
static void test_design_quotes_the_table(void)
{
    size_t size;
    char *doc = read_text("docs/ablation/DESIGN.md", &size, MUST_EXIST);
    const char *begin_mark = "<!-- the outcome table: lab/study/report_outcome_table.c, as ./report prints it -->\n",
               *end_mark = "<!-- end of the outcome table -->";
    char *b = strstr(doc, begin_mark), *e = b ? strstr(b, end_mark) : NULL;
    CHECK(b && e, "DESIGN.md has the outcome table between its markers");
    if (b && e) {
        b += strlen(begin_mark);
        char *want = NULL;
        size_t want_len = 0;
        FILE *f = open_memstream(&want, &want_len);
        outcome_table_markdown(f);
        fclose(f);
        CHECK((size_t)(e - b) == want_len && !memcmp(b, want, want_len), "DESIGN.md's quote differs from the table in code:\n%s", want);
        /* and the check can fail: one threshold changed by one digit is caught */
        char *changed = strstr(want, "| 0.50 |");
        if (changed) changed[4] = '1';
        CHECK(changed && memcmp(b, want, want_len), "a changed threshold would be caught");
        free(want);
    }
    mem_free(doc);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"outcomes: the verdict rule (corrected p < 0.05, the effect's sign)", test_verdict_rule},
        {"outcomes: a cell's successes, Wilson interval and KM median (the sweep left out)", test_cells},
        {"outcomes: a run at the threshold exactly succeeds; one below, or not done, does not", test_success_at_the_threshold},
        {"outcomes: the MDD of unequal groups: b's rate, each group's n, the Holm step's alpha", test_mdd_of_unequal_groups},
        {"outcomes: a cell with only sweep runs is no test cell", test_sweep_runs_are_not_test_runs},
        {"outcomes: primaries, Holm over the tested: a raw 0.031 lifted to 0.0625 says not distinguishable", test_primaries_holm},
        {"outcomes: secondaries, BH: the same raw 0.031 alone stays lower", test_secondaries_bh},
        {"outcomes: outcomes.md rows and words", test_outcomes_md},
        {"outcomes: DESIGN.md quotes the outcome table exactly", test_design_quotes_the_table},
    };
    int status = test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
    if (g_v) {
        mem_free(g_v);
        cells_free(&g_cells);
        free_rows(g_rows, g_n_rows);
    }
    return status;
}
