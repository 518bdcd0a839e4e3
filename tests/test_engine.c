/* test_engine.c - the tape, the arena, numerics, kernels, the number formats and the RNG, in float32. */
#include "gradcheck.h"
#include "test.h"

#include "../tensor/fpmode.h"
#include "../tensor/gemm.h"
#include "../tensor/ops.h"
#include "../tensor/parallel.h"
#include "../tensor/sum16.h"
#include "../tensor/rng.h"

#include <float.h>
#include <math.h>
#include "../tensor/openmp.h"
#include <stdio.h>
#include <string.h>

static Arena g_params, g_acts;
static Tape g_tape;

static void setup(void)
{
    tape_free(&g_tape);
    arena_free(&g_acts);
    arena_free(&g_params);
    arena_init(&g_params, 1 << 20);
    arena_init(&g_acts, 1 << 12); /* small: tests overflow it, as a first step does */
    tape_init(&g_tape, &g_acts);
}

static Tensor *param(int ndim, const int *shape, double lo, double hi, uint64_t seed)
{
    Tensor *t = tensor_new(&g_params, ndim, shape, "param");
    Rng r = rng_stream(seed, 1);
    for (size_t i = 0; i < t->size; i++) t->data[i] = (real)(lo + (hi - lo) * rng_uniform(&r));
    t->requires_grad = true;
    tensor_grad(&g_params, t);
    return t;
}

static Tensor *param2(int a, int b, uint64_t seed)
{
    int s[2] = {a, b};
    return param(2, s, -1, 1, seed);
}

static bool all_finite(const real *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i])) return false;
    return true;
}

/* ------------------------------------------------------------------ tape */

static void test_tape_accumulates_when_a_tensor_is_reused(void)
{
    setup();
    Tensor *x = param2(3, 4, 1);
    /* y = 2x + 3x + x*x^T-free: x feeds three ops; dy/dx = 2 + 3 = 5 per element */
    Tensor *y = op_add(&g_tape, op_scale(&g_tape, x, 2), op_scale(&g_tape, x, 3));
    real seed[12];
    for (int i = 0; i < 12; i++) seed[i] = 1;
    tape_backward_from(&g_tape, y, seed);
    for (int i = 0; i < 12; i++) CHECK(x->grad[i] == 5, "dx[%d] = %g, want 5", i, x->grad[i]);
    /* x + x through one op: both inputs are the same tensor */
    memset(x->grad, 0, 12 * sizeof(real));
    tape_reset(&g_tape);
    Tensor *z = op_add(&g_tape, x, x);
    tape_backward_from(&g_tape, z, seed);
    for (int i = 0; i < 12; i++) CHECK(x->grad[i] == 2, "d(x+x)/dx[%d] = %g, want 2", i, x->grad[i]);
}

/* One consumer of a [R, C], each giving [R, C]: 0 permute (viewed back as R x C), 1 a w,
 * 2 GELU, 3 layernorm, 4 a w^T (the transposed-B branch), 5 a batched product m . a with a
 * viewed as [R/4, 4, C] (a as the B side, through a view), 6 a + bias (a bias broadcast over
 * rows), 7 k + a (a as the second input of a same-shape add, the residual's). */
static Tensor *consumer(int op, Tensor *a, Tensor *w, Tensor *m, Tensor *gain, Tensor *bias, Tensor *k)
{
    int R = a->shape[0], C = a->shape[1];
    int perm[2] = {1, 0}, shape[2] = {R, C}, batched[3] = {R / 4, 4, C};
    if (op == 0) return op_reshape(&g_tape, op_permute(&g_tape, a, 2, perm), 2, shape);
    if (op == 1) return op_matmul(&g_tape, a, w, TRANSPOSE_NONE);
    if (op == 2) return op_gelu(&g_tape, a);
    if (op == 3) return op_layernorm(&g_tape, a, gain, bias, (real)1e-5);
    if (op == 4) return op_matmul(&g_tape, a, w, TRANSPOSE_B);
    if (op == 6) return op_add(&g_tape, a, bias);
    if (op == 7) return op_add(&g_tape, k, a);
    return op_reshape(&g_tape, op_matmul(&g_tape, m, op_reshape(&g_tape, a, 3, batched), TRANSPOSE_NONE), 2, shape);
}

/* An op whose backward writes all of an input's gradient writes it (=) when it is the first to
 * reach it (tape_grad_whole), and adds when others were there before. a feeds eight such uses,
 * recorded in eight rotated orders so that each is once the first to reach a and seven times not;
 * the backward visits them last-recorded first, so x's gradient must be, to the bit, the sum of
 * each use's own gradient (what it gives as a's only consumer) in that order. R x C = 32768
 * elements, so the loops run in parallel where there are threads. The buffers come back from
 * the pool holding old gradients (the same arena, reset): a first write that missed an element
 * would show. Also a . a^T, where a is both inputs of one op: the second ask must add. */
static void test_first_gradient_is_written_then_added_to(void)
{
    enum { R = 4096, C = 8, N = R * C, USES = 8 };
    static real alone[USES][N], both[N], seed[N];
    for (int i = 0; i < N; i++) seed[i] = (real)((i * 7) % 11) - 5;
    setup();
    int cols[1] = {C}, ms[3] = {R / 4, 4, 4};
    Tensor *x = param2(R, C, 31), *w = param2(C, C, 32), *m = param(3, ms, -1, 1, 35);
    Tensor *gain = param(1, cols, 0.5, 1.5, 33), *bias = param(1, cols, -1, 1, 34), *k = param2(R, C, 37);
    for (int op = 0; op < USES; op++) {
        memset(x->grad, 0, N * sizeof(real));
        tape_backward_from(&g_tape, consumer(op, op_scale(&g_tape, x, 1), w, m, gain, bias, k), seed);
        memcpy(alone[op], x->grad, sizeof both);
        tape_reset(&g_tape);
    }
    int bad = 0;
    for (int rot = 0; rot < USES; rot++) {
        memset(x->grad, 0, N * sizeof(real));
        Tensor *a = op_scale(&g_tape, x, 1), *y = NULL;
        for (int u = 0; u < USES; u++) {
            Tensor *out = consumer((u + rot) % USES, a, w, m, gain, bias, k);
            y = y ? op_add(&g_tape, y, out) : out;
        }
        tape_backward_from(&g_tape, y, seed);
        memcpy(both, x->grad, sizeof both);
        tape_reset(&g_tape);
        for (int i = 0; i < N; i++) {
            real want = alone[(USES - 1 + rot) % USES][i];
            for (int u = USES - 2; u >= 0; u--) want += alone[(u + rot) % USES][i];
            bad += both[i] != want;
        }
    }
    CHECK(bad == 0, "%d of %d gradient values differ from the sum of the uses' own", bad, USES * N);
    /* a . a^T: d/da = G a + G^T a, the first product written, the second added */
    setup();
    Tensor *p = param2(5, 3, 36);
    memset(p->grad, 0, 15 * sizeof(real));
    Tensor *q = op_scale(&g_tape, p, 1);
    real g[25];
    for (int i = 0; i < 25; i++) g[i] = (real)(i % 5) - 2;
    tape_backward_from(&g_tape, op_matmul(&g_tape, q, q, TRANSPOSE_B), g);
    int wrong = 0;
    for (int i = 0; i < 5; i++)
        for (int c = 0; c < 3; c++) {
            double want = 0;
            for (int j = 0; j < 5; j++) want += (g[i * 5 + j] + g[j * 5 + i]) * (double)p->data[j * 3 + c];
            wrong += fabs(p->grad[i * 3 + c] - want) > 1e-5;
        }
    CHECK(wrong == 0, "d(a a^T)/da: %d of 15 values wrong (the second input's share overwrote the first's?)", wrong);
    tape_reset(&g_tape);
}

/* A network using most ops, for B sequences of T tokens, width C = 2 heads of C/2, a
 * vocabulary of V (= the rows of `table`); returns the loss. */
typedef struct NetShape {
    int B, T, C, V;
} NetShape;

static Tensor *net(Tape *tp, NetShape n, Tensor *w1, Tensor *b1, Tensor *g, Tensor *bb, Tensor *table, const int *ids,
                   const int *targets)
{
    Tensor *e = op_embedding(tp, table, ids, n.B, n.T);                   /* [B, T, C] */
    Tensor *h = op_layernorm(tp, e, g, bb, (real)1e-5);
    h = op_gelu(tp, op_add(tp, op_matmul(tp, h, w1, TRANSPOSE_NONE), b1)); /* [B, T, C] */
    h = op_dropout(tp, h, (real)0.1);
    /* two groups of C/2 columns, q = k = v = h, read in place */
    Tensor *S = op_matmul_groups(tp, h, h, TRANSPOSE_B, 2, GROUPED_A | GROUPED_B); /* [B, 2, T, T] */
    Tensor *p = op_softmax(tp, op_scale(tp, S, (real)0.5), MASK_CAUSAL);
    Tensor *o = op_matmul_groups(tp, p, h, TRANSPOSE_NONE, 2, GROUPED_B | GROUPED_OUT); /* [B, T, C] */
    Tensor *logits = op_matmul(tp, o, table, TRANSPOSE_B);                /* tied: [B, T, V] */
    return op_cross_entropy(tp, logits, targets, NULL);
}

static const NetShape SMALL = {2, 6, 8, 10};

static Tensor *small_net(Tape *tp, Tensor *w1, Tensor *b1, Tensor *g, Tensor *bb, Tensor *table, const int *ids,
                         const int *targets)
{
    return net(tp, SMALL, w1, b1, g, bb, table, ids, targets);
}

static void test_tape_reset_and_no_allocation_after_first_step(void)
{
    setup();
    int s1[1] = {8};
    Tensor *w1 = param2(8, 8, 1), *b1 = param(1, s1, -1, 1, 2), *g = param(1, s1, 1, 1, 3),
           *bb = param(1, s1, 0, 0, 4), *table = param2(10, 8, 5);
    Tensor *ps[5] = {w1, b1, g, bb, table};
    int ids[12], targets[12];
    for (int i = 0; i < 12; i++) {
        ids[i] = (3 * i + 1) % 10;
        targets[i] = (7 * i + 2) % 10;
    }
    real first_loss = 0, first_grad = 0;
    uint64_t allocs_after_first = 0;
    int entries_first = 0;
    for (int step = 0; step < 5; step++) {
        for (int k = 0; k < 5; k++) memset(ps[k]->grad, 0, ps[k]->size * sizeof(real));
        g_tape.dropout_key = 99; /* same mask every step: the steps must match exactly */
        Tensor *loss = small_net(&g_tape, w1, b1, g, bb, table, ids, targets);
        tape_backward(&g_tape, loss);
        if (step == 0) {
            first_loss = loss->data[0];
            first_grad = w1->grad[5];
            entries_first = g_tape.n;
        } else {
            CHECK(loss->data[0] == first_loss, "step %d: loss %g != %g after reset", step, loss->data[0], first_loss);
            CHECK(w1->grad[5] == first_grad, "step %d: grad %g != %g (stale gradient?)", step, w1->grad[5], first_grad);
            CHECK(g_tape.n == entries_first, "step %d: %d tape entries, first step had %d", step, g_tape.n, entries_first);
        }
        tape_reset(&g_tape);
        CHECK(g_tape.n == 0 && g_acts.used == 0, "reset left %d entries, %zu bytes", g_tape.n, g_acts.used);
        if (step == 0) allocs_after_first = mem_alloc_count();
    }
    CHECK(g_acts.peak > (1 << 12), "the test should overflow the initial arena (peak %zu)", g_acts.peak);
    CHECK(mem_alloc_count() == allocs_after_first, "%llu allocations after the first step",
          (unsigned long long)(mem_alloc_count() - allocs_after_first));
}

/* The gradient of an op's output is dead once that op's backward has run: the pool reuses it,
 * so a deep chain needs a couple of gradient buffers, not one per op. */
static void test_gradient_pool_reuses_buffers(void)
{
    real dx[2][4096];
    size_t peak[2];
    for (int keep = 0; keep < 2; keep++) {
        setup();
        int s1[1] = {4096};
        Tensor *x = param(1, s1, -1, 1, 1);
        memset(x->grad, 0, sizeof dx[0]);
        g_tape.keep_grads = keep;
        Tensor *y = x;
        for (int i = 0; i < 40; i++) y = op_gelu(&g_tape, op_scale(&g_tape, y, (real)1.01));
        real seed[4096];
        for (int i = 0; i < 4096; i++) seed[i] = (real)(i % 7) - 3;
        tape_backward_from(&g_tape, y, seed);
        memcpy(dx[keep], x->grad, sizeof dx[0]);
        peak[keep] = g_acts.peak;
        g_tape.keep_grads = false;
        tape_reset(&g_tape);
    }
    CHECK(memcmp(dx[0], dx[1], sizeof dx[0]) == 0, "reusing gradient buffers changed the gradient");
    /* 80 outputs of 16 KiB either way; 80 more gradient buffers when kept, a few when pooled */
    CHECK(peak[0] < 0.55 * peak[1], "pooled peak %zu bytes, kept %zu: buffers not reused", peak[0], peak[1]);
}

/* What a gradient watch saw: how often it was called and a copy of the gradient it was shown. */
typedef struct Watched {
    int calls;
    bool had_grad;
    real grad[4096];
} Watched;

static void note_grad(const Tensor *t, void *ctx)
{
    Watched *w = ctx;
    w->calls++;
    w->had_grad = t->grad != NULL;
    if (t->grad) memcpy(w->grad, t->grad, t->size * sizeof(real));
}

/* a = 2x feeds two ops (y = gelu(a) + 3a), so its gradient is complete only after both have
 * added their share; b = 5x feeds nothing. The watch on a must see the whole gradient (what a
 * backward that keeps every gradient leaves in a->grad), once, though the pool takes a's buffer
 * back right after; the watch on b must not be called; the tape keeps its entries. */
static void test_watch_grad_sees_the_finished_gradient(void)
{
    static Watched seen_a, seen_b;
    static real kept[4096], dx[2][4096];
    int entries[2];
    for (int watch = 0; watch < 2; watch++) {
        setup();
        int s1[1] = {4096};
        Tensor *x = param(1, s1, -2, 2, 1);
        memset(x->grad, 0, sizeof dx[0]);
        g_tape.keep_grads = !watch; /* without the watch: every gradient kept, to compare with */
        Tensor *a = op_scale(&g_tape, x, 2), *b = op_scale(&g_tape, x, 5);
        Tensor *y = op_add(&g_tape, op_gelu(&g_tape, a), op_scale(&g_tape, a, 3));
        if (watch) {
            memset(&seen_a, 0, sizeof seen_a);
            memset(&seen_b, 0, sizeof seen_b);
            CHECK(tape_watch_grad(&g_tape, a, note_grad, &seen_a) && tape_watch_grad(&g_tape, b, note_grad, &seen_b),
                  "a recorded tensor could not be watched");
        }
        entries[watch] = g_tape.n;
        real seed[4096];
        for (int i = 0; i < 4096; i++) seed[i] = (real)(i % 7) - 3;
        tape_backward_from(&g_tape, y, seed);
        if (watch) CHECK(a->grad == NULL, "the pool did not take a's gradient back: the test shows nothing");
        else memcpy(kept, a->grad, sizeof kept);
        memcpy(dx[watch], x->grad, sizeof dx[0]);
        g_tape.keep_grads = false;
        tape_reset(&g_tape);
    }
    CHECK(seen_a.calls == 1 && seen_a.had_grad, "the watch on a: %d calls (want 1), gradient %s", seen_a.calls,
          seen_a.had_grad ? "present" : "missing");
    CHECK(memcmp(seen_a.grad, kept, sizeof kept) == 0, "the watch saw another gradient than the finished one");
    CHECK(seen_b.calls == 0, "the watch on b, which no gradient reaches, was called %d times", seen_b.calls);
    CHECK(entries[0] == entries[1] && memcmp(dx[0], dx[1], sizeof dx[0]) == 0,
          "watching changed the tape (%d entries, %d without) or the gradient", entries[1], entries[0]);
    /* not recording: nothing to hang the watch on */
    setup();
    Tensor *x = param2(2, 3, 1);
    g_tape.grad_enabled = false;
    CHECK(!tape_watch_grad(&g_tape, op_scale(&g_tape, x, 2), note_grad, &seen_b), "a tensor of evaluation was watched");
    g_tape.grad_enabled = true;
}

/* The forensics replay shows the watch the gradient too, once. */
static void test_watch_grad_in_the_forensics_replay(void)
{
    static Watched seen;
    memset(&seen, 0, sizeof seen);
    setup();
    Tensor *x = param2(1, 3, 5);
    int shape[2] = {3, 1};
    Tensor *ones = tensor_new(&g_params, 2, shape, "ones");
    for (int i = 0; i < 3; i++) ones->data[i] = 1;
    Tensor *a = op_scale(&g_tape, x, 4);
    Tensor *loss = op_matmul(&g_tape, op_scale(&g_tape, a, 3), ones, TRANSPOSE_NONE); /* [1, 1] */
    tape_watch_grad(&g_tape, a, note_grad, &seen);
    TapeFinding f;
    tape_backward_find_nonfinite(&g_tape, loss, &f);
    CHECK(seen.calls == 1 && seen.grad[0] == 3 && seen.grad[1] == 3 && seen.grad[2] == 3,
          "the replay's watch: %d calls (want 1), d(loss)/da = %g %g %g (want 3)", seen.calls, seen.grad[0], seen.grad[1],
          seen.grad[2]);
}

static void test_grad_disabled_records_nothing(void)
{
    setup();
    Tensor *x = param2(4, 5, 1);
    g_tape.grad_enabled = false;
    Tensor *y = op_softmax(&g_tape, op_scale(&g_tape, x, 2), MASK_NONE);
    CHECK(g_tape.n == 0 && !y->requires_grad, "eval mode recorded %d ops", g_tape.n);
    g_tape.grad_enabled = true;
}

/* ------------------------------------------------------------------ numerics */

static void test_softmax_huge_logits_and_exact_mask(void)
{
    setup();
    int s[3] = {2, 4, 4};
    Tensor *x = param(3, s, -1e4, 1e4, 1);
    /* rows whose visible logits are close, at a huge offset: their weights are far from 0 and 1 */
    for (int j = 0; j < 4; j++) {
        x->data[3 * 4 + j] = (real)(9000 + 0.5 * j);  /* row 3 of the first matrix: all four visible */
        x->data[6 * 4 + j] = (real)(-9000 - 1.5 * j); /* row 2 of the second: three visible */
    }
    Tensor *p = op_softmax(&g_tape, x, MASK_CAUSAL);
    CHECK(all_finite(p->data, p->size), "softmax of 1e4-sized logits is not finite");
    for (int row = 0; row < 8; row++) {
        int r = row % 4; /* causal: row r sees columns 0..r */
        double mx = -INFINITY, sum = 0;
        for (int j = 0; j <= r; j++) mx = test_max(mx, x->data[row * 4 + j]);
        for (int j = 0; j <= r; j++) sum += exp((double)x->data[row * 4 + j] - mx);
        for (int j = 0; j < 4; j++) {
            double want = j <= r ? exp((double)x->data[row * 4 + j] - mx) / sum : 0;
            if (j > r) CHECK(p->data[row * 4 + j] == 0, "masked p[%d][%d] = %g, want exactly 0", row, j, p->data[row * 4 + j]);
            else CHECK(fabs(p->data[row * 4 + j] - want) < 1e-6, "p[%d][%d] = %.9g, want %.9g", row, j, p->data[row * 4 + j], want);
        }
    }
    real seed[32];
    for (int i = 0; i < 32; i++) seed[i] = (real)(i % 5) - 2;
    tape_backward_from(&g_tape, p, seed);
    CHECK(all_finite(x->grad, x->size), "softmax gradient not finite");
}

static void test_cross_entropy_huge_logits(void)
{
    setup();
    Tensor *z = param2(3, 2, 1);
    real v[6] = {1e4f, -1e4f, -1e4f, 1e4f, 3e4f, 3e4f};
    memcpy(z->data, v, sizeof v);
    int t[3] = {1, 1, 0};
    Tensor *loss = op_cross_entropy(&g_tape, z, t, NULL);
    /* row 0: lse = 1e4, loss 2e4; row 1: loss ~ 0; row 2: loss log 2 */
    double want = (2e4 + 0 + log(2.0)) / 3;
    CHECK(isfinite(loss->data[0]) && fabs(loss->data[0] - want) < 1e-2, "loss %g, want %g", loss->data[0], want);
    tape_backward(&g_tape, loss);
    CHECK(all_finite(z->grad, 6), "cross-entropy gradient not finite");
    CHECK(fabs(z->grad[0] - 1.0 / 3) < 1e-6 && fabs(z->grad[1] + 1.0 / 3) < 1e-6,
          "row 0 gradient (%g, %g), want (1/3, -1/3)", z->grad[0], z->grad[1]);
}

static void test_cross_entropy_uniform_is_log_v_and_mask_counts(void)
{
    setup();
    Tensor *z = param2(4, 7, 1);
    memset(z->data, 0, z->size * sizeof(real));
    z->data[0] = 50; /* row 0 is masked out: must not count */
    int t[4] = {3, 0, 6, 2};
    unsigned char mask[4] = {0, 1, 1, 1};
    Tensor *loss = op_cross_entropy(&g_tape, z, t, mask);
    CHECK(fabs(loss->data[0] - log(7.0)) < 1e-6, "uniform logits: loss %g, want log 7 = %g", loss->data[0], log(7.0));
    unsigned char none[4] = {0};
    Tensor *zero = op_cross_entropy(&g_tape, z, t, none);
    CHECK(zero->data[0] == 0, "no position selected: loss %g, want 0", zero->data[0]);
}

static void test_layernorm_normalises(void)
{
    setup();
    int s1[1] = {33};
    Tensor *x = param2(5, 33, 1), *g = param(1, s1, 1, 1, 2), *b = param(1, s1, 0, 0, 3);
    for (size_t i = 0; i < x->size; i++) x->data[i] = x->data[i] * 100 + 1000; /* big offset */
    Tensor *y = op_layernorm(&g_tape, x, g, b, (real)1e-5);
    for (int r = 0; r < 5; r++) {
        double m = 0, v = 0;
        for (int j = 0; j < 33; j++) m += y->data[r * 33 + j];
        m /= 33;
        for (int j = 0; j < 33; j++) v += (y->data[r * 33 + j] - m) * (y->data[r * 33 + j] - m);
        v /= 33;
        CHECK(fabs(m) < 1e-4 && fabs(v - 1) < 1e-3, "row %d: mean %g var %g", r, m, v);
    }
}

static void test_gelu_values(void)
{
    setup();
    Tensor *x = param2(1, 5, 1);
    real v[5] = {-3, -1, 0, 1, 3};
    memcpy(x->data, v, sizeof v);
    Tensor *y = op_gelu(&g_tape, x);
    for (int i = 0; i < 5; i++) {
        double u = 0.7978845608028654 * (v[i] + 0.044715 * v[i] * v[i] * v[i]);
        double want = 0.5 * v[i] * (1 + tanh(u));
        CHECK(fabs(y->data[i] - want) < 1e-6, "gelu(%g) = %g, want %g", v[i], y->data[i], want);
    }
}

/* The fused ops against the unfused ones they replace: the same numbers, forward and backward. */
static void test_fused_ops_equal_unfused(void)
{
    setup();
    int sx[4] = {3, 2, 9, 9};
    Tensor *x = param(4, sx, -8, 8, 1);
    real seed[486];
    for (int i = 0; i < 486; i++) seed[i] = (real)((i * 37) % 11) - 5;
    static real fused[486], fused_grad[486];
    Tensor *p = op_softmax_scaled(&g_tape, x, (real)0.125, MASK_CAUSAL);
    memcpy(fused, p->data, sizeof fused);
    tape_backward_from(&g_tape, p, seed);
    memcpy(fused_grad, x->grad, sizeof fused_grad);
    tape_reset(&g_tape);
    memset(x->grad, 0, sizeof fused_grad);
    Tensor *q = op_softmax(&g_tape, op_scale(&g_tape, x, (real)0.125), MASK_CAUSAL);
    CHECK(memcmp(fused, q->data, sizeof fused) == 0, "scaled softmax differs from scale + softmax");
    tape_backward_from(&g_tape, q, seed);
    CHECK(memcmp(fused_grad, x->grad, sizeof fused_grad) == 0, "its gradient differs from scale + softmax's");
    tape_reset(&g_tape);

    int s3[3] = {4, 5, 24}, sb[1] = {40};
    Tensor *a = param(3, s3, -1, 1, 2), *w = param2(24, 40, 3), *b = param(1, sb, -1, 1, 4);
    Tensor *lin = op_linear(&g_tape, a, w, b), *ref = op_add(&g_tape, op_matmul(&g_tape, a, w, TRANSPOSE_NONE), b);
    CHECK(memcmp(lin->data, ref->data, lin->size * sizeof(real)) == 0, "linear differs from matmul + add");
}

/* ------------------------------------------------------------------ tanh, exp, l2_normalize, add_pairs */

static real seed_value(size_t i) { return (real)((int)((i * 37) % 11) - 5) / 4; }

/* Forward values and input gradients against double computations of the same formulas. */
static void test_new_ops_against_double(void)
{
    setup();
    enum { N = 64 };
    Tensor *x = param2(1, N, 1);
    for (int i = 0; i < N - 8; i++) x->data[i] = (real)(-6 + 12.0 * i / (N - 9)); /* -6 .. 6 */
    const real special[8] = {-200, -90, 88, 89, 100, (real)NAN, 0, (real)-0.0};
    memcpy(x->data + N - 8, special, sizeof special);
    real seed[N];
    for (int i = 0; i < N; i++) seed[i] = seed_value(i);
    for (int fn = 0; fn < 2; fn++) { /* tanh, then exp */
        memset(x->grad, 0, N * sizeof(real));
        tape_reset(&g_tape);
        Tensor *y = fn ? op_exp(&g_tape, x) : op_tanh(&g_tape, x);
        tape_backward_from(&g_tape, y, seed);
        int bad = 0;
        for (int i = 0; i < N; i++) {
            double v = x->data[i], want = fn ? exp(v) : tanh(v), d = fn ? want : 1 - want * want;
            bool exact = isnan(v) ? isnan(y->data[i]) && isnan(x->grad[i]) /* NaN in, NaN out */
                         : want > FLT_MAX ? isinf(y->data[i])                /* exp overflows to Inf */
                                          : fabs(y->data[i] - want) <= (fn ? 1e-6 * want + FLT_MIN : 2e-7) &&
                                                fabs(x->grad[i] - seed[i] * d) <= 1e-6 * fabs(seed[i] * d) + 3e-7;
            if (!exact) {
                bad++;
                CHECK(false, "%s(%g) = %g, grad %g; want %g, grad %g", fn ? "exp" : "tanh", v, y->data[i], x->grad[i],
                      want, seed[i] * d);
            }
        }
        CHECK(bad == 0 && (fn == 0 || (y->data[N - 8] == 0 && isinf(y->data[N - 4]))), "exp(-200) = 0, exp(100) = Inf");
    }

    /* l2_normalize: y = x / r, r = sqrt(|x|^2 + eps); dx = (g - y (y.g)) / r */
    tape_reset(&g_tape);
    int sr[2] = {5, 13};
    Tensor *z = param(2, sr, -1, 1, 2);
    real eps = (real)1e-2;
    Tensor *u = op_l2_normalize(&g_tape, z, eps);
    real gz[65];
    for (int i = 0; i < 65; i++) gz[i] = seed_value(i);
    tape_backward_from(&g_tape, u, gz);
    double worst_y = 0, worst_d = 0;
    for (int r = 0; r < 5; r++) {
        const real *xr = z->data + r * 13;
        double sq = 0, dot = 0, yd[13];
        for (int j = 0; j < 13; j++) sq += (double)xr[j] * xr[j];
        double len = sqrt(sq + eps);
        for (int j = 0; j < 13; j++) {
            yd[j] = xr[j] / len;
            dot += yd[j] * gz[r * 13 + j];
        }
        for (int j = 0; j < 13; j++) {
            worst_y = test_max(worst_y, fabs(u->data[r * 13 + j] - yd[j]));
            worst_d = test_max(worst_d, fabs(z->grad[r * 13 + j] - (gz[r * 13 + j] - yd[j] * dot) / len));
        }
    }
    CHECK(worst_y < 1e-6 && worst_d < 1e-5, "l2_normalize: worst error %g in y, %g in dx", worst_y, worst_d);

    /* add_pairs: the sums of float values, and gradients summed over the other index */
    tape_reset(&g_tape);
    int sa[3] = {2, 3, 4}, sb[3] = {2, 5, 4};
    Tensor *a = param(3, sa, -1, 1, 3), *b = param(3, sb, -1, 1, 4);
    Tensor *o = op_add_pairs(&g_tape, a, b);
    real go[120];
    for (int i = 0; i < 120; i++) go[i] = seed_value(i);
    tape_backward_from(&g_tape, o, go);
    int wrong = 0;
    double worst_g = 0;
    for (int n = 0; n < 2; n++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 5; j++)
                for (int d = 0; d < 4; d++) {
                    int at = ((n * 3 + i) * 5 + j) * 4 + d;
                    wrong += o->data[at] != a->data[(n * 3 + i) * 4 + d] + b->data[(n * 5 + j) * 4 + d];
                }
    for (int n = 0; n < 2; n++)
        for (int d = 0; d < 4; d++) {
            for (int i = 0; i < 3; i++) {
                double want = 0;
                for (int j = 0; j < 5; j++) want += go[((n * 3 + i) * 5 + j) * 4 + d];
                worst_g = test_max(worst_g, fabs(a->grad[(n * 3 + i) * 4 + d] - want));
            }
            for (int j = 0; j < 5; j++) {
                double want = 0;
                for (int i = 0; i < 3; i++) want += go[((n * 3 + i) * 5 + j) * 4 + d];
                worst_g = test_max(worst_g, fabs(b->grad[(n * 5 + j) * 4 + d] - want));
            }
        }
    CHECK(wrong == 0 && o->shape[0] == 2 && o->shape[1] == 3 && o->shape[2] == 5 && o->shape[3] == 4,
          "add_pairs: %d wrong sums (or a wrong shape)", wrong);
    CHECK(worst_g < 1e-6, "add_pairs: gradient off by %g", worst_g);
}

/* ------------------------------------------------------------------ formats */

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The same bits, or both NaN. */
static bool same_float(float a, float b) { return float_bits(a) == float_bits(b) || (isnan(a) && isnan(b)); }

/* Halfway between the two numbers of a format (p significant bits, smallest normal 2^emin)
 * around x, moved by one float ulp up (side = 1), down (-1) or not (0). */
static float near_tie_float(float x, int p, int emin, int side)
{
    int e;
    frexpf(x, &e);
    double q = ldexp(1, (e - 1 > emin ? e - 1 : emin) - (p - 1)); /* the spacing near x */
    float t = (float)copysign((floor(fabs(x) / q) + 0.5) * q, x);
    return side ? nextafterf(t, side * INFINITY) : t;
}

typedef struct RoundCase {
    float x, want;
} RoundCase;

/* Each case, and its negative, through format_round (and through `reference` when not NULL). */
static int check_round_cases(const RoundCase *c, int n, NumFormat f, float (*reference)(float), int *compared)
{
    int wrong = 0;
    for (int i = 0; i < 2 * n; i++) {
        float x = i < n ? c[i].x : -c[i - n].x, want = i < n ? c[i].want : -c[i - n].want;
        float got = format_round(x, f);
        bool ok = same_float(got, want) && (!reference || same_float(got, reference(x)));
        if (!ok) CHECK(false, "%s: round(%.9g) = %.9g, want %.9g", format_name(f, NULL), x, got, want);
        wrong += !ok;
        ++*compared;
    }
    return wrong;
}

#ifdef __FLT16_MAX__
static float float16_reference(float x) { return (float)(_Float16)x; }
#define FP16_REFERENCE float16_reference
#else
#define FP16_REFERENCE NULL /* no _Float16: the listed values only */
#endif

static void test_format_round_fp16(void)
{
    const float sub = 0x1p-24f; /* the smallest subnormal */
    const RoundCase cases[] = {
        {65504, 65504},                             /* the largest finite */
        {65520, INFINITY},                          /* max + half an ulp: a tie, and even is 2^16 = Inf */
        {nextafterf(65520, 0), 65504},              /* just below it */
        {65519, 65504}, {1e5f, INFINITY}, {FLT_MAX, INFINITY}, {INFINITY, INFINITY},
        {0x1p-14f, 0x1p-14f},                       /* the smallest normal */
        {nextafterf(0x1p-14f, 0), 0x1p-14f},        /* just below it: rounds up to it */
        {1023 * sub, 1023 * sub},                   /* the largest subnormal */
        {3 * sub, 3 * sub}, {sub, sub},             /* subnormals, the smallest */
        {sub / 2, 0},                               /* half the smallest: a tie, and 0 is even */
        {nextafterf(sub / 2, 1), sub},              /* just above half */
        {nextafterf(sub / 2, 0), 0}, {1e-40f, 0}, {0x1p-149f, 0},
        {1.5f * sub, 2 * sub}, {2.5f * sub, 2 * sub}, {0.75f * sub, sub}, /* subnormal ties and a non-tie */
        {1 + 0x1p-11f, 1}, {1 + 3 * 0x1p-11f, 1 + 0x1p-9f},                 /* ties to even */
        {nextafterf(1 + 0x1p-11f, 2), 1 + 0x1p-10f},                         /* just above a tie */
        {2049, 2048}, {2051, 2052}, {0.1f, 0.0999755859375f}, {1, 1}, {0, 0},
        {NAN, NAN},
    };
    int n = (int)(sizeof cases / sizeof cases[0]), compared = 0;
    int wrong = check_round_cases(cases, n, FORMAT_FP16, FP16_REFERENCE, &compared);
    CHECK(wrong == 0 && compared == 2 * n, "%d of %d listed values wrong", wrong, compared);
#ifdef __FLT16_MAX__
    /* every kind of float (random bits), floats of fp16's range, and ties there */
    Rng r = rng_stream(3, 0);
    int random_wrong = 0;
    for (int i = 0; i < 1000000; i++) {
        float x = bits_float((uint32_t)rng_next(&r));
        if (i % 2) x = (float)ldexp(2 * rng_uniform(&r) - 1, (int)rng_below(&r, 44) - 26);
        if (i % 4 == 1) x = near_tie_float(x, 11, -14, (int)rng_below(&r, 3) - 1);
        random_wrong += !same_float(format_round(x, FORMAT_FP16), (float)(_Float16)x);
    }
    CHECK(random_wrong == 0, "%d of 1000000 random floats rounded otherwise than _Float16", random_wrong);
#endif
}

/* bf16 keeps a float's top 16 bits, rounded to nearest even: the usual bit trick (which needs
 * NaN apart: a NaN's low bits could carry into the sign or give Inf). */
static float bf16_reference(float x)
{
    if (isnan(x)) return x;
    uint32_t u = float_bits(x);
    return bits_float((u + 0x7fffu + ((u >> 16) & 1)) >> 16 << 16);
}

static void test_format_round_bf16(void)
{
    const RoundCase cases[] = {
        {(float)BF16_MAX, (float)BF16_MAX},
        {bits_float(0x7f7f8000), INFINITY},             /* max + half an ulp: a tie to the even Inf */
        {bits_float(0x7f7f7fff), (float)BF16_MAX},      /* just below */
        {FLT_MAX, INFINITY}, {INFINITY, INFINITY},
        {0x1p-126f, 0x1p-126f},                         /* the smallest normal (fp32's) */
        {0x1p-133f, 0x1p-133f},                         /* the smallest subnormal */
        {0x1p-134f, 0},                                 /* half of it: a tie, to 0 */
        {bits_float(0x00008001), 0x1p-133f},            /* just above half */
        {bits_float(0x00018000), 0x1p-132f},            /* 1.5 x the smallest: a tie, to 2 x */
        {0x1p-149f, 0},
        {1 + 0x1p-8f, 1}, {1 + 3 * 0x1p-8f, 1 + 0x1p-6f}, /* ties to even */
        {bits_float(0x3f808001), 1 + 0x1p-7f},          /* just above a tie */
        {65504, 65536}, {0.1f, 0.10009765625f}, {0, 0}, {NAN, NAN},
    };
    int n = (int)(sizeof cases / sizeof cases[0]), compared = 0;
    int wrong = check_round_cases(cases, n, FORMAT_BF16, bf16_reference, &compared);
    CHECK(wrong == 0 && compared == 2 * n, "%d of %d listed values wrong", wrong, compared);
    Rng r = rng_stream(4, 0);
    int random_wrong = 0;
    for (int i = 0; i < 1000000; i++) {
        float x = bits_float((uint32_t)rng_next(&r)); /* every exponent, NaNs included */
        if (i % 4 == 1) x = near_tie_float(x, 8, -126, (int)rng_below(&r, 3) - 1);
        random_wrong += !same_float(format_round(x, FORMAT_BF16), bf16_reference(x));
    }
    CHECK(random_wrong == 0, "%d of 1000000 random floats rounded otherwise than the bit trick", random_wrong);
}

static void test_format_names_max_and_fp32(void)
{
    const char *want[3] = {"fp32", "bf16", "fp16"}, *help = NULL;
    int named = 0;
    for (int f = 0; f < 3; f++) {
        help = NULL;
        const char *name = format_name(f, &help);
        named += name && strcmp(name, want[f]) == 0 && help && help[0];
    }
    CHECK(named == 3 && format_name(3, &help) == NULL && format_name(-1, NULL) == NULL,
          "format_name: %d of 3 names with help, then NULL", named);
    CHECK(format_max(FORMAT_FP16) == 65504 && format_max(FORMAT_BF16) == (double)bits_float(0x7f7f0000) &&
              format_max(FORMAT_FP32) == FLT_MAX,
          "format_max");
    CHECK(format_round((float)BF16_MAX, FORMAT_BF16) == (float)BF16_MAX && format_round(65504, FORMAT_FP16) == 65504,
          "the maxima are representable");
    const float odd[4] = {0x1p-149f, 1 + 0x1p-23f, FLT_MAX, -3.14159274f};
    int same = 0;
    for (int i = 0; i < 4; i++) same += float_bits(format_round(odd[i], FORMAT_FP32)) == float_bits(odd[i]);
    CHECK(same == 4 && isnan(format_round(NAN, FORMAT_FP32)), "fp32 rounding is not the identity");
}

/* op_round: the values of format_round, and the counts of what it did. */
static void test_op_round_values_and_counts(void)
{
    setup();
    Tensor *x = param2(1, 10, 1);
    /* 2.9e-8 is just below half the smallest subnormal (2^-25 = 2.98e-8), 3e-8 just above */
    const real v[10] = {1e5f, 65519, (real)1e-9, (real)NAN, INFINITY, 0, 1, (real)-7e4, (real)2.9e-8, (real)3e-8};
    memcpy(x->data, v, sizeof v);
    FormatCounts c = {1, 2, 3}; /* added to, never reset */
    Tensor *y = op_round(&g_tape, x, FORMAT_FP16, MASK_NONE, &c);
    int wrong = 0;
    for (int i = 0; i < 10; i++) wrong += !same_float(y->data[i], format_round(v[i], FORMAT_FP16));
    CHECK(wrong == 0, "%d values differ from format_round", wrong);
    /* overflow: 1e5 and -7e4 (Inf stays Inf: not counted); nan: none (a NaN passed on is not
     * made by the rounding); underflow: 1e-9, 2.9e-8 */
    CHECK(c.overflow == 1 + 2 && c.nan == 2 && c.underflow == 3 + 2, "counts %ld %ld %ld, want 3 2 5", c.overflow,
          c.nan, c.underflow);
}

/* Under the causal mask, a hidden score is filled with 0: not rounded, not counted, no gradient.
 * So an fp16 overflow there (1e6 at j > i) cannot reach a learned scale's gradient as 0 * Inf. */
static void test_op_round_masked_scores(void)
{
    setup();
    int shape[4] = {1, 1, 3, 3};
    Tensor *x = param(4, shape, -1, 1, 5), *s = param2(1, 1, 6);
    x->data[2] = 1e6f;  /* row 0, column 2: hidden */
    x->data[5] = 1e6f;  /* row 1, column 2: hidden */
    x->data[8] = 1e6f;  /* row 2, column 2: visible, an overflow */
    FormatCounts c = {0};
    Tensor *y = op_round(&g_tape, x, FORMAT_FP16, MASK_CAUSAL, &c);
    CHECK(y->data[2] == 0 && y->data[5] == 0 && isinf(y->data[8]) && c.overflow == 1,
          "masked entries %g %g (want 0 0), visible %g (want inf), overflows %ld (want 1)", y->data[2], y->data[5],
          y->data[8], c.overflow);
    x->data[8] = 0.5f;
    tape_reset(&g_tape);
    y = op_scale_heads(&g_tape, op_round(&g_tape, x, FORMAT_FP16, MASK_CAUSAL, NULL), s);
    real ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    tape_backward_from(&g_tape, y, ones);
    CHECK(isfinite(s->grad[0]) && x->grad[2] == 0 && x->grad[5] == 0 && x->grad[0] == s->data[0],
          "a learned scale over masked overflows: ds = %g (want finite), dx masked %g %g (want 0), visible %g (want s)",
          s->grad[0], x->grad[2], x->grad[5], x->grad[0]);
}

/* ------------------------------------------------------------------ the emulated softmax */

/* What each kind of failure counts, on hand-made fp16 naive rows. */
static void test_softmax_emulated_counts(void)
{
    setup();
    Tensor *x = param2(4, 4, 1);
    const real v[16] = {12, 0, 0, 0,        /* exp(12) = 162755 > 65520: Inf, the sum Inf, p = NaN, 0, 0, 0 */
                        10, 10, 10, 10,     /* exp(10) = 22026 fits, the sum 88105 does not: all p = 0 */
                        0, -20, -20, -20,   /* exp(-20) = 2e-9 < 2^-25: three weights lost, p = 1, 0, 0, 0 */
                        1, 2, 3, 4};        /* nothing */
    memcpy(x->data, v, sizeof v);
    FormatCounts c = {0};
    SoftmaxEmulation em = {.scale = 1, .mask = MASK_NONE, .naive = true, .format = FORMAT_FP16, .counts = &c};
    Tensor *p = op_softmax_emulated(&g_tape, x, &em);
    CHECK(c.overflow == 2 && c.nan == 1 && c.underflow == 3, "counts %ld %ld %ld, want 2 1 3", c.overflow, c.nan,
          c.underflow);
    CHECK(isnan(p->data[0]) && p->data[1] == 0 && p->data[4] == 0 && p->data[8] == 1 && p->data[9] == 0,
          "weights %g %g %g %g %g", p->data[0], p->data[1], p->data[4], p->data[8], p->data[9]);
    double sum = 0, want_sum = 0;
    for (int j = 0; j < 4; j++) {
        sum += p->data[12 + j];
        want_sum += exp(v[12 + j]);
    }
    double p3 = exp(4.0) / want_sum;
    CHECK(fabs(sum - 1) < 3e-3 && fabs(p->data[15] - p3) < 2e-3 * p3 && p->data[15] == format_round(p->data[15], FORMAT_FP16),
          "last row: sum %g, p3 = %.9g want %.9g (and an fp16 value)", sum, p->data[15], p3);
    /* under a causal mask, hidden entries count for nothing and stay exactly 0 */
    x->data[0] = 0;
    for (int j = 1; j < 4; j++) x->data[j] = 1000; /* row 0 sees column 0 only */
    FormatCounts m = {0};
    em.mask = MASK_CAUSAL;
    em.counts = &m;
    Tensor *q = op_softmax_emulated(&g_tape, x, &em);
    CHECK(q->data[0] == 1 && q->data[1] == 0 && q->data[2] == 0 && q->data[3] == 0, "masked row 0: %g %g %g %g",
          q->data[0], q->data[1], q->data[2], q->data[3]);
    /* row 1 sees 10, 10 (44052: fits), row 2 sees 0, -20, -20 (two lost), row 3 sees all */
    CHECK(m.overflow == 0 && m.nan == 0 && m.underflow == 2, "causal counts %ld %ld %ld, want 0 0 2", m.overflow, m.nan,
          m.underflow);
}

/* The claim behind --precision: raw q.k scores of unit-variance q and k at dk = 512 have a
 * standard deviation of sqrt(512) = 22.6. exp of them overflows fp16 (largest 65504 = e^11.09)
 * unless the row max is subtracted; bf16 has fp32's range (e^88.7) and holds them. */
static void test_softmax_naive_overflows_fp16_not_bf16(void)
{
    setup();
    enum { Q = 4, K = 16, DK = 512 };
    int sq[2] = {Q, DK}, sk[2] = {K, DK};
    Tensor *q = param(2, sq, 0, 0, 1), *k = param(2, sk, 0, 0, 2);
    Rng r = rng_stream(2024, 0);
    for (size_t i = 0; i < q->size; i++) q->data[i] = (real)rng_normal(&r);
    for (size_t i = 0; i < k->size; i++) k->data[i] = (real)rng_normal(&r);
    Tensor *s = op_matmul(&g_tape, q, k, TRANSPOSE_B); /* [Q, K], unscaled */
    double top = -INFINITY;
    for (int i = 0; i < Q * K; i++) top = test_max(top, s->data[i]);
    CHECK(top > 12 && top < 85, "the scores should reach past fp16's e^11.09 and stay below e^88.7: max %g", top);

    FormatCounts c[3] = {{0}};
    const SoftmaxEmulation ems[3] = {
        {.scale = 1, .naive = true, .format = FORMAT_FP16, .counts = &c[0]},
        {.scale = 1, .naive = false, .format = FORMAT_FP16, .counts = &c[1]},
        {.scale = 1, .naive = true, .format = FORMAT_BF16, .counts = &c[2]},
    };
    Tensor *p[3];
    for (int v = 0; v < 3; v++) p[v] = op_softmax_emulated(&g_tape, s, &ems[v]);
    long nans = 0;
    for (int i = 0; i < Q * K; i++) nans += isnan(p[0]->data[i]);
    CHECK(c[0].overflow > 0 && c[0].nan > 0 && nans == c[0].nan, "fp16 naive: %ld overflows, %ld NaN counted, %ld NaN weights",
          c[0].overflow, c[0].nan, nans);
    /* rounding each e, the sum and each p: relative errors of 2^-11 (fp16) or 2^-8 (bf16) each */
    const double tol[3] = {0, 4 * 0x1p-11, 4 * 0x1p-8};
    for (int v = 1; v < 3; v++) {
        double worst = 0;
        bool finite = true;
        for (int row = 0; row < Q; row++) {
            double sum = 0;
            for (int j = 0; j < K; j++) {
                finite &= isfinite(p[v]->data[row * K + j]);
                sum += p[v]->data[row * K + j];
            }
            worst = test_max(worst, fabs(sum - 1));
        }
        CHECK(c[v].overflow == 0 && c[v].nan == 0 && finite && worst < tol[v],
              "%s: %ld overflows, %ld NaN, finite %d, row sums off by %g (tolerance %g)",
              v == 1 ? "fp16 stable" : "bf16 naive", c[v].overflow, c[v].nan, finite, worst, tol[v]);
    }
}

/* Without a variant (stable, fp32), the emulation is the textbook softmax computed its own way
 * (libm's exp, a plain sum, a division): within a few ulps of op_softmax_scaled, with its counts.
 * Its tape entry is op_softmax_scaled's (name, cost) and so is its backward: from the same p,
 * the same gradient bits. */
static void test_softmax_emulated_without_a_variant_and_its_backward(void)
{
    setup();
    enum { ROWS = 20, N = 5, SIZE = ROWS * N };
    int sx[4] = {2, 2, 5, N};
    Tensor *x = param(4, sx, -8, 8, 1);
    x->data[6] = -1e4f; /* its exp underflows: a zero weight (row 1 sees columns 0..1) */
    real seed[SIZE], s = (real)0.37;
    for (int i = 0; i < SIZE; i++) seed[i] = seed_value(i);
    static real p_ref[SIZE], dx_ref[SIZE];
    Tensor *p = op_softmax_scaled(&g_tape, x, s, MASK_CAUSAL);
    TapeEntry textbook = g_tape.entries[g_tape.n - 1];
    memcpy(p_ref, p->data, sizeof p_ref);
    tape_backward_from(&g_tape, p, seed);
    memcpy(dx_ref, x->grad, sizeof dx_ref);
    tape_reset(&g_tape);
    memset(x->grad, 0, sizeof dx_ref);
    FormatCounts c = {0};
    SoftmaxEmulation em = {.scale = s, .mask = MASK_CAUSAL, .format = FORMAT_FP32, .counts = &c};
    Tensor *pe = op_softmax_emulated(&g_tape, x, &em);
    const TapeEntry *e = &g_tape.entries[g_tape.n - 1];
    double worst = 0;
    for (int i = 0; i < SIZE; i++) worst = test_max(worst, fabs(pe->data[i] - p_ref[i]) / fmax(p_ref[i], FLT_MIN));
    CHECK(worst < 4 * FLT_EPSILON, "fp32 stable emulation off the textbook softmax by %g (relative; want < 4 ulps)", worst);
    CHECK(c.overflow == 0 && c.nan == 0 && c.underflow == 1, "fp32 counts %ld %ld %ld, want 0 0 1", c.overflow, c.nan,
          c.underflow);
    CHECK(e->backward == textbook.backward && !strcmp(e->op, textbook.op) && e->flops == textbook.flops &&
              e->reads == textbook.reads && e->kept_bytes == textbook.kept_bytes,
          "the emulation's entry (%s, %llu flops) is not the textbook's (%s, %llu flops)", e->op,
          (unsigned long long)e->flops, textbook.op, (unsigned long long)textbook.flops);
    memcpy(pe->data, p_ref, sizeof p_ref); /* the backward reads p: give it the textbook's */
    tape_backward_from(&g_tape, pe, seed);
    CHECK(memcmp(x->grad, dx_ref, sizeof dx_ref) == 0, "from the same p, its gradient differs from op_softmax_scaled's");
    tape_reset(&g_tape);
    em.naive = true;
    op_softmax_emulated(&g_tape, x, &em);
    CHECK(!strcmp(g_tape.entries[g_tape.n - 1].op, "naive softmax"), "the naive form is recorded as \"%s\"",
          g_tape.entries[g_tape.n - 1].op);
}

/* Every new op on inputs above PARALLEL_MIN, forward and backward: all it produces, appended. */
enum { NEW_OPS_VALUES = 6 * 40960 + 5 * 40960 };

static void new_ops_results(int threads, real *dst, FormatCounts *counts)
{
    omp_set_num_threads(threads);
    setup();
    int sx[2] = {256, 160}, sa[3] = {2, 16, 64}, sb[3] = {2, 20, 64}, sz[4] = {2, 2, 96, 96};
    Tensor *x = param(2, sx, -4, 4, 1), *w = param(2, sx, 0, 0, 2), *a = param(3, sa, -1, 1, 3),
           *b = param(3, sb, -1, 1, 4), *z = param(4, sz, -15, 15, 5);
    Rng r = rng_stream(6, 0);
    for (size_t i = 0; i < w->size; i++) /* magnitudes from 2^-30 to 2^20: fp16 overflows and underflows */
        w->data[i] = (real)ldexp(2 * rng_uniform(&r) - 1, (int)rng_below(&r, 50) - 30);
    static real seed[40960];
    for (int i = 0; i < 40960; i++) seed[i] = seed_value(i);
    SoftmaxEmulation em = {.scale = 1, .mask = MASK_CAUSAL, .naive = true, .format = FORMAT_FP16, .counts = &counts[1]};
    Tensor *outs[6] = {op_tanh(&g_tape, x), op_exp(&g_tape, x), op_l2_normalize(&g_tape, x, (real)1e-3),
                       op_add_pairs(&g_tape, a, b), op_round(&g_tape, w, FORMAT_FP16, MASK_NONE, &counts[0]),
                       op_softmax_emulated(&g_tape, z, &em)};
    for (int k = 5; k >= 0; k--) tape_backward_from(&g_tape, outs[k], seed); /* one output at a time */
    size_t at = 0;
    for (int k = 0; k < 6; k++) {
        memcpy(dst + at, outs[k]->data, outs[k]->size * sizeof(real));
        at += 40960;
    }
    Tensor *ins[5] = {x, a, b, w, z}; /* z's gradient is NaN in rows that overflowed: compared as bits */
    for (int k = 0; k < 5; k++) {
        memcpy(dst + at, ins[k]->grad, ins[k]->size * sizeof(real));
        at += 40960;
    }
}

static void test_new_ops_same_bits_for_any_thread_count(void)
{
    if (test_skip_without_threads()) return;
    static real one[NEW_OPS_VALUES], two[NEW_OPS_VALUES];
    FormatCounts c1[2] = {{0}}, c2[2] = {{0}};
    memset(one, 0, sizeof one);
    memset(two, 0, sizeof two);
    new_ops_results(1, one, c1);
    new_ops_results(2, two, c2);
    int differ = 0;
    for (int i = 0; i < NEW_OPS_VALUES; i++) differ += float_bits(one[i]) != float_bits(two[i]);
    CHECK(differ == 0, "%d values differ between 1 and 2 threads", differ);
    CHECK(memcmp(c1, c2, sizeof c1) == 0 && c1[0].overflow > 0 && c1[0].underflow > 0 && c1[1].overflow > 0,
          "counts differ between 1 and 2 threads, or there was nothing to count: round %ld %ld %ld vs %ld %ld %ld, "
          "softmax %ld %ld %ld vs %ld %ld %ld",
          c1[0].overflow, c1[0].nan, c1[0].underflow, c2[0].overflow, c2[0].nan, c2[0].underflow, c1[1].overflow,
          c1[1].nan, c1[1].underflow, c2[1].overflow, c2[1].nan, c2[1].underflow);
}

/* ------------------------------------------------------------------ shape ops */

static void test_permute_moves_values_and_reshape_is_a_view(void)
{
    setup();
    int s[4] = {2, 3, 4, 5}, perm[4] = {0, 2, 1, 3};
    Tensor *x = param(4, s, 0, 1, 1);
    for (size_t i = 0; i < x->size; i++) x->data[i] = (real)i;
    Tensor *y = op_permute(&g_tape, x, 4, perm);
    CHECK(y->shape[0] == 2 && y->shape[1] == 4 && y->shape[2] == 3 && y->shape[3] == 5, "permuted shape");
    bool ok = true;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 4; b++)
            for (int c = 0; c < 3; c++)
                for (int d = 0; d < 5; d++)
                    ok &= y->data[((a * 4 + b) * 3 + c) * 5 + d] == x->data[((a * 3 + c) * 4 + b) * 5 + d];
    CHECK(ok, "permute put values in the wrong place");
    Tensor *back = op_permute(&g_tape, y, 4, perm); /* this permutation is its own inverse */
    CHECK(memcmp(back->data, x->data, x->size * sizeof(real)) == 0, "permuting twice is not the identity");
    int r[2] = {6, 20};
    Tensor *v = op_reshape(&g_tape, x, 2, r);
    CHECK(v->data == x->data && v->grad == x->grad && v->size == x->size, "reshape copied instead of viewing");
}

/* op_matmul_groups against op_matmul on the groups copied out (op_permute) and the result
 * copied back: the same bits forward and backward, for the two products of attention,
 * S = q k^T per group (q, k grouped; S [B, G, T, T]) and o = S v (v and o grouped). T = 300
 * puts the products' K past one 256-deep slice of the gemm. */
static void test_matmul_groups_same_bits_as_permuted(void)
{
    int sizes[][3] = {{37, 3, 20}, {300, 2, 24}}; /* T, G, d */
    for (int z = 0; z < 2; z++) {
        setup();
        int B = 2, T = sizes[z][0], G = sizes[z][1], d = sizes[z][2];
        int sx[3] = {B, T, G * d}, split[4] = {B, T, G, d}, perm[4] = {0, 2, 1, 3};
        Tensor *x[3] = {param(3, sx, -1, 1, 41), param(3, sx, -1, 1, 42), param(3, sx, -1, 1, 43)}; /* q, k, v */
        size_t n = x[0]->size;
        real *seed = mem_alloc(n * sizeof(real)), *out[2], *grads[2];
        for (size_t i = 0; i < n; i++) seed[i] = (real)((int)(i * 7 % 13) - 6) / 4;
        for (int permuted = 0; permuted < 2; permuted++) {
            for (int j = 0; j < 3; j++) memset(x[j]->grad, 0, n * sizeof(real));
            Tensor *o;
            if (permuted) {
                Tensor *h[3];
                for (int j = 0; j < 3; j++) h[j] = op_permute(&g_tape, op_reshape(&g_tape, x[j], 4, split), 4, perm);
                Tensor *S = op_matmul(&g_tape, h[0], h[1], TRANSPOSE_B);
                o = op_reshape(&g_tape, op_permute(&g_tape, op_matmul(&g_tape, S, h[2], TRANSPOSE_NONE), 4, perm), 3, sx);
            } else {
                Tensor *S = op_matmul_groups(&g_tape, x[0], x[1], TRANSPOSE_B, G, GROUPED_A | GROUPED_B);
                CHECK(S->ndim == 4 && S->shape[1] == G && S->shape[2] == T && S->shape[3] == T, "S is not [B, G, T, T]");
                o = op_matmul_groups(&g_tape, S, x[2], TRANSPOSE_NONE, G, GROUPED_B | GROUPED_OUT);
            }
            CHECK(o->ndim == 3 && o->size == n, "o is not [B, T, G d]");
            tape_backward_from(&g_tape, o, seed);
            out[permuted] = mem_alloc(n * sizeof(real));
            memcpy(out[permuted], o->data, n * sizeof(real));
            grads[permuted] = mem_alloc(3 * n * sizeof(real));
            for (int j = 0; j < 3; j++) memcpy(grads[permuted] + j * n, x[j]->grad, n * sizeof(real));
            tape_reset(&g_tape);
        }
        CHECK(all_finite(out[0], n) && memcmp(out[0], out[1], n * sizeof(real)) == 0, "T = %d: (q k^T) v differs", T);
        CHECK(memcmp(grads[0], grads[1], 3 * n * sizeof(real)) == 0, "T = %d: the gradients of q, k, v differ", T);
        for (int k = 0; k < 2; k++) {
            mem_free(out[k]);
            mem_free(grads[k]);
        }
        mem_free(seed);
    }
}

/* ------------------------------------------------------------------ dropout */

static void test_dropout_identity_rate_and_determinism(void)
{
    setup();
    int s[2] = {100, 100};
    Tensor *x = param(2, s, 1, 1, 1);
    CHECK(op_dropout(&g_tape, x, 0) == x, "p = 0 must be the identity");
    g_tape.training = false;
    CHECK(op_dropout(&g_tape, x, (real)0.5) == x, "eval mode must be the identity");
    g_tape.training = true;
    g_tape.dropout_key = 5;
    Tensor *y = op_dropout(&g_tape, x, (real)0.25);
    size_t kept = 0;
    double sum = 0;
    for (size_t i = 0; i < y->size; i++) {
        kept += y->data[i] != 0;
        sum += y->data[i];
        if (y->data[i] != 0) CHECK(fabsf(y->data[i] - 1 / 0.75f) < 1e-6f, "kept value %g, want 1/(1-p)", y->data[i]);
    }
    /* 10000 Bernoulli(0.75) draws: std of the count is sqrt(n p (1-p)) = 43; allow 5 sigma */
    CHECK(fabs((double)kept - 7500) < 5 * 43.3, "kept %zu of 10000 at p = 0.25", kept);
    CHECK(fabs(sum / 10000 - 1) < 5 * 43.3 / 7500, "mean %g, inverted dropout should keep it near 1", sum / 10000);
    Tensor *y2 = op_dropout(&g_tape, x, (real)0.25); /* second call in the step: a new mask */
    /* keep copies: the reset below gives the arena's memory back */
    static real first[10000], second[10000];
    memcpy(first, y->data, sizeof first);
    memcpy(second, y2->data, sizeof second);
    tape_reset(&g_tape);
    g_tape.dropout_key = 5;
    Tensor *y3 = op_dropout(&g_tape, x, (real)0.25); /* same key, first call: the same mask */
    CHECK(memcmp(first, y3->data, sizeof first) == 0, "same key gave another mask");
    CHECK(memcmp(first, second, sizeof first) != 0, "two calls in one step share a mask");
}

/* ------------------------------------------------------------------ gemm */

static void fill(real *x, size_t n, uint64_t seed)
{
    Rng r = rng_stream(seed, 3);
    for (size_t i = 0; i < n; i++) x[i] = (real)(2 * rng_uniform(&r) - 1);
}

/* The fast kernel against the three-loop definition, on one of the two code paths. */
static void check_gemm_against_reference(GemmKernels kernels)
{
    /* Tolerance: both sum K products of numbers in [-1, 1] in float32, in different orders
     * (the fast kernel sums 256-long slices with fma). The error of either is below
     * K * 2^-24 * sum|a_k b_k| <= K^2 * 6e-8 in the worst case; in practice ~sqrt(K) * 6e-8 * |C|.
     * We allow 1e-5 * K, far below the O(1) error of any indexing bug. */
    /* edges of every kind: rows left over after the 8- or 16-row blocks 1..15 (the rows
     * kernel's pieces), columns left over in a 16 or 32 strip, K below, at and above a slice */
    int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {64, 32, 256}, {65, 33, 257}, {100, 300, 70}, {129, 257, 600},
                       {26, 26, 64}, {13, 10, 20}, {30, 20, 17}, {15, 16, 16}, {11, 47, 5}, {5, 7, 0}};
    gemm_use_kernels(kernels);
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int acc = 0; acc < 2; acc++) {
                    int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
                    GemmShape g = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_a = ta, .trans_b = tb, .accumulate = acc});
                    size_t na = (size_t)M * K, nb = (size_t)K * N, nc = (size_t)M * N;
                    real *A = mem_alloc(na * sizeof(real)), *B = mem_alloc(nb * sizeof(real));
                    real *C1 = mem_alloc(nc * sizeof(real)), *C2 = mem_alloc(nc * sizeof(real));
                    fill(A, na, 1);
                    fill(B, nb, 2);
                    fill(C1, nc, 3);
                    memcpy(C2, C1, nc * sizeof(real));
                    gemm(&g, A, B, C1);
                    gemm_reference(&g, A, B, C2);
                    double worst = 0;
                    for (size_t i = 0; i < nc; i++) worst = test_max(worst, fabs((double)C1[i] - C2[i]));
                    CHECK(worst <= 1e-5 * K, "%dx%dx%d ta=%d tb=%d acc=%d portable=%d: max diff %g", M, N, K, ta, tb, acc,
                          kernels == GEMM_KERNELS_BUILD, worst);
                    mem_free(A);
                    mem_free(B);
                    mem_free(C1);
                    mem_free(C2);
                }
    gemm_use_kernels(GEMM_KERNELS_WIDEST);
}

static void test_gemm_fast_matches_reference(void)
{
    check_gemm_against_reference(GEMM_KERNELS_WIDEST);
    check_gemm_against_reference(GEMM_KERNELS_BUILD);
}

/* Where x86 intrinsics speed up gemm (packing a transposed B), the portable code computes the
 * same values: both paths, every form, shapes with and without whole 16 x 16 blocks. */
static void test_gemm_portable_and_intrinsic_paths_agree(void)
{
    int shapes[][3] = {{7, 5, 3}, {40, 48, 32}, {65, 47, 40}, {129, 300, 260}, {26, 26, 64}, {13, 10, 48}, {30, 20, 17}};
    for (int sh = 0; sh < (int)(sizeof shapes / sizeof shapes[0]); sh++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                int M = shapes[sh][0], N = shapes[sh][1], K = shapes[sh][2];
                GemmShape g = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_a = ta, .trans_b = tb});
                real *A = mem_alloc((size_t)M * K * sizeof(real)), *B = mem_alloc((size_t)K * N * sizeof(real));
                real *C1 = mem_alloc((size_t)M * N * sizeof(real)), *C2 = mem_alloc((size_t)M * N * sizeof(real));
                fill(A, (size_t)M * K, 21);
                fill(B, (size_t)K * N, 22);
                for (size_t i = 0; i < (size_t)M * N; i++) C1[i] = C2[i] = NAN; /* a missed write shows */
                gemm_use_kernels(GEMM_KERNELS_BUILD);
                gemm(&g, A, B, C1);
                gemm_use_kernels(GEMM_KERNELS_WIDEST);
                gemm(&g, A, B, C2);
                CHECK(memcmp(C1, C2, (size_t)M * N * sizeof(real)) == 0, "%dx%dx%d ta=%d tb=%d: the paths differ", M, N, K, ta, tb);
                mem_free(A);
                mem_free(B);
                mem_free(C1);
                mem_free(C2);
            }
}

static void test_gemm_batched_matches_loop(void)
{
    int batch = 6, M = 17, N = 9, K = 23;
    GemmShape g = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_b = true});
    g.batch = batch;
    g.stride_a = (size_t)M * K;
    g.stride_b = (size_t)N * K;
    g.stride_c = (size_t)M * N;
    real *A = mem_alloc(g.stride_a * batch * sizeof(real)), *B = mem_alloc(g.stride_b * batch * sizeof(real));
    real *C1 = mem_alloc(g.stride_c * batch * sizeof(real)), *C2 = mem_alloc(g.stride_c * batch * sizeof(real));
    fill(A, g.stride_a * batch, 4);
    fill(B, g.stride_b * batch, 5);
    gemm(&g, A, B, C1);
    GemmShape one = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_b = true});
    for (int b = 0; b < batch; b++) gemm(&one, A + b * g.stride_a, B + b * g.stride_b, C2 + b * g.stride_c);
    CHECK(memcmp(C1, C2, g.stride_c * batch * sizeof(real)) == 0, "batched gemm differs from one-by-one");
    mem_free(A);
    mem_free(B);
    mem_free(C1);
    mem_free(C2);
}

/* Matrices read and written in place inside wider rows (row strides past the row's length),
 * in a batch that comes in runs (GemmShape.group), give the bits of the same matrices copied
 * out densely, on both code paths, for every transpose, with and without accumulating; and
 * nothing outside C's matrices is written. Each operand is a [2, R, 2 C + 3]: 2 runs of 2
 * matrices [R, C] side by side, 3 columns of padding. */
static void test_gemm_strided_matches_dense(void)
{
    enum { RUNS = 2, GROUP = 2, PAD = 3, ITEMS = RUNS * GROUP };
    int shapes[][3] = {{7, 5, 3}, {65, 33, 257}, {26, 16, 64}, {13, 40, 20}}; /* M, N, K */
    for (int kern = 0; kern < 2; kern++) {
        gemm_use_kernels(kern ? GEMM_KERNELS_BUILD : GEMM_KERNELS_WIDEST);
        for (int sh = 0; sh < 4; sh++)
            for (int t = 0; t < 8; t++) {
                bool ta = t & 1, tb = t & 2, acc = t & 4;
                int M = shapes[sh][0], N = shapes[sh][1], K = shapes[sh][2];
                /* stored rows x cols of A, B and C */
                int r[3] = {ta ? K : M, tb ? N : K, M}, c[3] = {ta ? M : K, tb ? K : N, N}, ld[3];
                real *wide[3], *dense[3], *C2;
                for (int o = 0; o < 3; o++) {
                    ld[o] = GROUP * c[o] + PAD;
                    size_t nw = (size_t)RUNS * r[o] * ld[o], nd = (size_t)ITEMS * r[o] * c[o];
                    wide[o] = mem_alloc(nw * sizeof(real));
                    dense[o] = mem_alloc(nd * sizeof(real));
                    fill(wide[o], nw, 51 + o);
                    for (int it = 0; it < ITEMS; it++) /* matrix it: run it / GROUP, columns (it % GROUP) c .. */
                        for (int i = 0; i < r[o]; i++)
                            memcpy(dense[o] + ((size_t)it * r[o] + i) * c[o],
                                   wide[o] + ((size_t)(it / GROUP) * r[o] + i) * ld[o] + (it % GROUP) * c[o],
                                   (size_t)c[o] * sizeof(real));
                }
                size_t nw = (size_t)RUNS * M * ld[2];
                C2 = mem_alloc(nw * sizeof(real));
                memcpy(C2, wide[2], nw * sizeof(real));
                GemmShape sd = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_a = ta, .trans_b = tb, .accumulate = acc,
                                                       .batch = ITEMS, .stride_a = (size_t)r[0] * c[0],
                                                       .stride_b = (size_t)r[1] * c[1], .stride_c = (size_t)M * N});
                GemmShape sw = gemm_layout((GemmShape){
                    .M = M, .N = N, .K = K, .trans_a = ta, .trans_b = tb, .accumulate = acc, .lda = ld[0], .ldb = ld[1],
                    .ldc = ld[2], .batch = ITEMS, .group = GROUP, .stride_a = (size_t)r[0] * ld[0],
                    .stride_b = (size_t)r[1] * ld[1], .stride_c = (size_t)M * ld[2], .group_stride_a = (size_t)c[0],
                    .group_stride_b = (size_t)c[1], .group_stride_c = (size_t)N});
                gemm(&sd, dense[0], dense[1], dense[2]);
                gemm(&sw, wide[0], wide[1], wide[2]);
                int differ = 0, touched = 0;
                for (int it = 0; it < ITEMS; it++)
                    for (int i = 0; i < M; i++)
                        for (int j = 0; j < N; j++)
                            differ += float_bits(dense[2][((size_t)it * M + i) * N + j]) !=
                                      float_bits(wide[2][((size_t)(it / GROUP) * M + i) * ld[2] + (it % GROUP) * N + j]);
                for (int run = 0; run < RUNS; run++)
                    for (int i = 0; i < M; i++)
                        for (int j = GROUP * N; j < ld[2]; j++) {
                            size_t at = ((size_t)run * M + i) * ld[2] + j;
                            touched += float_bits(wide[2][at]) != float_bits(C2[at]);
                        }
                CHECK(differ == 0 && touched == 0, "%dx%dx%d ta=%d tb=%d acc=%d portable=%d: %d values differ, %d padding written",
                      M, N, K, ta, tb, acc, kern, differ, touched);
                for (int o = 0; o < 3; o++) {
                    mem_free(wide[o]);
                    mem_free(dense[o]);
                }
                mem_free(C2);
            }
    }
    gemm_use_kernels(GEMM_KERNELS_WIDEST);
}

static void test_gemm_inside_a_parallel_region(void)
{
    if (test_skip_without_threads()) return;
    /* Callers may run gemm from several threads at once (./probe does): each must get its own
     * packing buffers. Four products of several tiles each, two threads, against one by one. */
    enum { P = 4, M = 150, N = 300, K = 270 };
    real *A = mem_alloc((size_t)P * M * K * sizeof(real)), *B = mem_alloc((size_t)P * K * N * sizeof(real));
    real *C1 = mem_alloc((size_t)P * M * N * sizeof(real)), *C2 = mem_alloc((size_t)P * M * N * sizeof(real));
    fill(A, (size_t)P * M * K, 11);
    fill(B, (size_t)P * K * N, 12);
    GemmShape s = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_b = true});
    for (int p = 0; p < P; p++) gemm(&s, A + (size_t)p * M * K, B + (size_t)p * K * N, C1 + (size_t)p * M * N);
#pragma omp parallel for num_threads(2) schedule(static, 1)
    for (int p = 0; p < P; p++) gemm(&s, A + (size_t)p * M * K, B + (size_t)p * K * N, C2 + (size_t)p * M * N);
    CHECK(memcmp(C1, C2, (size_t)P * M * N * sizeof(real)) == 0, "concurrent gemm calls interfered");
    mem_free(A);
    mem_free(B);
    mem_free(C1);
    mem_free(C2);
}

/* ------------------------------------------------------------------ determinism */

/* Loss and all gradients of a network large enough that every op's parallel loop (and the
 * gemm's tiling) really splits between threads: B*T*C = 65536 elements, attention matrices
 * of 65536, logits of 32768 (each at or above the PARALLEL_MIN of 32768), gemms of 1e7 flops. */
enum { DB = 8, DT = 64, DC = 128, DV = 64, DPARAMS = 5, DGRADS = DC * DC + 3 * DC + DV * DC };

/* The forward pass of the big network on fresh parameters, which go to params[0..DPARAMS). */
static Tensor *big_net_forward(Tensor **params)
{
    setup();
    int s1[1] = {DC};
    Tensor *w1 = param2(DC, DC, 1), *b1 = param(1, s1, -1, 1, 2), *g = param(1, s1, 1, 1, 3),
           *bb = param(1, s1, 0, 0, 4), *table = param2(DV, DC, 5);
    static int ids[DB * DT], targets[DB * DT];
    for (int i = 0; i < DB * DT; i++) {
        ids[i] = (5 * i + 3) % DV;
        targets[i] = (3 * i + 1) % DV;
    }
    g_tape.dropout_key = 1234;
    NetShape shape = {DB, DT, DC, DV};
    Tensor *all[DPARAMS] = {w1, b1, g, bb, table};
    for (int i = 0; i < DPARAMS; i++) params[i] = all[i];
    return net(&g_tape, shape, w1, b1, g, bb, table, ids, targets);
}

/* Copies the gradients of every parameter into grads (DGRADS values). */
static void copy_big_grads(Tensor *const *params, real *grads)
{
    for (int i = 0; i < DPARAMS; i++) {
        memcpy(grads, params[i]->grad, params[i]->size * sizeof(real));
        grads += params[i]->size;
    }
}

static void run_big_net(int threads, real *loss_out, real *grads_out)
{
    omp_set_num_threads(threads);
    Tensor *params[DPARAMS], *loss = big_net_forward(params);
    tape_backward(&g_tape, loss);
    *loss_out = loss->data[0];
    copy_big_grads(params, grads_out);
}

/* A sum over rows of a matrix narrower than one column block (48 columns: one block of 64 would
 * leave a thread idle, so the blocks narrow to 32): every column is summed over the rows in
 * order, the same bits for 1 and 2 threads as the plain loop. 2048 x 48 elements, above
 * PARALLEL_MIN, so the blocks really split. */
static void test_column_sums_same_bits_when_blocks_narrow(void)
{
    if (test_skip_without_threads()) return;
    enum { ROWS = 2048, COLS = 48 };
    static real g[ROWS * COLS];
    fill(g, ROWS * COLS, 12);
    real want[COLS], got[2][COLS];
    for (int j = 0; j < COLS; j++) {
        real acc = 0;
        for (int r = 0; r < ROWS; r++) acc += g[r * COLS + j];
        want[j] = 1 + acc; /* dst starts at 1: the sum is added to it */
    }
    int before = omp_get_max_threads();
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t + 1);
        for (int j = 0; j < COLS; j++) got[t][j] = 1;
        sum_rows_into(g, ROWS, COLS, got[t]);
    }
    omp_set_num_threads(before);
    CHECK(memcmp(got[0], want, sizeof want) == 0, "1 thread: the column sums differ from the in-order loop");
    CHECK(memcmp(got[1], want, sizeof want) == 0, "2 threads: the column sums differ from the in-order loop");
}

static void test_same_bits_for_any_thread_count(void)
{
    if (test_skip_without_threads()) return;
    static real g1[DGRADS], g2[DGRADS];
    real l1, l2;
    run_big_net(1, &l1, g1);
    run_big_net(2, &l2, g2);
    CHECK(isfinite(l1) && memcmp(&l1, &l2, sizeof l1) == 0, "loss differs: %.9g vs %.9g", l1, l2);
    CHECK(memcmp(g1, g2, sizeof g1) == 0, "gradients of w1, b1, the LN gain and bias or the table differ between 1 and 2 threads");
    /* and a transposed gemm split into several tiles */
    int M = 300, N = 200, K = 300;
    GemmShape s = gemm_layout((GemmShape){.M = M, .N = N, .K = K, .trans_a = true});
    real *A = mem_alloc((size_t)M * K * sizeof(real)), *B = mem_alloc((size_t)K * N * sizeof(real));
    real *C1 = mem_alloc((size_t)M * N * sizeof(real)), *C2 = mem_alloc((size_t)M * N * sizeof(real));
    fill(A, (size_t)M * K, 8);
    fill(B, (size_t)K * N, 9);
    omp_set_num_threads(1);
    gemm(&s, A, B, C1);
    omp_set_num_threads(2);
    gemm(&s, A, B, C2);
    CHECK(memcmp(C1, C2, (size_t)M * N * sizeof(real)) == 0, "gemm differs between 1 and 2 threads");
    mem_free(A);
    mem_free(B);
    mem_free(C1);
    mem_free(C2);
}

/* ------------------------------------------------------------------ fast exp and tanh */

static void test_fast_exp_and_tanh_match_libm(void)
{
    double worst_exp = 0, worst_tanh = 0, worst_tanh_rel = 0;
    for (int i = 0; i <= 1000000; i++) {
        float x = -87.0f * (float)i / 1000000;
        double e = exp((double)x);
        worst_exp = test_max(worst_exp, fabs(exp_nonpositive(x) - e) / e);
        float u = 20.0f * (float)(i - 500000) / 500000;
        double t = tanh((double)u);
        worst_tanh = test_max(worst_tanh, fabs(tanh_fast(u) - t));
        if (u != 0) worst_tanh_rel = test_max(worst_tanh_rel, fabs(tanh_fast(u) - t) / fabs(t));
        float tiny = ldexpf(1.0f, -(i % 120)); /* 1 down to 2^-119: the series branch */
        worst_tanh_rel = test_max(worst_tanh_rel, fabs(tanh_fast(tiny) - tanh((double)tiny)) / tanh((double)tiny));
    }
    CHECK(worst_exp < 2e-7, "exp: worst relative error %g", worst_exp);
    CHECK(worst_tanh < 2e-7, "tanh: worst absolute error %g", worst_tanh);
    CHECK(worst_tanh_rel < 1e-6, "tanh: worst relative error %g", worst_tanh_rel);
    CHECK(exp_nonpositive(0) == 1 && exp_nonpositive(-1000) == 0 && tanh_fast(100) == 1 && tanh_fast(-100) == -1,
          "exact limits");
    CHECK(isnan(exp_nonpositive(NAN)) && isnan(tanh_fast(NAN)), "NaN must stay NaN");
}

/* ------------------------------------------------------------------ NaN checks */

/* This file is compiled like the trainer (-O3, no -ffast-math). With -ffast-math or
 * -ffinite-math-only the compiler may assume that no NaN or Inf exists and fold the check away;
 * then this test fails. (tests/run.sh also refuses those flags in the Makefile.) */
static void test_nan_checks_survive_optimisation(void)
{
    static real x[1000];
    const real bad[3] = {(real)NAN, (real)INFINITY, -(real)INFINITY};
    int sizes[4] = {1, 7, 64, 1000}, misses = 0;
    for (int si = 0; si < 4; si++)
        for (int b = 0; b < 3; b++)
            for (int p = 0; p < sizes[si]; p += 1 + sizes[si] / 17) {
                for (int i = 0; i < sizes[si]; i++) x[i] = (real)(i % 5) - 2;
                CHECK(find_nonfinite(x, (size_t)sizes[si]) == SIZE_MAX, "a finite array was flagged");
                x[p] = bad[b];
                if (p + 3 < sizes[si]) x[p + 3] = bad[(b + 1) % 3]; /* the first one must be reported */
                misses += find_nonfinite(x, (size_t)sizes[si]) != (size_t)p;
            }
    CHECK(misses == 0, "%d NaN/Inf values were missed or misplaced", misses);
}

/* ------------------------------------------------------------------ rng */


/* loss = sum(s * 4x) with x = 1/4 (the sum as a product with a ones vector). For s = 1e38 the
 * forward values fit a float (loss = 3e38 < 3.4e38), d(loss)/d(4x) = 1e38 too, but d(loss)/dx =
 * 4e38 overflows: the first non-finite gradient is made by the backward of the op 4x (entry 0),
 * in its input x. For s = 1e30, nothing overflows and nothing may be reported. */
static void test_backward_forensics_name_the_op(void)
{
    for (int overflow = 0; overflow < 2; overflow++) {
        setup();
        Tensor *x = param2(1, 3, 5);
        for (int i = 0; i < 3; i++) x->data[i] = (real)0.25;
        int shape[2] = {3, 1};
        Tensor *ones = tensor_new(&g_params, 2, shape, "ones");
        for (int i = 0; i < 3; i++) ones->data[i] = 1;
        real s = overflow ? (real)1e38 : (real)1e30;
        Tensor *a = op_scale(&g_tape, x, 4);
        Tensor *b = op_scale(&g_tape, a, s);
        Tensor *loss = op_matmul(&g_tape, b, ones, TRANSPOSE_NONE); /* [1, 1] */
        CHECK(isfinite(loss->data[0]), "the forward pass overflowed: %g", loss->data[0]);
        TapeFinding f;
        int e = tape_backward_find_nonfinite(&g_tape, loss, &f);
        CHECK(all_finite(a->grad, 3) && a->grad[0] == s, "d(loss)/d(4x) = %g, want %g", a->grad[0], s);
        if (!overflow) {
            CHECK(e == -1, "finite gradients were reported as non-finite (entry %d)", e);
            CHECK(x->grad[0] == 4 * s, "dx = %g, want 4e30", x->grad[0]);
        } else {
            CHECK(e == 0 && f.input == 0 && f.element == 0 && g_tape.entries[0].in[0] == x,
                  "found entry %d (op %s), input %d, element %zu; want entry 0 (op scale), input 0, element 0", e,
                  e >= 0 ? g_tape.entries[e].op : "-", f.input, f.element);
            CHECK(isinf(x->grad[0]), "dx = %g, want inf", x->grad[0]);
        }
    }
}

/* sum16.h promises one order of additions, whatever the vector width: x[j] goes to partial sum
 * j % 16, in order of j, and the 16 partial sums are combined pairwise (l with l + 8, then + 4,
 * + 2, + 1). Written out here one scalar operation at a time, that order must give the same
 * bits for every n; a left-to-right sum must differ for some n (else this could not tell). */
static real sum16_by_hand(const real *a, const real *b, int n)
{
    real acc[16] = {0};
    for (int j = 0; j < n; j++) acc[j % 16] += b ? a[j] * b[j] : a[j];
    real h8[8], h4[4], h2[2];
    for (int l = 0; l < 8; l++) h8[l] = acc[l] + acc[l + 8];
    for (int l = 0; l < 4; l++) h4[l] = h8[l] + h8[l + 4];
    for (int l = 0; l < 2; l++) h2[l] = h4[l] + h4[l + 2];
    return h2[0] + h2[1];
}

static void test_sum16_adds_in_its_documented_order(void)
{
    enum { N = 40 };
    real x[N], y[N];
    Rng r = rng_stream(21, 0);
    for (int j = 0; j < N; j++) { /* signs and magnitudes 2^-20 .. 2^20: the order shows in the last bits */
        x[j] = (real)ldexp(rng_uniform(&r) + 0.5, (int)rng_below(&r, 41) - 20) * (rng_below(&r, 2) ? 1 : -1);
        y[j] = (real)(rng_uniform(&r) - 0.5);
    }
    int differs = 0;
    for (int n = 1; n <= N; n++) {
        real s = sum16(x, n), d = dot16(x, y, n), want_s = sum16_by_hand(x, NULL, n), want_d = sum16_by_hand(x, y, n);
        CHECK(memcmp(&s, &want_s, sizeof s) == 0, "n = %d: sum16 %.9g, by hand %.9g", n, s, want_s);
        CHECK(memcmp(&d, &want_d, sizeof d) == 0, "n = %d: dot16 %.9g, by hand %.9g", n, d, want_d);
        real seq = 0, top = 3 * x[0];
        for (int j = 0; j < n; j++) seq += x[j];
        differs += memcmp(&seq, &s, sizeof s) != 0;
        for (int j = 1; j < n; j++) top = 3 * x[j] > top ? 3 * x[j] : top;
        CHECK(max16_scaled(x, n, 3) == top, "n = %d: max16_scaled %.9g, want %.9g", n, max16_scaled(x, n, 3), top);
    }
    CHECK(differs > 0, "a left-to-right sum equals sum16 for every n: the data cannot tell orders apart");
    /* a NaN first term makes the max NaN; a later one is passed over */
    real z[20];
    for (int j = 0; j < 20; j++) z[j] = (real)j;
    z[7] = NAN;
    CHECK(max16_scaled(z, 20, 1) == 19, "a NaN at 7: max %g, want 19", max16_scaled(z, 20, 1));
    z[0] = NAN;
    CHECK(isnan(max16_scaled(z, 20, 1)), "a NaN first: max %g, want NaN", max16_scaled(z, 20, 1));
}

/* The forensics replay runs after a real backward pass has given its gradient buffers back to
 * the pool, on a graph with reshape views (which share their source's gradient): it must
 * compute exactly the same gradients, and find nothing non-finite. */
static void test_backward_replay_equals_backward(void)
{
    static real first[DGRADS], replay[DGRADS];
    omp_set_num_threads(2);
    Tensor *params[DPARAMS], *loss = big_net_forward(params);
    tape_backward(&g_tape, loss);
    copy_big_grads(params, first);
    for (int i = 0; i < DPARAMS; i++) memset(params[i]->grad, 0, params[i]->size * sizeof(real));
    TapeFinding f;
    int e = tape_backward_find_nonfinite(&g_tape, loss, &f);
    copy_big_grads(params, replay);
    CHECK(e == -1, "the replay found a non-finite gradient at entry %d (op %s)", e, e >= 0 ? g_tape.entries[e].op : "-");
    int differ = 0;
    for (int i = 0; i < DGRADS; i++) differ += first[i] != replay[i];
    CHECK(differ == 0, "%d of %d gradients differ between the backward pass and its replay", differ, DGRADS);
}
static void test_rng_reference_values_and_statistics(void)
{
    /* SplitMix64 started at state 0 is published with first output 0xe220a8397b1dcdaf. */
    Rng r = {0};
    CHECK(rng_next(&r) == 0xe220a8397b1dcdafull, "SplitMix64 reference value");
    Rng a = rng_stream(7, 1), b = rng_stream(7, 1), c = rng_stream(7, 2);
    uint64_t xa = rng_next(&a), xb = rng_next(&b), xc = rng_next(&c);
    CHECK(xa == xb && xa != xc, "streams: same seed and stream must agree, other streams differ");
    /* rng_below(10): chi-square over 100000 draws, 9 degrees of freedom; 99.9% quantile 27.9 */
    int counts[10] = {0};
    Rng d = rng_stream(1, 0);
    for (int i = 0; i < 100000; i++) counts[rng_below(&d, 10)]++;
    double chi = 0;
    for (int k = 0; k < 10; k++) chi += (counts[k] - 1e4) * (counts[k] - 1e4) / 1e4;
    CHECK(chi < 27.9, "rng_below chi-square %g", chi);
    /* normal: mean within 5 standard errors (1/sqrt(n)), variance within 5 * sqrt(2/n) */
    double m = 0, v = 0;
    int n = 100000;
    for (int i = 0; i < n; i++) {
        double z = rng_normal(&d);
        m += z;
        v += z * z;
    }
    m /= n;
    v = v / n - m * m;
    CHECK(fabs(m) < 5 / sqrt(n) && fabs(v - 1) < 5 * sqrt(2.0 / n), "normal mean %g var %g", m, v);
}

/* tensor/base.h: mem_alloc's blocks are zeroed and aligned: 64 bytes from 64 bytes up (a vector
 * of 16 floats), as malloc below (16 bytes; 8 below 16); mem_grow keeps the used bytes. */
static void test_mem_alloc_aligns_and_zeroes(void)
{
    static const size_t sizes[] = {1, 7, 8, 15, 16, 17, 63, 64, 65, 100, 4096, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i], want = n >= 64 ? 64 : n >= 16 ? 16 : 8;
        unsigned char *p = mem_alloc(n);
        bool zero = true;
        for (size_t j = 0; j < n; j++) zero &= p[j] == 0;
        CHECK(zero, "%zu bytes: zeroed", n);
        CHECK((uintptr_t)p % want == 0, "%zu bytes: %zu-byte aligned (address %p)", n, want, (void *)p);
        memset(p, 0xab, n); /* every byte is the caller's (AddressSanitizer checks the edges) */
        unsigned char *q = mem_grow(p, n, 2 * n);
        bool kept = true;
        for (size_t j = 0; j < n; j++) kept &= q[j] == 0xab;
        for (size_t j = n; j < 2 * n; j++) kept &= q[j] == 0;
        CHECK(kept, "%zu bytes grown to %zu: the used bytes kept, the rest zero", n, 2 * n);
        mem_free(q);
    }
    /* mem_grow_array: room at `first`, then doubling when full, the items kept */
    int *v = NULL, cap = 0, n = 0, wrong = 0, caps[3] = {0};
    for (int i = 0; i < 20; i++) {
        v = mem_grow_array(v, n, &cap, sizeof(int), 8);
        v[n++] = i;
        if (n == 1) caps[0] = cap;
        if (n == 9) caps[1] = cap;
        if (n == 17) caps[2] = cap;
    }
    for (int i = 0; i < n; i++) wrong += v[i] != i;
    CHECK(wrong == 0 && caps[0] == 8 && caps[1] == 16 && caps[2] == 32 && cap == 32,
          "mem_grow_array: %d items wrong, capacities %d, %d, %d, %d (want 8, 16, 32, 32)", wrong, caps[0], caps[1], caps[2], cap);
    mem_free(v);
}

/* The operands live outside any function: the aarch64 cross gcc folded the products of volatile
 * locals inside the parallel region at compile time, so the test saw no flush (CI, under qemu). */
static volatile float fp_tiny = FLT_MIN, fp_half = 0.5f, fp_big = 0x1p100f, fp_one = 1;
static volatile float fp_smallest_subnormal = 0x1p-149f;

/* tensor/fpmode.h: after fpmode_flush_subnormals every thread, those of a larger team made
 * afterwards too, writes a subnormal result as 0 and reads a subnormal operand as 0; a normal
 * result is untouched. (Last in the list: the mode stays on for the rest of this process.) */
static void test_every_thread_flushes_subnormals(void)
{
    fpmode_flush_subnormals();
    if (!fpmode_flushes_subnormals()) {
        test_skip("flush-to-zero is not known on this architecture (tensor/fpmode.h)");
        return;
    }
    int before = omp_get_max_threads();
    int bad[2] = {0, 0}, threads[2] = {0, 0};
    for (int round = 0; round < 2; round++) {
        omp_set_num_threads(round == 0 ? 2 : 4); /* round 1: threads the pool did not have */
        int wrong = 0, seen = 0;
#pragma omp parallel reduction(+ : wrong, seen)
        {
            wrong += !fpmode_flushes_subnormals();
            wrong += fp_tiny * fp_half != 0;                /* 2^-127 would be subnormal: written as 0 */
            wrong += fp_smallest_subnormal * fp_big != 0;   /* 2^-49 without the mode: the operand read as 0 */
            wrong += fp_tiny * fp_one != FLT_MIN;           /* the smallest normal stays */
            seen++;
        }
        bad[round] = wrong;
        threads[round] = seen;
    }
    omp_set_num_threads(before);
    CHECK(bad[0] == 0 && bad[1] == 0, "%d and %d failed checks on %d and %d threads", bad[0], bad[1], threads[0], threads[1]);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"sum16: sums, dot products and the max in the documented order", test_sum16_adds_in_its_documented_order},
        {"tape: gradients add up when a tensor is reused", test_tape_accumulates_when_a_tensor_is_reused},
        {"tape: reset between steps, no allocation after the first", test_tape_reset_and_no_allocation_after_first_step},
        {"tape: nothing recorded with grad disabled", test_grad_disabled_records_nothing},
        {"tape: gradient buffers are reused once dead", test_gradient_pool_reuses_buffers},
        {"tape: a watch sees a finished gradient once, none where no gradient goes", test_watch_grad_sees_the_finished_gradient},
        {"tape: the forensics replay shows the watch the gradient", test_watch_grad_in_the_forensics_replay},
        {"numerics: softmax of 1e4 logits, exact zeros under the mask", test_softmax_huge_logits_and_exact_mask},
        {"numerics: cross-entropy of 1e4 logits", test_cross_entropy_huge_logits},
        {"numerics: cross-entropy = log V when uniform; mask counts", test_cross_entropy_uniform_is_log_v_and_mask_counts},
        {"numerics: layernorm output has mean 0, variance 1", test_layernorm_normalises},
        {"numerics: gelu values", test_gelu_values},
        {"tape: the first gradient to reach a tensor is written, the others added", test_first_gradient_is_written_then_added_to},
        {"ops: tanh, exp, l2_normalize, add_pairs against double", test_new_ops_against_double},
        {"format: fp16 rounding against _Float16 and listed values", test_format_round_fp16},
        {"format: bf16 rounding against the bit trick and listed values", test_format_round_bf16},
        {"format: names, maxima, fp32 is the identity", test_format_names_max_and_fp32},
        {"format: op_round under the causal mask (hidden scores filled, not counted)", test_op_round_masked_scores},
        {"format: op_round values and counts", test_op_round_values_and_counts},
        {"softmax emulated: what each failure counts, masked entries", test_softmax_emulated_counts},
        {"softmax emulated: naive fp16 overflows at dk = 512, stable fp16 and naive bf16 do not", test_softmax_naive_overflows_fp16_not_bf16},
        {"softmax emulated: fp32 stable within ulps of the textbook op, the textbook's entry and backward", test_softmax_emulated_without_a_variant_and_its_backward},
        {"determinism: the new ops give the same bits with 1 and 2 threads", test_new_ops_same_bits_for_any_thread_count},
        {"shape: permute moves values, reshape is a view", test_permute_moves_values_and_reshape_is_a_view},
        {"matmul over groups of columns: the bits of permuted copies, forward and backward", test_matmul_groups_same_bits_as_permuted},
        {"fused: scaled softmax and linear equal the unfused ops", test_fused_ops_equal_unfused},
        {"dropout: identity, keep rate, deterministic masks", test_dropout_identity_rate_and_determinism},
        {"gemm: fast kernel matches the reference", test_gemm_fast_matches_reference},
        {"gemm: batched equals one by one", test_gemm_batched_matches_loop},
        {"gemm: matrices in wider rows, in runs of a batch, give the dense bits", test_gemm_strided_matches_dense},
        {"gemm: the portable and the intrinsic paths give the same bits", test_gemm_portable_and_intrinsic_paths_agree},
        {"gemm: concurrent calls from a parallel region", test_gemm_inside_a_parallel_region},
        {"determinism: same bits with 1 and 2 threads", test_same_bits_for_any_thread_count},
        {"determinism: column sums narrower than a block, the same bits with 1 and 2 threads", test_column_sums_same_bits_when_blocks_narrow},
        {"rng: reference value and statistics", test_rng_reference_values_and_statistics},
        {"fastmath: exp and tanh match libm, keep NaN", test_fast_exp_and_tanh_match_libm},
        {"nan: the checks still fire in the optimised build", test_nan_checks_survive_optimisation},
        {"nan: backward forensics name the op that made the first Inf", test_backward_forensics_name_the_op},
        {"nan: the forensics replay gives the same gradients as the backward pass", test_backward_replay_equals_backward},
        {"base: mem_alloc aligns and zeroes; mem_grow keeps the used bytes", test_mem_alloc_aligns_and_zeroes},
        {"fpmode: every thread flushes subnormals to zero", test_every_thread_flushes_subnormals},
    };
    int rc = test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
    tape_free(&g_tape);
    arena_free(&g_acts);
    arena_free(&g_params);
    return rc;
}
