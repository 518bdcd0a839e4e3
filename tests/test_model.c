/* test_model.c - metrics on constructed cases, the optimizer, the schedule, init and scale. */
#include "gradcheck.h"
#include "test.h"

#include "../model/gpt.h"
#include "../model/metrics.h"
#include "../model/optim.h"
#include "../stats/score_stats.h"
#include "../model/train_step.h"
#include "../data/data.h"
#include "../base/rng.h"

#include <math.h>
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
    AttentionStats st = attention_stats(&g_arena, &(AttentionTrace){S, 1, P}, NULL);
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
    AttentionStats st = attention_stats(&g_arena, &(AttentionTrace){S, 1, P}, valid);
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
    AttentionStats st = attention_stats(&g_arena, &(AttentionTrace){S, 1, P}, NULL);
    double n = (double)st.entries, tol = 5 * sqrt(2.0 / n) * 1.5; /* 5 sigma; 1.5: scores in a row share q */
    CHECK(fabs(st.score_std - 1) < tol, "score std %.4f, want 1 +- %.3f (n = %.0f)", st.score_std, tol, n);
    /* the same scores given raw, with the scale passed separately (as the model does) */
    for (size_t i = 0; i < S->size; i++) S->data[i] *= 8; /* back to q.k: 1/sqrt(64) = 1/8 */
    AttentionStats raw = attention_stats(&g_arena, &(AttentionTrace){S, (real)0.125, P}, NULL);
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
    OptimConfig c = {.kind = OPTIM_ADAMW, .lr = 0.1, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .weight_decay = 0.5};
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
    OptimConfig c = {.kind = OPTIM_SGD, .lr = 0.5};
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

static void test_xavier_init_bounds_and_variance(void)
{
    GptConfig cfg = {.vocab = 50, .context = 20, .layers = 1, .dmodel = 64, .heads = 4, .dk = 32,
                     .scale_mode = SCALE_LEARNED, .init_gain = 2};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 1);
    const Tensor *wq = m.layer[0].wq; /* [64, 128] */
    double bound = 2 * sqrt(6.0 / (64 + 128)), var = 0, maxabs = 0;
    for (size_t i = 0; i < wq->size; i++) {
        var += (double)wq->data[i] * wq->data[i];
        maxabs = fmax(maxabs, fabs(wq->data[i]));
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

/* The steps the trainer runs (batch, forward, loss, backward, norm, clipping, update, reset):
 * after the first one, nothing is allocated. (./train also computes the metrics on log
 * steps; they take their scratch space from the tape's arena.) */
static void test_training_steps_allocate_nothing_after_the_first(void)
{
    DataConfig dc = {.task = TASK_COPY, .symbols = 6, .min_len = 2, .max_len = 5, .val_size = 16, .context = 12, .seed = 1};
    Dataset d;
    char err[256];
    CHECK(dataset_open(&d, &dc, err, sizeof err), "%s", err);
    GptConfig cfg = {.vocab = d.vocab.size, .context = 12, .layers = 2, .dmodel = 16, .heads = 2, .dk = 8,
                     .scale_mode = SCALE_LEARNED, .attn_dropout = 0.1, .dropout = 0.1, .init_gain = 1};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 1);
    bool decay[GPT_MAX_PARAMS];
    for (int i = 0; i < m.n_params; i++) decay[i] = gpt_param_decays(m.params[i]);
    OptimConfig oc = {.kind = OPTIM_ADAMW, .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .steps = 10};
    Optimizer o;
    optim_init(&o, &oc, m.params, decay, m.n_params);
    Batch b;
    batch_alloc(&b, 4, 12);
    Arena acts;
    Tape tp;
    arena_init(&acts, 1024); /* far too small: the first step must grow it */
    tape_init(&tp, &acts);
    uint64_t after_first = 0;
    Trainer t = {.model = &m, .opt = &o, .tape = &tp, .seed = 1, .clip = 1.0};
    for (int step = 0; step < 6; step++) {
        dataset_train_batch(&d, step, &b);
        StepBatch batch = {b.tokens, b.targets, b.loss_mask, b.B, b.T};
        StepResult res = train_step(&t, &batch, step, NULL);
        CHECK(res.updated && isfinite(res.loss), "step %d failed", step);
        if (step == 0) after_first = mem_alloc_count();
    }
    CHECK(mem_alloc_count() == after_first, "%llu allocations in steps 2-6",
          (unsigned long long)(mem_alloc_count() - after_first));
    tape_free(&tp);
    arena_free(&acts);
    batch_free(&b);
    optim_free(&o);
    gpt_free(&m);
    dataset_free(&d);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"metrics: uniform attention has entropy log n and max weight 1/n", test_uniform_attention_entropy_and_max_weight},
        {"metrics: one-hot attention, known score std, padding rows", test_one_hot_attention_and_padding_rows},
        {"metrics: score std of random q, k is 1 with 1/sqrt(dk)", test_score_std_of_random_unit_vectors_is_one_after_sqrt_scale},
        {"model: attention scale modes", test_attention_scale_modes},
        {"optim: warmup and cosine schedule", test_learning_rate_schedule},
        {"optim: AdamW matches the update written out; norm and clipping", test_adamw_step_by_hand},
        {"optim: SGD", test_sgd_step},
        {"model: Xavier bounds, embedding std, LN and scale init", test_xavier_init_bounds_and_variance},
        {"probe: Var(q.k) = dk within its standard error", test_qk_variance_is_dk},
        {"probe: uniform softmax entropy log n; Jacobian norm closed forms", test_softmax_entropy_and_jacobian_closed_forms},
        {"probe: the first seed's experiment is self-consistent", test_row_experiment_is_consistent},
        {"train: steps after the first allocate nothing", test_training_steps_allocate_nothing_after_the_first},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
