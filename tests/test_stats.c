/* test_stats.c - the Monte Carlo statistics behind ./probe (stats/score_stats.c). */
#include "test.h"

#include "../stats/score_stats.h"

#include <math.h>

static void test_qk_variance_is_dk(void)
{
    /* Var(q.k) = dk exactly in theory; the sample variance has relative standard error
     * sqrt((2 + 6/dk) / n). Allow 5 standard errors. */
    long n = 20000;
    int dks[3] = {16, 64, 256};
    for (int i = 0; i < 3; i++) {
        QkMoments m = qk_moments(dks[i], n, 7);
        double se = sqrt((2 + 6.0 / dks[i]) / n);
        CHECK(fabs(m.var / dks[i] - 1) < 5 * se, "dk %d: Var(q.k)/dk = %.4f, want 1 +- %.4f", dks[i], m.var / dks[i], 5 * se);
        CHECK(fabs(m.mean) < 5 * sqrt(dks[i] / (double)n), "dk %d: mean %.4f, want 0", dks[i], m.mean);
        CHECK(fabs(m.scaled_std - 1) < 5 * se, "dk %d: std of q.k/sqrt(dk) = %.4f", dks[i], m.scaled_std);
    }
}

static void test_softmax_entropy_and_jacobian_closed_forms(void)
{
    /* a huge divisor makes every score ~0: the softmax is uniform, entropy log n, and
     * ||diag(p) - p p^T||_F = sqrt(n (1/n)^2 - 2 n (1/n)^3 + (n (1/n)^2)^2) = sqrt(1/n - 1/n^2) */
    double div[2] = {1e9, 1};
    int ns[2] = {3, 64};
    for (int k = 0; k < 2; k++) {
        int n = ns[k];
        SoftmaxStats st[2];
        softmax_stats(16, n, div, 2, 200, 3, st);
        CHECK(fabs(st[0].entropy - log((double)n)) < 1e-4, "n = %d: uniform entropy %.6f, want log n = %.6f", n,
              st[0].entropy, log((double)n));
        CHECK(fabs(st[0].jacobian - sqrt(1.0 / n - 1.0 / ((double)n * n))) < 1e-4, "n = %d: uniform Jacobian %.6f", n,
              st[0].jacobian);
        CHECK(st[1].entropy < st[0].entropy && st[1].max_weight > 1.0 / n, "unscaled scores must be sharper than uniform");
    }
    double onehot[4] = {0, 1, 0, 0};
    CHECK(softmax_jacobian_norm(onehot, 4) == 0, "one-hot softmax has a zero Jacobian");
    /* against the matrix itself */
    double p[3] = {0.5, 0.3, 0.2}, f = 0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double jij = (i == j ? p[i] : 0) - p[i] * p[j];
            f += jij * jij;
        }
    CHECK(fabs(softmax_jacobian_norm(p, 3) - sqrt(f)) < 1e-12, "Jacobian norm %g, want %g", softmax_jacobian_norm(p, 3), sqrt(f));
}

static void test_row_experiment_is_consistent(void)
{
    RowExperiment e = row_experiment(64, 32, 5);
    CHECK(fabs(e.scaled_max - e.raw_max / 8) < 1e-4 && fabs(e.scaled_min - e.raw_min / 8) < 1e-4,
          "scaled range must be the raw range / sqrt(64): [%g, %g] vs [%g, %g]", e.scaled_min, e.scaled_max, e.raw_min, e.raw_max);
    CHECK(e.raw_pmax >= e.scaled_pmax && e.raw_pmin <= e.scaled_pmin, "scaling must flatten the softmax");
    CHECK(e.scaled_pmax <= 1 && e.scaled_pmin >= 0 && e.scaled_pmin <= 1.0 / 32 && e.scaled_pmax >= 1.0 / 32, "weights");
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"probe: Var(q.k) = dk within its standard error", test_qk_variance_is_dk},
        {"probe: uniform softmax entropy log n; Jacobian norm closed forms", test_softmax_entropy_and_jacobian_closed_forms},
        {"probe: the first seed's experiment is self-consistent", test_row_experiment_is_consistent},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
