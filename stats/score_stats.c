/* score_stats.c - Monte Carlo statistics of attention scores, computed with the engine's own
 * ops (matmul, scale, softmax) so that ./probe and ./train share one code path. */
#include "score_stats.h"

#include "../base/rng.h"
#include "../model/gpt.h"
#include "../tensor/ops.h"

#include <assert.h>
#include <math.h>

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
        e.raw_min = fmin(e.raw_min, S->data[i]);
        e.raw_max = fmax(e.raw_max, S->data[i]);
        e.scaled_min = fmin(e.scaled_min, Ss->data[i]);
        e.scaled_max = fmax(e.scaled_max, Ss->data[i]);
    }
    for (int j = 0; j < n_keys; j++) { /* the first row */
        e.raw_pmax = fmax(e.raw_pmax, P->data[j]);
        e.raw_pmin = fmin(e.raw_pmin, P->data[j]);
        e.scaled_pmax = fmax(e.scaled_pmax, Ps->data[j]);
        e.scaled_pmin = fmin(e.scaled_pmin, Ps->data[j]);
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

void softmax_stats(int dk, int n_keys, const double *divisors, int n_div, long samples, uint64_t seed,
                   SoftmaxStats *out)
{
    enum { CHUNK = 64 }; /* queries drawn and scored per batched matmul */
    Arena keep, work;
    Tape tp;
    arena_init(&keep, 0);
    arena_init(&work, 0);
    tape_init(&tp, &work);
    tp.grad_enabled = false;
    Rng r = rng_stream(seed, RNG_STREAM_PROBE_SOFTMAX);
    /* scores [samples, n_keys]: each query against its own n_keys keys, q K^T per sample */
    Tensor *S = tensor_new2(&keep, (int)samples, n_keys, "scores");
    for (long s0 = 0; s0 < samples; s0 += CHUNK) {
        int c = samples - s0 < CHUNK ? (int)(samples - s0) : CHUNK;
        Tensor *q = tensor_new3(&work, c, 1, dk, "q"), *K = tensor_new3(&work, c, n_keys, dk, "K");
        for (int i = 0; i < c; i++) { /* per sample: the query, then its keys */
            fill_normal(&r, q->data + (size_t)i * dk, (size_t)dk);
            fill_normal(&r, K->data + (size_t)i * n_keys * dk, (size_t)n_keys * dk);
        }
        Tensor *row = op_matmul(&tp, q, K, TRANSPOSE_B); /* [c, 1, n_keys] */
        for (size_t i = 0; i < row->size; i++) S->data[s0 * n_keys + (long)i] = row->data[i];
        tape_reset(&tp);
    }
    double *p = arena_alloc(&keep, (size_t)n_keys * sizeof(double));
    for (int d = 0; d < n_div; d++) {
        Tensor *P = op_softmax(&tp, op_scale(&tp, S, (real)(1 / divisors[d])), MASK_NONE);
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
