/* score_stats.c - Monte Carlo statistics of attention scores. The scores and their softmax
 * are computed with the engine's own ops (matmul, scale, softmax: what ./train runs); the
 * moments of q.k, the gradient reaching the scores and the overflow counts are sums in double,
 * without cancellation. */
#include "score_stats.h"

#include "../tensor/rng.h"
#include "../model/gpt.h"
#include "../tensor/ops.h"
#include "../run/exit.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* n draws of N(0, 1): Box-Muller gives two per pair of uniforms, r cos(t) and r sin(t). */
static void fill_normal(Rng *r, real *x, size_t n)
{
    for (size_t i = 0; i < n; i += 2) {
        double u1 = 1.0 - rng_uniform(r), u2 = rng_uniform(r);
        double rad = sqrt(-2.0 * log(u1)), t = 6.283185307179586 * u2;
        x[i] = (real)(rad * cos(t));
        if (i + 1 < n) x[i + 1] = (real)(rad * sin(t));
    }
}

QkMoments qk_moments(int dk, long samples, uint64_t seed)
{
    /* q.k = sum_i q_i k_i: each term has mean 0 and variance E[q_i^2] E[k_i^2] = 1, and the
     * terms are independent, so Var(q.k) = dk. Dividing by sqrt(dk) gives variance 1. */
    Rng r = rng_stream(seed, RNG_STREAM_PROBE_QK);
    real q[1024], k[1024];
    assert(dk <= 1024);
    double s1 = 0, s2 = 0;
    for (long n = 0; n < samples; n++) {
        fill_normal(&r, q, (size_t)dk);
        fill_normal(&r, k, (size_t)dk);
        double dot = 0;
        for (int i = 0; i < dk; i++) dot += (double)q[i] * k[i];
        s1 += dot;
        s2 += dot * dot;
    }
    QkMoments m;
    m.mean = s1 / samples;
    m.var = s2 / samples - m.mean * m.mean;
    m.scaled_mean = m.mean / sqrt((double)dk);
    m.scaled_std = sqrt(m.var / dk);
    return m;
}

/* max(m, x) and min(m, x) as comparisons, for the loops over floats widened to double: gcc 12
 * for aarch64 stops with an internal compiler error (in vect_transform_reduction) when it
 * vectorises such a loop written with fmax/fmin. A NaN x is passed over, as with fmax; unlike
 * fmax, a NaN m (the first value) stays. The probe's random scores are never NaN. */
static inline double larger(double m, double x) { return x > m ? x : m; }
static inline double smaller(double m, double x) { return x < m ? x : m; }

RowExperiment row_experiment(int dk, int n_keys, uint64_t seed)
{
    Arena a;
    Tape tp;
    arena_init(&a, 0);
    tape_init(&tp, &a);
    tp.grad_enabled = false;
    Rng r = rng_stream(seed, RNG_STREAM_PROBE_ROWS);
    Tensor *Q = tensor_new2(&a, n_keys, dk, "Q"), *K = tensor_new2(&a, n_keys, dk, "K");
    fill_normal(&r, Q->data, Q->size);
    fill_normal(&r, K->data, K->size);
    Tensor *S = op_matmul(&tp, Q, K, TRANSPOSE_B);                 /* [n, n] = Q K^T */
    Tensor *Ss = op_scale(&tp, S, (real)attention_scale(SCALE_SQRT, 0, dk));
    Tensor *P = op_softmax(&tp, S, MASK_NONE), *Ps = op_softmax(&tp, Ss, MASK_NONE);
    RowExperiment e = {S->data[0], S->data[0], Ss->data[0], Ss->data[0], P->data[0], P->data[0], Ps->data[0], Ps->data[0]};
    for (size_t i = 0; i < S->size; i++) {
        e.raw_min = smaller(e.raw_min, S->data[i]);
        e.raw_max = larger(e.raw_max, S->data[i]);
        e.scaled_min = smaller(e.scaled_min, Ss->data[i]);
        e.scaled_max = larger(e.scaled_max, Ss->data[i]);
    }
    for (int j = 0; j < n_keys; j++) { /* the first row */
        e.raw_pmax = larger(e.raw_pmax, P->data[j]);
        e.raw_pmin = smaller(e.raw_pmin, P->data[j]);
        e.scaled_pmax = larger(e.scaled_pmax, Ps->data[j]);
        e.scaled_pmin = smaller(e.scaled_pmin, Ps->data[j]);
    }
    tape_free(&tp);
    arena_free(&a);
    return e;
}

double softmax_jacobian_norm(const double *p, int n)
{
    /* J = diag(p) - p p^T, J_ij = p_i (d_ij - p_j):
     * ||J||_F^2 = sum_i p_i^2 - 2 sum_i p_i^3 + (sum_i p_i^2)^2 */
    double s2 = 0, s3 = 0;
    for (int i = 0; i < n; i++) {
        s2 += p[i] * p[i];
        s3 += p[i] * p[i] * p[i];
    }
    double f = s2 - 2 * s3 + s2 * s2;
    return sqrt(f > 0 ? f : 0);
}

static void *alloc_or_exit(size_t count, size_t size, const char *what)
{
    size_t bytes;
    if (!size_mul(count, size, &bytes)) die(EXIT_USER, "out of memory for %s (%zu x %zu bytes)", what, count, size);
    return mem_alloc(bytes); /* exits with a message when there is not enough */
}

double *score_rows(int dk, int n_keys, long rows, uint64_t seed)
{
    enum { CHUNK = 64 }; /* queries drawn and scored per batched matmul */
    Arena work;
    Tape tp;
    arena_init(&work, 0);
    tape_init(&tp, &work);
    tp.grad_enabled = false;
    Rng r = rng_stream(seed, RNG_STREAM_PROBE_SOFTMAX);
    double *S = alloc_or_exit((size_t)rows * (size_t)n_keys, sizeof(double), "the probe's scores");
    for (long s0 = 0; s0 < rows; s0 += CHUNK) {
        int c = rows - s0 < CHUNK ? (int)(rows - s0) : CHUNK;
        Tensor *q = tensor_new3(&work, c, 1, dk, "q"), *K = tensor_new3(&work, c, n_keys, dk, "K");
        for (int i = 0; i < c; i++) { /* per row: the query, then its keys */
            fill_normal(&r, q->data + (size_t)i * dk, (size_t)dk);
            fill_normal(&r, K->data + (size_t)i * n_keys * dk, (size_t)n_keys * dk);
        }
        Tensor *row = op_matmul(&tp, q, K, TRANSPOSE_B); /* [c, 1, n_keys]: q K^T per row */
        for (size_t i = 0; i < row->size; i++) S[s0 * n_keys + (long)i] = row->data[i];
        tape_reset(&tp);
    }
    tape_free(&tp);
    arena_free(&work);
    return S;
}

void softmax_stats_of(const double *scores, long rows, int n_keys, const double *mult, int n_mult,
                      SoftmaxStats *out)
{
    Arena keep, work;
    Tape tp;
    arena_init(&keep, 0);
    arena_init(&work, 0);
    tape_init(&tp, &work);
    tp.grad_enabled = false;
    long samples = rows;
    Tensor *S = tensor_new2(&keep, (int)samples, n_keys, "scores");
    for (size_t i = 0; i < S->size; i++) S->data[i] = (real)scores[i];
    double *p = arena_alloc(&keep, (size_t)n_keys * sizeof(double));
    for (int d = 0; d < n_mult; d++) {
        Tensor *P = op_softmax(&tp, op_scale(&tp, S, (real)mult[d]), MASK_NONE);
        double h1 = 0, h2 = 0, j1 = 0, j2 = 0, mx = 0;
        for (long s = 0; s < samples; s++) {
            double h = 0, m = 0;
            for (int j = 0; j < n_keys; j++) {
                p[j] = P->data[s * n_keys + j];
                if (p[j] > 0) h -= p[j] * log(p[j]);
                m = fmax(m, p[j]);
            }
            double jn = softmax_jacobian_norm(p, n_keys);
            h1 += h;
            h2 += h * h;
            j1 += jn;
            j2 += jn * jn;
            mx += m;
        }
        SoftmaxStats *o = &out[d];
        o->entropy = h1 / samples;
        o->entropy_se = sqrt(fmax(h2 / samples - o->entropy * o->entropy, 0) / samples);
        o->jacobian = j1 / samples;
        o->jacobian_se = sqrt(fmax(j2 / samples - o->jacobian * o->jacobian, 0) / samples);
        o->max_weight = mx / samples;
        tape_reset(&tp);
    }
    tape_free(&tp);
    arena_free(&work);
    arena_free(&keep);
}

void softmax_stats(int dk, int n_keys, const double *mult, int n_mult, long samples, uint64_t seed,
                   SoftmaxStats *out)
{
    double *S = score_rows(dk, n_keys, samples, seed);
    softmax_stats_of(S, samples, n_keys, mult, n_mult, out);
    mem_free(S);
}

/* ---------------------------------------------------------------- the gradient reaching the scores */

SoftmaxRowGrad softmax_row_grad(const double *y, const double *g, int n, double *p)
{
    /* With m the largest score, e_j = exp(y_j - y_m) <= 1 and Z = 1 + rest, rest = sum_{j != m} e_j:
     * p_j = e_j / Z, and 1 - p_m = rest / Z without subtracting two numbers near 1.
     *
     * J g: since sum_j p_j = 1, g_i - p.g = (g_i - g_m) + c with c = sum_{j != m} p_j (g_m - g_j), so
     *   (J g)_m = p_m c,   (J g)_i = p_i (g_i - g_m + c)  for i != m.
     * ||J||_F^2 = sum_i p_i^2 (1 - p_i)^2 + sum_{i != j} p_i^2 p_j^2, where the second sum is
     *   2 p_m^2 A + (A^2 - B) with A = sum_{j != m} p_j^2, B = sum_{j != m} p_j^4.
     * Every term is >= 0 except A^2 - B, which is tiny next to 2 p_m^2 A; so a saturated row
     * (p_m = 1 - 1e-20) gets ||J||_F ~ 2e-20, where the closed form sum p^2 - 2 sum p^3 +
     * (sum p^2)^2 would subtract numbers near 1 and return rounding noise. */
    int m = 0;
    for (int j = 1; j < n; j++)
        if (y[j] > y[m]) m = j;
    double rest = 0;
    for (int j = 0; j < n; j++) {
        p[j] = j == m ? 1 : exp(y[j] - y[m]);
        if (j != m) rest += p[j];
    }
    double z = 1 + rest;
    for (int j = 0; j < n; j++) p[j] /= z;
    double one_minus_pm = rest / z;
    double c = 0, a = 0, b = 0, diag = 0;
    for (int j = 0; j < n; j++) {
        if (j == m) continue;
        c += p[j] * (g[m] - g[j]);
        double p2 = p[j] * p[j], d = p[j] * (1 - p[j]);
        a += p2;
        b += p2 * p2;
        diag += d * d;
    }
    double dm = p[m] * one_minus_pm;
    diag += dm * dm;
    double jac2 = diag + 2 * p[m] * p[m] * a + fmax(a * a - b, 0);
    double grad2 = (p[m] * c) * (p[m] * c);
    for (int j = 0; j < n; j++) {
        if (j == m) continue;
        double v = p[j] * (g[j] - g[m] + c);
        grad2 += v * v;
    }
    SoftmaxRowGrad out = {sqrt(grad2), sqrt(jac2)};
    return out;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double quantile(double *v, long n, double q)
{
    assert(n >= 1 && q >= 0 && q <= 1);
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    double h = (double)(n - 1) * q;
    long lo = (long)floor(h);
    if (lo >= n - 1) return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

ScoreGradStats score_grad_stats(const double *qk, long rows, int n_keys, double s, uint64_t seed)
{
    Rng r = rng_stream(seed, RNG_STREAM_PROBE_SOFTMAX);
    double *y = alloc_or_exit((size_t)n_keys, 3 * sizeof(double), "one row");
    double *g = y + n_keys, *p = g + n_keys;
    real *gr = alloc_or_exit((size_t)n_keys, sizeof(real), "one row");
    double *grad = alloc_or_exit((size_t)rows, sizeof(double), "the rows' gradients");
    double *jac = alloc_or_exit((size_t)rows, sizeof(double), "the rows' Jacobians");
    for (long i = 0; i < rows; i++) {
        fill_normal(&r, gr, (size_t)n_keys); /* the upstream dL/dp of this row */
        for (int j = 0; j < n_keys; j++) {
            y[j] = s * qk[i * n_keys + j];
            g[j] = gr[j];
        }
        SoftmaxRowGrad rg = softmax_row_grad(y, g, n_keys, p);
        grad[i] = rg.grad_norm;
        jac[i] = rg.jacobian_norm;
    }
    ScoreGradStats st;
    st.grad_median = quantile(grad, rows, 0.5);
    st.grad_p10 = quantile(grad, rows, 0.1);
    st.jac_median = quantile(jac, rows, 0.5);
    st.jac_p10 = quantile(jac, rows, 0.1);
    st.qk_grad_median = s * st.grad_median; /* s > 0: the median of s x is s times x's */
    mem_free(jac);
    mem_free(grad);
    mem_free(gr);
    mem_free(y);
    return st;
}

/* ---------------------------------------------------------------- score ranges */

RangeStats range_stats(int dk, int n_tokens, long sequences, double limit, uint64_t seed)
{
    enum { CHUNK = 16 }; /* sequences per batched matmul */
    Arena work;
    Tape tp;
    arena_init(&work, 0);
    tape_init(&tp, &work);
    tp.grad_enabled = false;
    Rng r = rng_stream(seed, RNG_STREAM_PROBE_ROWS);
    long n_rows = sequences * n_tokens;
    double *row_max = alloc_or_exit((size_t)n_rows, sizeof(double), "the rows' maxima");
    double *seq_max = alloc_or_exit((size_t)sequences, sizeof(double), "the sequences' maxima");
    long rows_in = 0, seqs_in = 0;
    for (long s0 = 0; s0 < sequences; s0 += CHUNK) {
        int c = sequences - s0 < CHUNK ? (int)(sequences - s0) : CHUNK;
        Tensor *Q = tensor_new3(&work, c, n_tokens, dk, "Q"), *K = tensor_new3(&work, c, n_tokens, dk, "K");
        for (int i = 0; i < c; i++) { /* per sequence: its queries, then its keys */
            fill_normal(&r, Q->data + (size_t)i * n_tokens * dk, (size_t)n_tokens * dk);
            fill_normal(&r, K->data + (size_t)i * n_tokens * dk, (size_t)n_tokens * dk);
        }
        Tensor *S = op_matmul(&tp, Q, K, TRANSPOSE_B); /* [c, n, n] = Q K^T per sequence */
        for (int i = 0; i < c; i++) {
            double sm = 0;
            for (int a = 0; a < n_tokens; a++) {
                double rm = 0;
                for (int b = 0; b < n_tokens; b++) rm = larger(rm, fabs(S->data[((size_t)i * n_tokens + a) * n_tokens + b]));
                row_max[(s0 + i) * n_tokens + a] = rm;
                rows_in += rm <= limit;
                sm = fmax(sm, rm);
            }
            seq_max[s0 + i] = sm;
            seqs_in += sm <= limit;
        }
        tape_reset(&tp);
    }
    RangeStats st;
    st.row_median = quantile(row_max, n_rows, 0.5);
    st.row_p95 = quantile(row_max, n_rows, 0.95);
    st.row_p99 = quantile(row_max, n_rows, 0.99);
    st.row_within = (double)rows_in / (double)n_rows;
    st.seq_median = quantile(seq_max, sequences, 0.5);
    st.seq_p95 = quantile(seq_max, sequences, 0.95);
    st.seq_p99 = quantile(seq_max, sequences, 0.99);
    st.seq_within = (double)seqs_in / (double)sequences;
    mem_free(seq_max);
    mem_free(row_max);
    tape_free(&tp);
    arena_free(&work);
    return st;
}

/* ---------------------------------------------------------------- overflow without max subtraction */

OverflowStats overflow_stats(const double *qk, long rows, int n_keys, double s, double limit)
{
    /* exp(y) > limit  <=>  y > ln(limit). The row's sum exceeds the limit when its log,
     * m + log(sum_j exp(y_j - m)) with m the row max, does (computed so that it cannot overflow). */
    double t = log(limit);
    long entries = 0, any = 0, sum = 0;
    for (long i = 0; i < rows; i++) {
        const double *x = qk + i * n_keys;
        double m = s * x[0];
        long here = 0;
        for (int j = 0; j < n_keys; j++) {
            double y = s * x[j];
            here += y > t;
            m = fmax(m, y);
        }
        double e = 0;
        for (int j = 0; j < n_keys; j++) e += exp(s * x[j] - m);
        entries += here;
        any += here > 0;
        sum += m + log(e) > t;
    }
    OverflowStats st = {(double)entries / ((double)rows * n_keys), (double)any / (double)rows, (double)sum / (double)rows};
    return st;
}

double normal_tail(double z) { return 0.5 * erfc(z / sqrt(2.0)); }

double overflow_prob_normal(int dk, double s, double limit)
{
    /* s q.k ~ N(0, s^2 dk), so P(s q.k > t) = P(Z > t / (s sqrt dk)) */
    return normal_tail(log(limit) / (s * sqrt((double)dk)));
}

void softmax_small(const double *z, int n, double *p)
{
    assert(n >= 1 && n <= 16);
    Arena a;
    Tape tp;
    arena_init(&a, 0);
    tape_init(&tp, &a);
    tp.grad_enabled = false;
    Tensor *x = tensor_new2(&a, 1, n, "z");
    for (int j = 0; j < n; j++) x->data[j] = (real)z[j];
    Tensor *P = op_softmax(&tp, x, MASK_NONE);
    for (int j = 0; j < n; j++) p[j] = P->data[j];
    tape_free(&tp);
    arena_free(&a);
}
