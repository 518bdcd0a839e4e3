/* test_stats.c - the Monte Carlo statistics behind ./probe (lab/score_stats.c). */
#include "test.h"

#include "../lab/score_stats.h"
#include "../tensor/format.h"

#include <math.h>
#include <stdlib.h>

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
    /* a tiny multiplier makes every score ~0: the softmax is uniform, entropy log n, and
     * ||diag(p) - p p^T||_F = sqrt(n (1/n)^2 - 2 n (1/n)^3 + (n (1/n)^2)^2) = sqrt(1/n - 1/n^2) */
    double s[2] = {1e-9, 1};
    int ns[2] = {3, 64};
    for (int k = 0; k < 2; k++) {
        int n = ns[k];
        SoftmaxStats st[2];
        softmax_stats(16, n, s, 2, 200, 3, st);
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

/* The explicit Jacobian J_ij = p_i (d_ij - p_j) of p = softmax(y), J g and ||J||_F from it. */
static void explicit_jacobian(const double *y, const double *g, int n, double *jg, double *frob)
{
    double p[8], m = y[0], z = 0, f = 0;
    for (int i = 1; i < n; i++) m = test_max(m, y[i]);
    for (int i = 0; i < n; i++) z += p[i] = exp(y[i] - m);
    for (int i = 0; i < n; i++) p[i] /= z;
    for (int i = 0; i < n; i++) {
        jg[i] = 0;
        for (int j = 0; j < n; j++) {
            double jij = (i == j ? p[i] : 0) - p[i] * p[j];
            jg[i] += jij * g[j];
            f += jij * jij;
        }
    }
    *frob = sqrt(f);
}

static void test_row_gradient_matches_the_explicit_matrix(void)
{
    /* moderate rows, where the explicit matrix is accurate: |J g| and ||J||_F against it, and
     * the closed form sum p^2 - 2 sum p^3 + (sum p^2)^2 of softmax_jacobian_norm too */
    const double ys[4][5] = {{0.3, -1, 2, 0.5, 0}, {1, 1, 1, 1, 1}, {-3, 4, 0.1, 2.5, 3.9}, {0, 0.01, -0.02, 5, -5}};
    const double gs[4][5] = {{1, -0.5, 0.25, 2, -1}, {0.3, -0.2, 1, 0, 0.7}, {-1, 1, 0.5, -0.5, 2}, {2, 2, 2, -3, 1}};
    for (int k = 0; k < 4; k++)
        for (int n = 1; n <= 5; n++) {
            double jg[5], frob, p[5], norm = 0;
            explicit_jacobian(ys[k], gs[k], n, jg, &frob);
            for (int i = 0; i < n; i++) norm += jg[i] * jg[i];
            norm = sqrt(norm);
            SoftmaxRowGrad r = softmax_row_grad(ys[k], gs[k], n, p);
            CHECK(fabs(r.grad_norm - norm) <= 1e-12 * fmax(norm, 1e-3), "row %d, n = %d: |J g| = %.15g, explicit %.15g", k, n,
                  r.grad_norm, norm);
            CHECK(fabs(r.jacobian_norm - frob) <= 1e-12 * fmax(frob, 1e-3), "row %d, n = %d: ||J||_F = %.15g, explicit %.15g",
                  k, n, r.jacobian_norm, frob);
            CHECK(fabs(softmax_jacobian_norm(p, n) - frob) < 1e-9, "row %d, n = %d: closed form %.15g, explicit %.15g", k, n,
                  softmax_jacobian_norm(p, n), frob);
            double sum = 0;
            for (int i = 0; i < n; i++) sum += p[i];
            CHECK(fabs(sum - 1) < 1e-12, "the softmax it returns sums to %.15g", sum);
        }
    /* uniform p: J g = (g - mean g) / n exactly, ||J||_F = sqrt(1/n - 1/n^2) */
    double y[4] = {2, 2, 2, 2}, g[4] = {1, 2, 3, 6}, p[4];
    SoftmaxRowGrad r = softmax_row_grad(y, g, 4, p);
    double want = sqrt(2.0 * 2.0 + 1 + 0 + 3.0 * 3.0) / 4; /* g - mean = [-2, -1, 0, 3] */
    CHECK(fabs(r.grad_norm - want) < 1e-15 && fabs(r.jacobian_norm - sqrt(0.25 - 0.0625)) < 1e-15,
          "uniform: |J g| = %.17g (want %.17g), ||J||_F = %.17g", r.grad_norm, want, r.jacobian_norm);
}

static void test_row_gradient_of_a_saturated_softmax(void)
{
    /* Two scores d apart: p = (e, 1 - e) with e = 1 / (1 + exp(d)), J = e (1 - e) [[1, -1], [-1, 1]],
     * so ||J||_F = 2 e (1 - e) and |J g| = sqrt(2) e (1 - e) |g0 - g1|. At d = 40 (e ~ 4e-18) the
     * closed form cancels to noise; the cancellation-free form must keep 12 digits. */
    const double ds[3] = {5, 40, 300};
    for (int k = 0; k < 3; k++) {
        double y[2] = {0, ds[k]}, g[2] = {0.7, -1.3}, p[2];
        double e = 1 / (1 + exp(ds[k])), pe = e * (1 - e);
        SoftmaxRowGrad r = softmax_row_grad(y, g, 2, p);
        CHECK(fabs(r.jacobian_norm / (2 * pe) - 1) < 1e-12, "d = %g: ||J||_F = %.17g, want %.17g", ds[k], r.jacobian_norm, 2 * pe);
        CHECK(fabs(r.grad_norm / (sqrt(2.0) * pe * 2.0) - 1) < 1e-12, "d = %g: |J g| = %.17g, want %.17g", ds[k], r.grad_norm,
              sqrt(2.0) * pe * 2.0);
    }
    /* three scores, the largest far ahead, p ~ (1, e1, e2) with e1 = exp(-30), e2 = exp(-35):
     * ||J||_F^2 = sum p^2 (1-p)^2 + sum_{i != j} p_i^2 p_j^2
     *           = (e1 + e2)^2 + e1^2 + e2^2 + 2 (e1^2 + e2^2) + O(e^3) = 4 e1^2 + 2 e1 e2 + 4 e2^2 */
    double y[3] = {30, 0, -5}, g[3] = {1, 0, 0}, p[3];
    double e1 = exp(-30.0), e2 = exp(-35.0);
    double want = sqrt(4 * e1 * e1 + 2 * e1 * e2 + 4 * e2 * e2);
    SoftmaxRowGrad r = softmax_row_grad(y, g, 3, p);
    CHECK(fabs(r.jacobian_norm / want - 1) < 1e-9, "||J||_F = %.17g, want %.17g", r.jacobian_norm, want);
    /* g = e_m: J g = p_m (e_m - p), |J g| ~ sqrt((e1 + e2)^2 + e1^2 + e2^2) */
    double want_g = sqrt((e1 + e2) * (e1 + e2) + e1 * e1 + e2 * e2);
    CHECK(fabs(r.grad_norm / want_g - 1) < 1e-9, "|J g| = %.17g, want %.17g", r.grad_norm, want_g);
}

static void test_quantile(void)
{
    double v[5] = {5, 1, 4, 2, 3};
    CHECK(quantile(v, 5, 0.5) == 3 && quantile(v, 5, 0) == 1 && quantile(v, 5, 1) == 5, "quantiles of 1..5");
    CHECK(fabs(quantile(v, 5, 0.1) - 1.4) < 1e-12, "10th percentile of 1..5 = %g, want 1.4 (numpy)", quantile(v, 5, 0.1));
    double w[4] = {10, 0, 30, 20};
    CHECK(fabs(quantile(w, 4, 0.5) - 15) < 1e-12, "median of 0, 10, 20, 30 = %g", quantile(w, 4, 0.5));
    double one = 7;
    CHECK(quantile(&one, 1, 0.99) == 7, "one value");
}

static void test_score_grad_stats(void)
{
    /* every score 0 (or any s on zero scores): p uniform, ||J||_F = sqrt(1/n - 1/n^2) on every row,
     * J g = (g - mean g) / n, whose squared norm times n^2 is chi-square with n - 1 degrees of
     * freedom: median about sqrt(n - 5/3) / n (5 % either way is far beyond 2000 rows' error) */
    enum { ROWS = 2000, N = 64 };
    double *zero = calloc((size_t)ROWS * N, sizeof(double));
    CHECK(zero != NULL, "memory");
    if (!zero) return;
    ScoreGradStats a = score_grad_stats(zero, ROWS, N, 1, 9), b = score_grad_stats(zero, ROWS, N, 0.25, 9);
    double uniform = sqrt(1.0 / N - 1.0 / (N * N)), med = sqrt(N - 5.0 / 3) / N;
    CHECK(fabs(a.jac_median - uniform) < 1e-12 && fabs(a.jac_p10 - uniform) < 1e-12, "uniform ||J||_F %.6f %.6f, want %.6f",
          a.jac_median, a.jac_p10, uniform);
    CHECK(fabs(a.grad_median / med - 1) < 0.05, "median |J g| = %.5f, want about %.5f", a.grad_median, med);
    CHECK(a.grad_p10 < a.grad_median, "10th percentile %.5f below the median %.5f", a.grad_p10, a.grad_median);
    CHECK(a.grad_median == b.grad_median && a.qk_grad_median == a.grad_median && b.qk_grad_median == 0.25 * b.grad_median,
          "same g for any s; |dL/d(q.k)| = s |dL/dS|");
    free(zero);
    /* real scores: unscaled ones at dk = 256 saturate the softmax, 1/sqrt(dk) does not */
    double *qk = score_rows(256, N, 400, 4);
    ScoreGradStats raw = score_grad_stats(qk, 400, N, 1, 5), scaled = score_grad_stats(qk, 400, N, 1.0 / 16, 5);
    CHECK(raw.grad_median < 0.2 * scaled.grad_median && raw.grad_p10 < 1e-3 * scaled.grad_p10,
          "dk 256: unscaled median %.3g, 10th pct %.3g vs scaled %.3g, %.3g", raw.grad_median, raw.grad_p10,
          scaled.grad_median, scaled.grad_p10);
    mem_free(qk);
}

static void test_range_stats(void)
{
    /* limits that contain everything or nothing, and the fraction within +-60 at dk = 512 against
     * its normal approximation P(|N(0, 512)| <= 60)^10 = 0.923 per row, ^100 = 0.447 per sequence;
     * 400 sequences: standard errors about 0.013 and 0.025 (rows of a sequence share keys) */
    RangeStats all = range_stats(512, 10, 40, 1e9, 2), none = range_stats(512, 10, 40, 0, 2);
    RangeStats r = range_stats(512, 10, 400, 60, 2);
    CHECK(all.row_within == 1 && all.seq_within == 1 && none.row_within == 0 && none.seq_within == 0, "trivial limits");
    CHECK(none.row_median == all.row_median && none.seq_p99 == all.seq_p99, "the limit changes only the fractions");
    double inside = erf(60 / (sqrt(512.0) * sqrt(2.0)));
    CHECK(fabs(r.row_within - pow(inside, 10)) < 0.05, "rows within +-60: %.3f, want about %.3f", r.row_within, pow(inside, 10));
    CHECK(fabs(r.seq_within - pow(inside, 100)) < 0.1, "sequences within +-60: %.3f, want about %.3f", r.seq_within,
          pow(inside, 100));
    CHECK(r.row_median < r.row_p95 && r.row_p95 <= r.row_p99 && r.row_median < r.seq_median && r.seq_p95 <= r.seq_p99,
          "order: %g %g %g, %g %g", r.row_median, r.row_p95, r.row_p99, r.seq_median, r.seq_p99);
    /* the median of the max of 10 |N(0, 512)|: (2 Phi(x / 22.6) - 1)^10 = 1/2 at x = 41.5 */
    CHECK(fabs(r.row_median - 41.5) < 3, "median row max %.2f, want about 41.5", r.row_median);
}

static void test_overflow_probabilities(void)
{
    /* the normal tail against known values, and the fp16 threshold ln 65504 = 11.0899 */
    CHECK(normal_tail(0) == 0.5, "P(Z > 0)");
    CHECK(fabs(normal_tail(1.959963984540054) - 0.025) < 1e-15, "P(Z > 1.96) = %.17g", normal_tail(1.959963984540054));
    CHECK(fabs(normal_tail(-1.959963984540054) - 0.975) < 1e-15, "P(Z > -1.96)");
    /* P(q.k > 11.0899) for q.k ~ N(0, 512): 0.3120289200904 (scipy.stats.norm.sf(log(65504) / sqrt(512))) */
    CHECK(fabs(overflow_prob_normal(512, 1, FP16_MAX) - 0.3120289200904073) < 1e-12, "dk 512, s = 1: %.16g",
          overflow_prob_normal(512, 1, FP16_MAX));
    CHECK(fabs(overflow_prob_normal(16, 1, FP16_MAX) - 0.002781661224136227) < 1e-14, "dk 16, s = 1: %.16g",
          overflow_prob_normal(16, 1, FP16_MAX));
    CHECK(fabs(overflow_prob_normal(64, 0.125, FP16_MAX) / 7.024864916557306e-29 - 1) < 1e-9, "dk 64, s = 1/8: %.6g",
          overflow_prob_normal(64, 0.125, FP16_MAX));
    /* counted on scores made by hand: 12 (e^12 = 162755) overflows; 11 does not, but
     * e^11 + 2 e^10 = 103926 does as a sum; 11.0899 + 0.0001 just does; s scales first */
    double qk[4 * 3] = {12, 0, 0, 0, 0, 0, 11, 10, 10, 11.09, -50, -50};
    OverflowStats o = overflow_stats(qk, 4, 3, 1, FP16_MAX);
    CHECK(o.entry == 2.0 / 12 && o.row_any == 0.5 && o.row_sum == 0.75, "by hand: entry %g (2/12), any %g (1/2), sum %g (3/4)",
          o.entry, o.row_any, o.row_sum);
    OverflowStats h = overflow_stats(qk, 4, 3, 0.5, FP16_MAX);
    CHECK(h.entry == 0 && h.row_any == 0 && h.row_sum == 0, "s = 1/2 halves every score: no overflow");
    /* sampled against the normal approximation at dk = 64, s = 1: P = 0.0828; rows share their
     * query, so take the rows (1000) as the independent units: standard error <= 0.009 */
    double *s = score_rows(64, 64, 1000, 6);
    OverflowStats st = overflow_stats(s, 1000, 64, 1, FP16_MAX);
    double p = overflow_prob_normal(64, 1, FP16_MAX);
    CHECK(fabs(st.entry - p) < 0.03, "dk 64: sampled %.4f, normal %.4f", st.entry, p);
    CHECK(st.row_any >= st.entry && st.row_sum >= st.row_any, "a row with an overflowing entry overflows its sum");
    OverflowStats sc = overflow_stats(s, 1000, 64, 0.125, FP16_MAX);
    CHECK(sc.entry == 0 && sc.row_sum == 0, "1/sqrt(dk): no overflow (P ~ 7e-29)");
    mem_free(s);
}

static void test_softmax_small_matches_the_seeds_examples(void)
{
    /* exact values: softmax([2, 4, 6]) = [e^2, e^4, e^6] / (e^2 + e^4 + e^6) */
    double z[3] = {2, 4, 6}, p[3], want[3], sum = exp(2.0) + exp(4.0) + exp(6.0);
    for (int j = 0; j < 3; j++) want[j] = exp(z[j]) / sum;
    softmax_small(z, 3, p);
    for (int j = 0; j < 3; j++) CHECK(fabs(p[j] - want[j]) < 1e-6, "softmax([2, 4, 6])[%d] = %.7f, want %.7f", j, p[j], want[j]);
    CHECK(fabs(want[2] - 0.866813) < 1e-6, "e^6 / (e^2 + e^4 + e^6) = %.7f", want[2]);
    double z2[2] = {1, 2}, p2[2];
    softmax_small(z2, 2, p2);
    CHECK(fabs(p2[0] - 1 / (1 + exp(1.0))) < 1e-6, "softmax([1, 2])[0] = %.7f, want 1 / (1 + e)", p2[0]);
}

static void test_score_rows_feed_softmax_stats(void)
{
    /* softmax_stats is score_rows + softmax_stats_of: the same numbers either way */
    double s[2] = {1, 0.125};
    SoftmaxStats a[2], b[2];
    softmax_stats(64, 16, s, 2, 130, 11, a);
    double *scores = score_rows(64, 16, 130, 11);
    softmax_stats_of(scores, 130, 16, s, 2, b);
    mem_free(scores);
    CHECK(a[0].entropy == b[0].entropy && a[1].jacobian == b[1].jacobian && a[1].max_weight == b[1].max_weight,
          "softmax_stats vs score_rows + softmax_stats_of");
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"probe: Var(q.k) = dk within its standard error", test_qk_variance_is_dk},
        {"probe: uniform softmax entropy log n; Jacobian norm closed forms", test_softmax_entropy_and_jacobian_closed_forms},
        {"probe: S1's experiment is self-consistent", test_row_experiment_is_consistent},
        {"probe: |J g| and ||J||_F match the explicit Jacobian (and the closed form)", test_row_gradient_matches_the_explicit_matrix},
        {"probe: |J g| and ||J||_F keep their digits when the softmax saturates", test_row_gradient_of_a_saturated_softmax},
        {"probe: quantiles interpolate as numpy's", test_quantile},
        {"probe: per-row gradient statistics (uniform closed forms, saturation)", test_score_grad_stats},
        {"probe: ranges of 10 scores at dk = 512 against the normal approximation", test_range_stats},
        {"probe: fp16 overflow probabilities: normal tail, counts by hand, sampled", test_overflow_probabilities},
        {"probe: the engine's softmax on the seeds' examples", test_softmax_small_matches_the_seeds_examples},
        {"probe: softmax_stats = score_rows + softmax_stats_of", test_score_rows_feed_softmax_stats},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
