/* test_model.c - metrics on constructed cases, the optimizer, the schedule, init and scale. */
#include "gradcheck.h"
#include "test.h"

#include "../model/attn_spec.h"
#include "../model/gpt.h"
#include "../run/attention_stats.h"
#include "../run/log_columns.h"
#include "../model/optim.h"
#include "../model/scale_table.h"
#include "../run/options.h"
#include "../tensor/rng.h"

#include <math.h>
#include "../tensor/openmp.h"
#include <string.h>

static Arena g_arena;

static Tensor *t4(int B, int H, int T)
{
    return tensor_new4(&g_arena, B, H, T, T, "t");
}

static void test_uniform_attention_entropy_and_max_weight(void)
{
    arena_init(&g_arena, 1 << 16);
    enum { B = 2, H = 3, T = 6 };
    Tensor *S = t4(B, H, T), *P = t4(B, H, T);
    /* all scores equal: row i spreads 1/(i+1) over its i+1 visible keys */
    for (int bh = 0; bh < B * H; bh++)
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                S->data[(bh * T + i) * T + j] = 0.5f;
                P->data[(bh * T + i) * T + j] = j <= i ? 1.0f / (i + 1) : 0;
            }
    AttentionStats st = attention_stats(&g_arena, &(AttentionTrace){.scores = S, .scale = 1, .weights = P}, NULL);
    double ent = 0, maxw = 0;
    for (int i = 0; i < T; i++) {
        ent += log(i + 1.0);
        maxw += 1.0 / (i + 1);
    }
    ent /= T;
    maxw /= T;
    CHECK(fabs(st.entropy - ent) < 1e-6, "entropy %.9g, want mean log(n) = %.9g", st.entropy, ent);
    CHECK(fabs(st.entropy_norm - 1) < 1e-6, "entropy / log n = %.9g, want 1", st.entropy_norm);
    CHECK(fabs(st.max_weight - maxw) < 1e-6, "max weight %.9g, want mean 1/n = %.9g", st.max_weight, maxw);
    CHECK(st.score_std < 1e-7 && fabs(st.score_mean - 0.5) < 1e-7, "constant scores: mean %g std %g", st.score_mean, st.score_std);
    CHECK(st.rows == B * H * T && st.entries == B * H * T * (T + 1) / 2, "rows %ld entries %ld", st.rows, st.entries);
    arena_free(&g_arena);
}

/* The per-query statistics: the Jacobian norm of uniform rows is sqrt(n - 1) / n; of a nearly
 * one-hot row [1 - e, e] it is 2 e (1 - e), 2e-12 for e = 1e-12 (where the closed form would
 * return rounding noise, ~1e-8);
 * rows with one visible key are left out; the gradient norms' median and 10th percentile are
 * those of the given values. */
static void test_per_query_jacobian_and_gradient_quantiles(void)
{
    arena_init(&g_arena, 1 << 16);
    enum { B = 1, H = 1, T = 3 };
    Tensor *S = t4(B, H, T), *P = t4(B, H, T);
    for (size_t i = 0; i < P->size; i++) S->data[i] = P->data[i] = 0;
    P->data[0] = 1;                                  /* row 0: one key, left out */
    P->data[3] = 1, P->data[4] = 1e-12f;             /* row 1: one-hot in float, 1e-12 elsewhere */
    for (int j = 0; j < 3; j++) P->data[6 + j] = 1.0f / 3; /* row 2: uniform over 3 */
    real grads[3] = {NAN, 2, 4};
    AttentionTrace tr = {.scores = S, .scale = 1, .weights = P, .row_grad_norms = grads};
    AttentionStats st = attention_stats(&g_arena, &tr, NULL);
    double e = (double)P->data[4], sat = 2 * e * (1 - e), uni = sqrt(2.0) / 3;
    double want_median = (sat + uni) / 2, want_p10 = sat + 0.1 * (uni - sat);
    CHECK(fabs(st.jac_median - want_median) < 1e-6 * want_median && fabs(st.jac_p10 - want_p10) < 1e-3 * want_p10,
          "|J|_F median %.9g (want %.9g), p10 %.9g (want %.9g: the saturated row's 2e(1-e) = %.3g carries it)",
          st.jac_median, want_median, st.jac_p10, want_p10, sat);
    CHECK(st.qgrad_median == 3 && fabs(st.qgrad_p10 - 2.2) < 1e-12, "|dL/dS| median %g (want 3), p10 %g (want 2.2)",
          st.qgrad_median, st.qgrad_p10);
    grads[1] = -1; /* no gradient reached row 1: left out */
    st = attention_stats(&g_arena, &tr, NULL);
    CHECK(st.qgrad_median == 4 && st.qgrad_p10 == 4, "a row no gradient reached is left out: median %g, p10 %g (want 4)",
          st.qgrad_median, st.qgrad_p10);
    grads[1] = NAN; /* a non-finite gradient: no quantile may look valid */
    st = attention_stats(&g_arena, &tr, NULL);
    CHECK(isnan(st.qgrad_median) && isnan(st.qgrad_p10), "a NaN row: median %g, want NaN", st.qgrad_median);
    tr.row_grad_norms = NULL;
    st = attention_stats(&g_arena, &tr, NULL);
    CHECK(isnan(st.qgrad_median) && isnan(st.qgrad_p10), "without recorded gradients: NaN, not %g", st.qgrad_median);
    arena_free(&g_arena);
}

static void test_one_hot_attention_and_padding_rows(void)
{
    arena_init(&g_arena, 1 << 16);
    enum { B = 1, H = 1, T = 4 };
    Tensor *S = t4(B, H, T), *P = t4(B, H, T);
    memset(P->data, 0, P->size * sizeof(real));
    for (int i = 0; i < T; i++) {
        P->data[i * T + 0] = 1; /* all weight on the first key */
        for (int j = 0; j < T; j++) S->data[i * T + j] = (real)(j <= i ? (j % 2 ? 2 : -2) : 1000); /* masked: ignored */
    }
    unsigned char valid[T] = {1, 1, 1, 0}; /* the last query is padding */
    AttentionStats st = attention_stats(&g_arena, &(AttentionTrace){.scores = S, .scale = 1, .weights = P}, valid);
    CHECK(st.entropy == 0 && st.entropy_norm == 0, "one-hot rows: entropy %g (norm %g), want 0", st.entropy, st.entropy_norm);
    CHECK(st.max_weight == 1, "one-hot rows: max weight %g, want 1", st.max_weight);
    /* visible scores of rows 0..2: -2 | -2 2 | -2 2 -2  -> sum -4, mean -4/6, E[s^2] = 4 */
    double mean = -4.0 / 6, std = sqrt(4 - mean * mean);
    CHECK(fabs(st.score_mean - mean) < 1e-6 && fabs(st.score_std - std) < 1e-6, "score mean %g std %g, want %g %g",
          st.score_mean, st.score_std, mean, std);
    CHECK(st.rows == 3 && st.entries == 6, "padding row counted: rows %ld entries %ld", st.rows, st.entries);
    arena_free(&g_arena);
}

static void test_score_std_of_random_unit_vectors_is_one_after_sqrt_scale(void)
{
    /* q, k with iid N(0,1) entries: Var(q.k) = dk, so s = 1/sqrt(dk) gives std 1 (the seeds' claim).
     * 64 causal 16 x 16 matrices hold n = 8704 visible scores; a sample std's standard error is
     * about 1/sqrt(2n) (more here, since the scores of one row share q: hence the factor 1.5). */
    arena_init(&g_arena, 1 << 20);
    enum { B = 8, H = 8, T = 16, DK = 64 };
    Tensor *S = t4(B, H, T), *P = t4(B, H, T);
    Rng r = rng_stream(3, 0);
    real q[T][DK], k[T][DK];
    for (int bh = 0; bh < B * H; bh++) {
        for (int i = 0; i < T; i++)
            for (int d = 0; d < DK; d++) {
                q[i][d] = (real)rng_normal(&r);
                k[i][d] = (real)rng_normal(&r);
            }
        for (int i = 0; i < T; i++)
            for (int j = 0; j < T; j++) {
                double dot = 0;
                for (int d = 0; d < DK; d++) dot += q[i][d] * k[j][d];
                S->data[(bh * T + i) * T + j] = (real)(dot * attention_scale(SCALE_SQRT, 0, DK));
                P->data[(bh * T + i) * T + j] = 0;
            }
    }
    AttentionStats st = attention_stats(&g_arena, &(AttentionTrace){.scores = S, .scale = 1, .weights = P}, NULL);
    double n = (double)st.entries, tol = 5 * sqrt(2.0 / n) * 1.5; /* 5 sigma; 1.5: scores in a row share q */
    CHECK(fabs(st.score_std - 1) < tol, "score std %.4f, want 1 +- %.3f (n = %.0f)", st.score_std, tol, n);
    /* the same scores given raw, with the scale passed separately (as the model does) */
    for (size_t i = 0; i < S->size; i++) S->data[i] *= 8; /* back to q.k: 1/sqrt(64) = 1/8 */
    AttentionStats raw = attention_stats(&g_arena, &(AttentionTrace){.scores = S, .scale = (real)0.125, .weights = P}, NULL);
    CHECK(fabs(raw.score_std - st.score_std) < 1e-6, "scale passed separately: std %.6f vs %.6f", raw.score_std, st.score_std);
    arena_free(&g_arena);
}

static void test_attention_scale_modes(void)
{
    CHECK(attention_scale(SCALE_ONE, 0, 64) == 1, "scale 1");
    CHECK(attention_scale(SCALE_SQRT, 0, 64) == 0.125, "scale sqrt at dk=64 should be 1/8");
    CHECK(attention_scale(SCALE_DK, 0, 64) == 1.0 / 64, "scale dk");
    CHECK(attention_scale(SCALE_CONST, 8, 256) == 0.125, "scale constant 8");
}

/* Layer 0's attention weights, recomputed in double from the parameters: embeddings,
 * LayerNorm, q = a Wq + bq, k = a Wk + bk, S = s q.k per head with s = attention_scale(mode,
 * dk) (or the learned s_h), causal softmax. The head size dk differs from dmodel / heads, so a
 * multiplier computed from the width would show. */
static void check_layer0_weights(ScaleMode mode, double c)
{
    enum { B = 2, T = 5, C = 12, H = 2, DK = 5, V = 7 };
    GptConfig cfg = {.vocab = V, .context = T, .layers = 2, .dmodel = C, .heads = H, .dk = DK, .scale_mode = mode,
                     .scale_const = c, .init_gain = 3};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 4);
    Rng r = rng_stream(8, 0);
    for (int i = 0; i < m.n_params; i++) /* biases, gains and learned scales away from 0 and 1 */
        if (m.params[i]->ndim == 1)
            for (size_t j = 0; j < m.params[i]->size; j++) m.params[i]->data[j] += (real)(0.3 * rng_normal(&r));
    for (size_t j = 0; j < m.wte->size; j++) m.wte->data[j] *= 40; /* embeddings of std 0.8 */
    int tokens[B * T];
    for (int i = 0; i < B * T; i++) tokens[i] = (int)rng_below(&r, V);
    Arena acts;
    Tape tp;
    arena_init(&acts, 1 << 16);
    tape_init(&tp, &acts);
    tp.grad_enabled = false;
    tp.training = false;
    AttentionTrace trace[2] = {{0}, {0}};
    gpt_forward(&m, &tp, tokens, B, T, trace);
    for (int l = 0; l < 2; l++) {
        real want = mode == SCALE_LEARNED ? 1 : (real)attention_scale(mode, c, DK);
        CHECK(trace[l].scale == want, "mode %d: layer %d's multiplier is %.9g, attention_scale(mode, dk) is %.9g", mode, l,
              trace[l].scale, want);
    }
    const GptLayer *ly = &m.layer[0];
    double worst = 0;
    for (int b = 0; b < B; b++) {
        double a[T][C], q[T][H * DK], k[T][H * DK];
        for (int t = 0; t < T; t++) {
            double x[C], mu = 0, var = 0;
            for (int j = 0; j < C; j++) {
                x[j] = (double)m.wte->data[tokens[b * T + t] * C + j] + m.wpe->data[t * C + j];
                mu += x[j] / C;
            }
            for (int j = 0; j < C; j++) var += (x[j] - mu) * (x[j] - mu) / C;
            for (int j = 0; j < C; j++)
                a[t][j] = (x[j] - mu) / sqrt(var + GPT_LAYERNORM_EPS) * ly->ln1_g->data[j] + ly->ln1_b->data[j];
            for (int o = 0; o < H * DK; o++) {
                q[t][o] = ly->bq->data[o];
                k[t][o] = ly->bk->data[o];
                for (int j = 0; j < C; j++) {
                    q[t][o] += a[t][j] * ly->wq->data[j * H * DK + o];
                    k[t][o] += a[t][j] * ly->wk->data[j * H * DK + o];
                }
            }
        }
        for (int h = 0; h < H; h++) {
            double s = mode == SCALE_LEARNED ? ly->scale->data[h] : attention_scale(mode, c, DK);
            for (int i = 0; i < T; i++) {
                double S[T], mx = -INFINITY, sum = 0;
                for (int j = 0; j <= i; j++) {
                    S[j] = 0;
                    for (int d = 0; d < DK; d++) S[j] += q[i][h * DK + d] * k[j][h * DK + d];
                    S[j] *= s;
                    mx = test_max(mx, S[j]);
                }
                for (int j = 0; j <= i; j++) sum += exp(S[j] - mx);
                for (int j = 0; j < T; j++) {
                    double want = j <= i ? exp(S[j] - mx) / sum : 0;
                    double got = trace[0].weights->data[(((size_t)b * H + h) * T + i) * T + j];
                    worst = test_max(worst, fabs(got - want));
                }
            }
        }
    }
    CHECK(worst < 2e-5, "mode %d: layer 0's attention weights are off by %.3g from a double recomputation", mode, worst);
    tape_free(&tp);
    arena_free(&acts);
    gpt_free(&m);
}

static void test_attention_weights_match_a_recomputation_in_double(void)
{
    check_layer0_weights(SCALE_SQRT, 0);
    check_layer0_weights(SCALE_DK, 0);
    check_layer0_weights(SCALE_ONE, 0);
    check_layer0_weights(SCALE_CONST, 2.5);
    check_layer0_weights(SCALE_LEARNED, 0);
}

static void test_learning_rate_schedule(void)
{
    OptimConfig c = {.lr = 1e-3, .min_lr = 1e-4, .warmup = 10, .steps = 110};
    CHECK(fabs(optim_lr(&c, 0) - 1e-4) < 1e-12, "warmup starts at lr/warmup: %g", optim_lr(&c, 0));
    CHECK(fabs(optim_lr(&c, 9) - 1e-3) < 1e-12, "warmup ends at lr: %g", optim_lr(&c, 9));
    CHECK(optim_lr(&c, 10) < 1e-3 && optim_lr(&c, 10) > 0.999e-3, "cosine starts just below lr: %g", optim_lr(&c, 10));
    CHECK(fabs(optim_lr(&c, 59) - 5.5e-4) < 1e-12, "cosine midpoint is (lr + min)/2: %g", optim_lr(&c, 59));
    CHECK(fabs(optim_lr(&c, 109) - 1e-4) < 1e-12, "the last step (109) uses min_lr: %g", optim_lr(&c, 109));
    for (int s = 10; s < 109; s++)
        if (!CHECK(optim_lr(&c, s + 1) < optim_lr(&c, s), "the cosine must decrease at step %d", s)) break;
}

static void test_adamw_step_by_hand(void)
{
    arena_init(&g_arena, 1 << 16);
    Tensor *w = tensor_new2(&g_arena, 1, 2, "w"), *b = tensor_new2(&g_arena, 1, 2, "b");
    b->ndim = 1; /* a vector: no decay */
    w->data[0] = 1;
    w->data[1] = -2;
    b->data[0] = 0.5f;
    b->data[1] = 0.25f;
    tensor_grad(&g_arena, w);
    tensor_grad(&g_arena, b);
    Tensor *ps[2] = {w, b};
    bool decay[2] = {true, false};
    OptimConfig c = {.kind = name_find(optim_name, "adamw"), .lr = 0.1, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .weight_decay = 0.5};
    Optimizer o;
    optim_init(&o, &c, ps, decay, 2);
    real g[2][2] = {{0.3f, -0.4f}, {1.5f, 0}};
    double want_w[2] = {1, -2}, want_b[2] = {0.5, 0.25}, m[2][2] = {{0}}, v[2][2] = {{0}};
    for (int step = 0; step < 3; step++) {
        for (int j = 0; j < 2; j++) {
            w->grad[j] = g[0][j] * (step + 1);
            b->grad[j] = g[1][j] * (step + 1);
        }
        int bad;
        CHECK(optim_step(&o, step, 0.1, &bad), "a finite update was refused");
        /* the same update written out: m, v moments with bias correction, decoupled decay */
        double *want[2] = {want_w, want_b};
        for (int p = 0; p < 2; p++)
            for (int j = 0; j < 2; j++) {
                double gj = g[p][j] * (step + 1);
                m[p][j] = 0.9 * m[p][j] + 0.1 * gj;
                v[p][j] = 0.99 * v[p][j] + 0.01 * gj * gj;
                double mh = m[p][j] / (1 - pow(0.9, step + 1)), vh = v[p][j] / (1 - pow(0.99, step + 1));
                want[p][j] -= 0.1 * (mh / (sqrt(vh) + 1e-8) + (p == 0 ? 0.5 : 0) * want[p][j]);
            }
    }
    for (int j = 0; j < 2; j++) {
        CHECK(fabs(w->data[j] - want_w[j]) < 1e-5, "w[%d] = %.7f, want %.7f", j, w->data[j], want_w[j]);
        CHECK(fabs(b->data[j] - want_b[j]) < 1e-5, "b[%d] = %.7f, want %.7f", j, b->data[j], want_b[j]);
    }
    /* gradient norm and clipping */
    double norm = optim_grad_norm(&o), want = sqrt(0.9 * 0.9 + 1.2 * 1.2 + 4.5 * 4.5);
    CHECK(fabs(norm - want) < 1e-5, "grad norm %g, want %g", norm, want);
    optim_scale_grads(&o, 1 / norm);
    CHECK(fabs(optim_grad_norm(&o) - 1) < 1e-6, "after clipping to 1 the norm is %g", optim_grad_norm(&o));
    optim_free(&o);
    arena_free(&g_arena);
}

/* eps guards the division, outside the square root: p -= lr mhat / (sqrt(vhat) + eps). With
 * eps comparable to sqrt(vhat) the two placements differ by a factor of 2 here. */
static void test_adamw_eps_outside_the_square_root(void)
{
    arena_init(&g_arena, 1 << 16);
    Tensor *w = tensor_new2(&g_arena, 1, 3, "w");
    tensor_grad(&g_arena, w);
    real g[3] = {0.05f, -0.1f, 0.2f};
    for (int j = 0; j < 3; j++) {
        w->data[j] = 1;
        w->grad[j] = g[j];
    }
    Tensor *ps[1] = {w};
    bool decay[1] = {false};
    OptimConfig c = {.kind = name_find(optim_name, "adamw"), .lr = 0.01, .beta1 = 0.9, .beta2 = 0.999, .eps = 0.1};
    Optimizer o;
    optim_init(&o, &c, ps, decay, 1);
    int bad;
    CHECK(optim_step(&o, 0, 0.01, &bad), "a finite update was refused");
    for (int j = 0; j < 3; j++) {
        /* first step: mhat = g, vhat = g^2, so the step is lr g / (|g| + eps) */
        double want = 1 - 0.01 * g[j] / (fabs(g[j]) + 0.1), inside = 1 - 0.01 * g[j] / sqrt(g[j] * g[j] + 0.1);
        CHECK(fabs(w->data[j] - want) < 1e-6, "w[%d] = %.8f, want %.8f (%.8f would put eps inside the root)", j,
              w->data[j], want, inside);
    }
    optim_free(&o);
    arena_free(&g_arena);
}

static void test_sgd_step(void)
{
    arena_init(&g_arena, 1 << 16);
    Tensor *w = tensor_new2(&g_arena, 1, 3, "w");
    tensor_grad(&g_arena, w);
    for (int j = 0; j < 3; j++) {
        w->data[j] = (real)j;
        w->grad[j] = (real)(1 - j);
    }
    Tensor *ps[1] = {w};
    bool decay[1] = {false};
    OptimConfig c = {.kind = name_find(optim_name, "sgd"), .lr = 0.5};
    Optimizer o;
    optim_init(&o, &c, ps, decay, 1);
    int bad = -1;
    CHECK(optim_step(&o, 0, 0.5, &bad), "a finite update was refused");
    for (int j = 0; j < 3; j++) CHECK(w->data[j] == j - 0.5f * (1 - j), "sgd: w[%d] = %g", j, w->data[j]);
    /* an update that would overflow changes nothing and names the parameter */
    real before[3];
    memcpy(before, w->data, sizeof before);
    w->grad[1] = 3e38f;
    CHECK(!optim_step(&o, 1, 1e3, &bad) && bad == 0, "an overflowing update must be refused (bad = %d)", bad);
    CHECK(memcmp(before, w->data, sizeof before) == 0, "a refused update changed the parameters");
    optim_free(&o);
    arena_free(&g_arena);
}

/* The optimizer works on chunks of OPTIM_CHUNK elements spread over the threads: three
 * parameters of several chunks each (one of them not a whole number of chunks), updated in
 * parallel. The update matches the same update done one parameter at a time, and a NaN in the
 * last chunk of the third parameter refuses the step, names that parameter, changes nothing. */
static void test_optimizer_chunks_update_and_refuse_in_parallel(void)
{
    enum { N_P = 3 };
    int rows[N_P] = {40, 17, 33}; /* x 1024 columns: 10, 4.25 and 8.25 chunks */
    arena_init(&g_arena, 1 << 23);
    Tensor *ps[N_P], *single[N_P];
    bool decay[N_P] = {true, false, true};
    for (int i = 0; i < N_P; i++) {
        ps[i] = tensor_new2(&g_arena, rows[i], 1024, "p");
        single[i] = tensor_new2(&g_arena, rows[i], 1024, "q");
        tensor_grad(&g_arena, ps[i]);
        tensor_grad(&g_arena, single[i]);
        for (size_t j = 0; j < ps[i]->size; j++) {
            ps[i]->data[j] = single[i]->data[j] = (real)sin(0.01 * (double)j + i);
            ps[i]->grad[j] = single[i]->grad[j] = (real)cos(0.03 * (double)j - i);
        }
    }
    OptimConfig c = {.kind = name_find(optim_name, "adamw"), .lr = 1e-2, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .weight_decay = 0.1};
    Optimizer all, one[N_P];
    optim_init(&all, &c, ps, decay, N_P);
    int bad = -1;
    omp_set_num_threads(2);
    CHECK(all.n_chunks == 10 + 5 + 9, "%zu chunks, want 24", all.n_chunks);
    CHECK(optim_step(&all, 0, 1e-2, &bad), "a finite update was refused");
    omp_set_num_threads(1);
    for (int i = 0; i < N_P; i++) {
        optim_init(&one[i], &c, &single[i], &decay[i], 1);
        CHECK(optim_step(&one[i], 0, 1e-2, &bad), "a finite update was refused");
        CHECK(memcmp(ps[i]->data, single[i]->data, ps[i]->size * sizeof(real)) == 0,
              "parameter %d: the update over all parameters differs from its own", i);
        CHECK(memcmp(all.state[1] + (i == 0 ? 0 : i == 1 ? ps[0]->size : ps[0]->size + ps[1]->size), one[i].state[1],
                     ps[i]->size * sizeof(real)) == 0, "parameter %d: the second moments differ", i);
        optim_free(&one[i]);
    }
    omp_set_num_threads(2);
    real *before = mem_alloc(ps[2]->size * sizeof(real));
    memcpy(before, ps[2]->data, ps[2]->size * sizeof(real));
    double norm = optim_grad_norm(&all);
    ps[2]->grad[ps[2]->size - 1] = NAN;
    CHECK(isnan(optim_grad_norm(&all)) && isfinite(norm), "the norm must see the NaN in the last chunk");
    CHECK(!optim_step(&all, 1, 1e-2, &bad) && bad == 2, "the NaN must refuse the step and name parameter 2 (bad = %d)", bad);
    CHECK(memcmp(before, ps[2]->data, ps[2]->size * sizeof(real)) == 0, "a refused update changed the parameters");
    mem_free(before);
    optim_free(&all);
    arena_free(&g_arena);
}

static void test_xavier_init_bounds_and_variance(void)
{
    GptConfig cfg = {.vocab = 50, .context = 20, .layers = 1, .dmodel = 64, .heads = 4, .dk = 32,
                     .scale_mode = SCALE_LEARNED, .scale_init = SCALE_SQRT, .init_gain = 2};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 1);
    const Tensor *wq = m.layer[0].wq; /* [64, 128] */
    double bound = 2 * sqrt(6.0 / (64 + 128)), var = 0, maxabs = 0;
    for (size_t i = 0; i < wq->size; i++) {
        var += (double)wq->data[i] * wq->data[i];
        maxabs = test_max(maxabs, fabs(wq->data[i]));
    }
    var /= wq->size;
    /* U(-b, b) has variance b^2 / 3; 8192 samples: relative standard error ~ 0.9%, allow 5% */
    CHECK(maxabs <= bound && maxabs > 0.99 * bound, "max |w| %g, bound %g", maxabs, bound);
    CHECK(fabs(var / (bound * bound / 3) - 1) < 0.05, "variance %g, want b^2/3 = %g", var, bound * bound / 3);
    double e = 0;
    for (size_t i = 0; i < m.wte->size; i++) e += (double)m.wte->data[i] * m.wte->data[i];
    e = sqrt(e / m.wte->size);
    CHECK(fabs(e - 0.02) < 0.002, "embedding std %g, want 0.02", e);
    CHECK(m.layer[0].ln1_g->data[0] == 1 && m.layer[0].bq->data[3] == 0, "LN gain 1, bias 0");
    CHECK(fabs(m.layer[0].scale->data[2] - 1 / sqrt(32.0)) < 1e-7, "learned scale starts at 1/sqrt(dk)");
    CHECK(gpt_param(&m, "h.0.attn.wk") == m.layer[0].wk && gpt_param(&m, "nope") == NULL, "parameter lookup");
    CHECK(gpt_param_decays(m.layer[0].w1) && !gpt_param_decays(m.layer[0].b1), "decay on matrices only");
    gpt_free(&m);
}

static void test_sgd_momentum_step_by_hand(void)
{
    arena_init(&g_arena, 1 << 16);
    Tensor *w = tensor_new2(&g_arena, 1, 3, "w");
    tensor_grad(&g_arena, w);
    for (int j = 0; j < 3; j++) w->data[j] = (real)(j + 1);
    Tensor *ps[1] = {w};
    bool decay[1] = {true};
    OptimConfig c = {.kind = name_find(optim_name, "sgd"), .momentum = 0.9, .weight_decay = 0.1};
    Optimizer o;
    optim_init(&o, &c, ps, decay, 1);
    CHECK(o.state[2] != NULL, "with momentum the optimizer keeps a momentum buffer");
    /* two steps: u1 = g1, p1 = p0 - lr (u1 + wd p0);  u2 = mu u1 + g2, p2 = p1 - lr (u2 + wd p1) */
    real p[3], u[3] = {0, 0, 0}, g1[3] = {1, -2, 0.5f}, g2[3] = {0.25f, 1, -1}, lr = 0.5f, mu = 0.9f, wd = 0.1f;
    for (int j = 0; j < 3; j++) p[j] = w->data[j];
    const real *g[2] = {g1, g2};
    int bad = -1;
    for (int step = 0; step < 2; step++) {
        for (int j = 0; j < 3; j++) {
            w->grad[j] = g[step][j];
            u[j] = mu * u[j] + g[step][j];
            p[j] = p[j] - lr * (u[j] + wd * p[j]);
        }
        CHECK(optim_step(&o, step, lr, &bad), "step %d refused", step);
    }
    for (int j = 0; j < 3; j++)
        CHECK(w->data[j] == p[j] && o.state[2][j] == u[j], "momentum: w[%d] = %.9g (want %.9g), u = %.9g (want %.9g)", j,
              w->data[j], p[j], o.state[2][j], u[j]);
    optim_free(&o);
    c.momentum = 0;
    optim_init(&o, &c, ps, decay, 1);
    CHECK(!optim_state_kept(&o, 0) && !optim_state_kept(&o, 1) && !optim_state_kept(&o, 2),
          "plain SGD keeps no buffer at all (not Adam's m and v, not a momentum)");
    optim_free(&o);
    /* AdamW keeps its m and v only, even with a --momentum left from an SGD run */
    c.kind = name_find(optim_name, "adamw"), c.momentum = 0.9, c.beta1 = 0.9, c.beta2 = 0.99, c.eps = 1e-8;
    optim_init(&o, &c, ps, decay, 1);
    CHECK(optim_step(&o, 0, lr, &bad) && optim_state_kept(&o, 0) && optim_state_kept(&o, 1) && o.state[0][1] != 0 &&
              !optim_state_kept(&o, 2),
          "AdamW with --momentum: its m and v only, no momentum buffer");
    optim_free(&o);
    arena_free(&g_arena);
}

/* The variance of the entries of q = LN(x) Wq + bq at init, over a batch of real inputs. */
static double query_variance(QkInit init)
{
    enum { B = 4, T = 16, C = 64, H = 4, DK = 64, V = 50 };
    GptConfig cfg = {.vocab = V, .context = T, .layers = 1, .dmodel = C, .heads = H, .dk = DK,
                     .scale_mode = SCALE_SQRT, .qk_init = init, .init_gain = 1};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 5);
    arena_init(&g_arena, 1 << 20);
    Tape tp;
    tape_init(&tp, &g_arena);
    tp.grad_enabled = false;
    int tokens[B * T], pos[B * T];
    for (int i = 0; i < B * T; i++) {
        tokens[i] = (i * 13 + 5) % V;
        pos[i] = i % T;
    }
    Tensor *x = op_add(&tp, op_embedding(&tp, m.wte, tokens, B, T), op_embedding(&tp, m.wpe, pos, B, T));
    Tensor *a = op_layernorm(&tp, x, m.layer[0].ln1_g, m.layer[0].ln1_b, (real)GPT_LAYERNORM_EPS);
    Tensor *q = op_linear(&tp, a, m.layer[0].wq, m.layer[0].bq);
    double var = 0;
    for (size_t i = 0; i < q->size; i++) var += (double)q->data[i] * q->data[i] / (double)q->size;
    tape_free(&tp);
    arena_free(&g_arena);
    gpt_free(&m);
    return var;
}

static void test_qk_init_unit_gives_unit_variance_queries(void)
{
    /* with C = 64 and H dk = 256: Xavier gives Var(q_i) = 2C / (C + H dk) = 0.4, unit gives 1
     * (the mean of 256 columns' |W_j|^2: relative error ~ 1%; allowed 10%) */
    double unit = query_variance(QK_INIT_UNIT), xavier = query_variance(QK_INIT_XAVIER);
    CHECK(fabs(unit - 1) < 0.1, "--qk-init=unit: Var(q_i) = %.4f, want 1", unit);
    CHECK(fabs(xavier - 0.4) < 0.04, "--qk-init=xavier: Var(q_i) = %.4f, want 2C/(C + H dk) = 0.4", xavier);
}

static void test_learned_multipliers_start_where_asked(void)
{
    GptConfig cfg = {.vocab = 9, .context = 4, .layers = 2, .dmodel = 16, .heads = 2, .dk = 8,
                     .scale_mode = SCALE_LEARNED, .init_gain = 1};
    struct {
        ScaleMode init;
        double c, want;
        ScaleParam param;
    } cases[] = {{SCALE_ONE, 0, 1, SCALE_PARAM_LINEAR}, {SCALE_DK, 0, 1.0 / 8, SCALE_PARAM_LINEAR},
                 {SCALE_SQRT, 0, 1 / sqrt(8.0), SCALE_PARAM_LOG}, {SCALE_CONST, 4, 0.25, SCALE_PARAM_LOG}};
    for (int k = 0; k < 4; k++) {
        cfg.scale_init = cases[k].init;
        cfg.scale_init_const = cases[k].c;
        cfg.scale_param = cases[k].param;
        Gpt m;
        gpt_create(&m, &cfg);
        gpt_init(&m, 1);
        const char *name = cases[k].param == SCALE_PARAM_LOG ? "h.1.attn.log_scale" : "h.1.attn.scale";
        double stored = cases[k].param == SCALE_PARAM_LOG ? log(cases[k].want) : cases[k].want;
        CHECK(gpt_param(&m, name) == m.layer[1].scale && fabs(m.layer[1].scale->data[1] - stored) < 1e-7 &&
                  fabs(gpt_head_scale(&m.layer[1], &m.cfg, 1) - cases[k].want) < 1e-6,
              "case %d: %s starts at %g, want %g (s = %g)", k, name, (double)m.layer[1].scale->data[1], stored, cases[k].want);
        gpt_free(&m);
    }
    cfg.attn = name_find(attn_kind_name, "cosine");
    cfg.tau_init = 7;
    cfg.scale_param = SCALE_PARAM_LINEAR;
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 1);
    CHECK(gpt_param(&m, "h.0.attn.tau") == m.layer[0].scale && m.layer[0].scale->data[0] == 7, "cosine: tau starts at 7");
    gpt_free(&m);
}

/* The third article's claim, at the model: unscaled scores at dk = 512 (std ~ 22.6 with unit
 * q, k entries) overflow fp16 in a softmax that does not subtract the row max (exp(S) > 65504
 * once S > 11.09), not with the stable softmax, and not in bf16 (whose range is fp32's). */
static FormatCounts attention_rounding(NumFormat f, SoftmaxKind sm, bool *finite)
{
    enum { B = 2, T = 6, V = 11 };
    GptConfig cfg = {.vocab = V, .context = T, .layers = 1, .dmodel = 64, .heads = 1, .dk = 512, .scale_mode = SCALE_ONE,
                     .qk_init = QK_INIT_UNIT, .precision = f, .softmax = sm, .init_gain = 1};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 2);
    for (size_t j = 0; j < m.wte->size; j++) m.wte->data[j] *= 50; /* distinct tokens, LayerNorm'ed to unit variance */
    arena_init(&g_arena, 1 << 20);
    Tape tp;
    tape_init(&tp, &g_arena);
    tp.grad_enabled = false;
    tp.training = false;
    int tokens[B * T];
    for (int i = 0; i < B * T; i++) tokens[i] = (i * 5 + 1) % V;
    AttentionTrace trace[1] = {{0}};
    gpt_forward(&m, &tp, tokens, B, T, trace);
    *finite = find_nonfinite(trace[0].weights->data, trace[0].weights->size) == SIZE_MAX;
    FormatCounts c = trace[0].rounding;
    tape_free(&tp);
    arena_free(&g_arena);
    gpt_free(&m);
    return c;
}

static void test_fp16_overflows_with_the_naive_softmax_only(void)
{
    bool finite;
    FormatCounts c = attention_rounding(FORMAT_FP16, SOFTMAX_NAIVE, &finite);
    CHECK(c.overflow > 0 && !finite, "fp16, naive softmax, s = 1, dk = 512: %ld overflows, weights %s; want overflows",
          c.overflow, finite ? "finite" : "not finite");
    c = attention_rounding(FORMAT_FP16, SOFTMAX_STABLE, &finite);
    CHECK(c.overflow == 0 && finite, "fp16, stable softmax: %ld overflows, weights %s; want none", c.overflow,
          finite ? "finite" : "not finite");
    c = attention_rounding(FORMAT_BF16, SOFTMAX_NAIVE, &finite);
    CHECK(c.overflow == 0 && finite, "bf16, naive softmax: %ld overflows; want none (bf16 reaches 3.4e38)", c.overflow);
    c = attention_rounding(FORMAT_FP32, SOFTMAX_STABLE, &finite);
    CHECK(c.overflow == 0 && c.underflow == 0 && finite, "fp32: nothing is rounded");
}

/* The per-query |dL/dS| the attention records (AttentionTrace.row_grad_norms, by a watch on P),
 * against the formula in double from P and dL/dP (kept): with g = dL/dP, sqrt(sum_j (p_j (g_j -
 * sum_i g_i p_i))^2) over the keys the row sees; -1 for a query row no gradient reached (in the
 * last layer, the positions the loss leaves out). For the textbook softmax and the emulated one. */
static void check_row_grad_norms(NumFormat f, SoftmaxKind sm)
{
    enum { B = 2, T = 6, V = 9, H = 2, L = 2 };
    GptConfig cfg = {.vocab = V, .context = T, .layers = L, .dmodel = 16, .heads = H, .dk = 8, .scale_mode = SCALE_SQRT,
                     .precision = f, .softmax = sm, .init_gain = 1};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 5);
    int tokens[B * T], targets[B * T];
    unsigned char in_loss[B * T];
    for (int i = 0; i < B * T; i++) {
        tokens[i] = (i * 5 + 1) % V;
        targets[i] = (i * 7 + 2) % V;
        in_loss[i] = i % T >= T / 2; /* the first half of each sequence is left out of the loss */
    }
    arena_init(&g_arena, 1 << 16);
    Tape tp;
    tape_init(&tp, &g_arena);
    tp.keep_grads = true; /* dL/dP stays, to recompute from */
    AttentionTrace trace[L] = {{.want_row_grads = true}, {.want_row_grads = true}};
    tape_backward(&tp, op_cross_entropy(&tp, gpt_forward(&m, &tp, tokens, B, T, trace), targets, in_loss));
    double worst = 0;
    int unreached = 0, wrong_unreached = 0;
    for (int l = 0; l < L; l++) {
        const Tensor *P = trace[l].weights;
        for (int row = 0; row < B * H * T; row++) {
            int n = row % T + 1; /* causal */
            const real *p = P->data + row * T, *g = P->grad + row * T;
            double dot = 0, sq = 0;
            bool reached = false;
            for (int j = 0; j < n; j++) {
                dot += (double)g[j] * p[j];
                reached |= g[j] != 0;
            }
            for (int j = 0; j < n; j++) sq += (p[j] * (g[j] - dot)) * (p[j] * (g[j] - dot));
            real got = trace[l].row_grad_norms[row];
            if (!reached) {
                unreached++;
                wrong_unreached += got != -1;
            } else {
                worst = test_max(worst, fabs(got - sqrt(sq)) / fmax(sqrt(sq), 1e-6));
            }
        }
    }
    const char *name = format_name(f, NULL);
    CHECK(worst < 1e-6, "%s: |dL/dS| of a row off by %g (relative)", name, worst);
    CHECK(unreached == B * H * (T / 2) && wrong_unreached == 0,
          "%s: %d rows no gradient reached (want %d), %d of them not marked -1", name, unreached, B * H * (T / 2),
          wrong_unreached);
    tape_free(&tp);
    arena_free(&g_arena);
    gpt_free(&m);
}

static void test_row_grad_norms_of_each_query(void)
{
    check_row_grad_norms(FORMAT_FP32, SOFTMAX_STABLE);
    check_row_grad_norms(FORMAT_FP32, SOFTMAX_NAIVE);
    check_row_grad_norms(FORMAT_BF16, SOFTMAX_STABLE);
}

/* Every row of the attention variants' table is whole: a rule, a formula and help; --scale or
 * a multiplier of its own, not both (one slot per layer), and a reason when not scaled (for
 * --scale's message); a multiplier with its name, parameter, start and column, the column a name
 * of its own in the log; options it reads that exist; names that --attn finds back. */
static void test_attention_variant_rows_are_whole(void)
{
    int n = 0;
    for (const AttnSpec *a; (a = attn_spec(n)) != NULL; n++) {
        const HeadMultiplier *m = a->multiplier;
        CHECK(a->name && a->help && a->formula && a->scores, "--attn=%s: a row lacks its rule, formula or help", a->name);
        CHECK(!(a->scaled && m), "--attn=%s: scaled and a multiplier of its own", a->name);
        CHECK(a->scaled || a->unscaled_why, "--attn=%s: not scaled, and no reason given", a->name);
        CHECK(!m || (m->name && m->param && m->start && m->column && m->logged), "--attn=%s: its multiplier lacks a field",
              a->name);
        CHECK(!a->extra_bytes || a->remedy, "--attn=%s: extra memory without a remedy", a->name);
        CHECK(name_find(attn_kind_name, a->name) == n, "--attn=%s finds row %d, not %d", a->name, name_find(attn_kind_name, a->name), n);
        for (int r = 0; r < ATTN_MAX_READS && a->reads[r]; r++)
            CHECK(options_index(a->reads[r]) >= 0, "--attn=%s reads --%s, which is no option", a->name, a->reads[r]);
        /* the log's column l<layer>_<column>: a name of its own, written as a CSV header allows */
        if (m && m->column) {
            bool plain = m->column[0] != 0;
            for (const char *ch = m->column; *ch; ch++) plain &= (*ch >= 'a' && *ch <= 'z') || (*ch >= '0' && *ch <= '9') || *ch == '_';
            CHECK(plain, "--attn=%s: its multiplier's column \"%s\" is not lower-case letters, digits and _", a->name, m->column);
            for (int c = 0; c < N_LOG_COLUMNS; c++)
                CHECK(c == LOG_MULTIPLIER || !log_column_per_layer(c) || strcmp(g_log_columns[c].name + 4, m->column),
                      "--attn=%s: its multiplier's column is the log's %s", a->name, g_log_columns[c].name);
            CHECK(strcmp(attn_learned_s.column, m->column), "--attn=%s logs its multiplier in the learned s's column", a->name);
            for (int o = 0; o < n; o++)
                CHECK(!attn_spec(o)->multiplier || attn_spec(o)->multiplier == m || strcmp(attn_spec(o)->multiplier->column, m->column),
                      "--attn=%s and --attn=%s log their multipliers in one column", attn_spec(o)->name, a->name);
        }
    }
    CHECK(n >= 1 && name_find(attn_kind_name, "dot") >= 0 && name_find(attn_kind_name, "none") == -1, "%d variants", n);
}

/* Each optimizer declares only its own state, and the names are unique across the table (a
 * checkpoint's state names say whose state it holds); its hyper-parameters are options. */
static void test_optimizer_rows(void)
{
    const OptimState *state, *other;
    int kind, k, kind2, k2, n = 0;
    for (int b = 0; (state = optim_buffer(b, &kind, &k)) != NULL; b++, n++)
        for (int c = b + 1; (other = optim_buffer(c, &kind2, &k2)) != NULL; c++)
            CHECK(strcmp(state->name, other->name) != 0, "state \"%s\" of --optim=%s and of --optim=%s", state->name,
                  optim_name(kind, NULL), optim_name(kind2, NULL));
    CHECK(n <= OPTIM_MAX_BUFFERS, "%d buffers, room for %d", n, OPTIM_MAX_BUFFERS);
    const OptimSpec *sgd = optim_spec(name_find(optim_name, "sgd")), *adamw = optim_spec(name_find(optim_name, "adamw"));
    CHECK(sgd && sgd->n_state == 1 && !strcmp(sgd->state[0].name, "momentum"), "SGD declares its momentum only");
    CHECK(adamw && adamw->n_state == 2 && adamw->prepare, "AdamW declares m and v, and its constants of a step");
    for (int i = 0; optim_spec(i); i++)
        for (int r = 0; r < OPTIM_MAX_READS && optim_spec(i)->reads[r]; r++)
            CHECK(options_index(optim_spec(i)->reads[r]) >= 0, "--optim=%s reads --%s, which is no option",
                  optim_name(i, NULL), optim_spec(i)->reads[r]);
}

/* The scale table: every row's flags, read by ./train's own option parser, give the s of the
 * row (a learned s: where it starts); names, constants and labels as the study writes them. */
static void test_scale_table_rows(void)
{
    char flags[128], label[64], err[256];
    bool saw_rule = false;
    for (int i = 0; i < g_n_scale_rows; i++) {
        const ScaleRow *r = &g_scale_rows[i];
        const char *name = r->mode == SCALE_CONST ? "8" : r->name; /* "<c>": a constant stands for it */
        double c;
        CHECK(scale_row_find(name, &c) == r, "row %s: found by its name", r->name);
        saw_rule |= !strcmp(r->name, g_scale_rule) && r->mode == SCALE_SQRT;
        scale_write_flags(name, flags, sizeof flags);
        Options o;
        options_defaults(&o);
        o.model.dk = 64;
        bool ok = true;
        for (char *f = strtok(flags, " "); f; f = strtok(NULL, " ")) { /* "--name=value" */
            char *eq = strchr(f, '=');
            CHECK(eq && !strncmp(f, "--", 2), "row %s: flag %s", r->name, f);
            if (!eq) break;
            *eq = '\0';
            ok = ok && options_set(&o, f + 2, eq + 1, "test", err, sizeof err);
        }
        CHECK(ok, "row %s: its flags are refused: %s", r->name, err);
        if (r->no_scale) {
            CHECK(!flags[0] && isnan(scale_row_s(r, c, 64)), "row %s: no flags and no s", r->name);
            continue;
        }
        double want = o.model.scale_mode == SCALE_LEARNED ? attention_scale(o.model.scale_init, o.model.scale_init_const, 64)
                                                          : attention_scale(o.model.scale_mode, o.model.scale_const, 64);
        CHECK(scale_row_s(r, c, 64) == want && (o.model.scale_mode == SCALE_LEARNED) == (r->mode == SCALE_LEARNED),
              "row %s: s at dk 64 %g, its flags give %g", r->name, scale_row_s(r, c, 64), want);
        if (r->mode != SCALE_CONST && r->mode != SCALE_LEARNED)
            CHECK(!strcmp(scale_mode_name(r->mode, NULL), r->name) && !strcmp(scale_init_name(r->mode, NULL), r->name),
                  "row %s: --scale and --scale-init spell it as the row does", r->name);
    }
    CHECK(saw_rule, "the rule %s is a row with s = 1/sqrt(dk)", g_scale_rule);
    double c;
    const char *refused[] = {"0", "-8", "+8", " 8", "8 ", "inf", "nan", "0x8", "1e999", "", "sqrt(dk)", "learned"};
    for (int i = 0; i < (int)(sizeof refused / sizeof refused[0]); i++)
        CHECK(!scale_row_find(refused[i], &c), "\"%s\" is not a scale", refused[i]);
    CHECK(scale_row_find("0.5", &c) && c == 0.5 && scale_row_find("8", &c) && c == 8, "constants read as numbers");
    CHECK(!strcmp(scale_write_label("sqrt", SCALE_MARKDOWN, label, sizeof label), "1/√dₖ"), "label %s", label);
    CHECK(!strcmp(scale_write_label("learned-sqrt", SCALE_PLOT, label, sizeof label), "learned from 1/√dk"), "label %s", label);
    CHECK(!strcmp(scale_write_label("learned-1", SCALE_ASCII, label, sizeof label), "learned from 1"), "label %s", label);
    CHECK(!strcmp(scale_write_label("12.5", SCALE_ASCII, label, sizeof label), "1/12.5"), "label %s", label);
    CHECK(!strcmp(scale_write_label("none", SCALE_MARKDOWN, label, sizeof label), "none"), "label %s", label);
    CHECK(!strcmp(scale_write_divisor("dk", SCALE_ASCII, label, sizeof label), "dk"), "divisor %s", label);
    CHECK(!strcmp(scale_write_flags("12.5", flags, sizeof flags), "--scale=12.5"), "flags %s", flags);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"metrics: uniform attention has entropy log n and max weight 1/n", test_uniform_attention_entropy_and_max_weight},
        {"metrics: one-hot attention, known score std, padding rows", test_one_hot_attention_and_padding_rows},
        {"metrics: per-query Jacobian norms (saturated rows too) and gradient quantiles", test_per_query_jacobian_and_gradient_quantiles},
        {"metrics: score std of random q, k is 1 with 1/sqrt(dk)", test_score_std_of_random_unit_vectors_is_one_after_sqrt_scale},
        {"model: attention scale modes", test_attention_scale_modes},
        {"model: the scale table's rows: flags, s, names, constants, labels", test_scale_table_rows},
        {"model: every attention variant's row is whole", test_attention_variant_rows_are_whole},
        {"model: each layer's multiplier and weights, against a recomputation in double", test_attention_weights_match_a_recomputation_in_double},
        {"optim: warmup and cosine schedule", test_learning_rate_schedule},
        {"optim: AdamW matches the update written out; norm and clipping", test_adamw_step_by_hand},
        {"optim: AdamW's eps is outside the square root", test_adamw_eps_outside_the_square_root},
        {"optim: SGD", test_sgd_step},
        {"optim: chunks of all parameters are updated in parallel, and a NaN in the last one refuses the step", test_optimizer_chunks_update_and_refuse_in_parallel},
        {"model: Xavier bounds, embedding std, LN and scale init", test_xavier_init_bounds_and_variance},
        {"optim: SGD with heavy-ball momentum, by hand", test_sgd_momentum_step_by_hand},
        {"optim: each optimizer's own state, unique names, its options", test_optimizer_rows},
        {"model: --qk-init=unit gives q entries of variance 1 (Xavier: 2C/(C + H dk))", test_qk_init_unit_gives_unit_variance_queries},
        {"model: a learned scale (or log scale, or tau) starts where asked", test_learned_multipliers_start_where_asked},
        {"model: fp16 overflows at dk = 512, s = 1 with the naive softmax only; bf16 does not", test_fp16_overflows_with_the_naive_softmax_only},
        {"model: each query row's |dL/dS|, -1 where no gradient came, textbook and emulated softmax", test_row_grad_norms_of_each_query},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
