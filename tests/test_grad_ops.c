/* test_grad_ops.c - a finite-difference gradient check for every op of the engine,
 * and for a small composite (one-head causal attention followed by cross-entropy); and
 * format_round on doubles (this is the build where `real` is double).
 *
 * Built with -DREAL_DOUBLE (see gradcheck.h for why, and for the tolerance).
 * Shapes are deliberately odd (non-square, not multiples of 8, and larger than the gemm's
 * register and cache blocks) so that edge handling is exercised too.
 */
#include "gradcheck.h"
#include "test.h"

#include "../tensor/ops.h"
#include "../tensor/rng.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* --------------------------------------------------------------- fixture */

static Arena g_inputs; /* inputs and their gradients: outlive the tape's resets */
static Arena g_acts;
static Tape g_tape;

static void setup(void)
{
    arena_free(&g_inputs);
    arena_init(&g_inputs, 1 << 20);
    tape_free(&g_tape);
    arena_free(&g_acts);
    arena_init(&g_acts, 1 << 20);
    tape_init(&g_tape, &g_acts);
}

static Tensor *input(int ndim, const int *shape, double lo, double hi, uint64_t seed)
{
    Tensor *t = tensor_new(&g_inputs, ndim, shape, "input");
    fill_uniform(t, lo, hi, seed);
    t->requires_grad = true;
    tensor_grad(&g_inputs, t);
    return t;
}

static Tensor *input2(int a, int b, uint64_t seed)
{
    int s[2] = {a, b};
    return input(2, s, -1, 1, seed);
}

static void expect_gradients(const char *what, GradcheckBuild build, void *ctx, Tensor **in, int n,
                             int max_per_input)
{
    GradcheckResult r = gradcheck(&g_tape, build, ctx, in, n, max_per_input, 1234);
    CHECK(r.checked > 0, "%s: nothing checked", what);
    CHECK(r.bad == 0,
          "%s: %d of %d elements off; worst input %d [%ld]: analytic %.10g vs numeric %.10g (%.1fx tol)",
          what, r.bad, r.checked, r.worst_input, r.worst_index, r.analytic, r.numeric, r.worst);
}

/* --------------------------------------------------------------- matmul */

typedef struct MatmulCase {
    bool ta, tb;
} MatmulCase;

static Tensor *build_matmul(Tape *tp, Tensor **in, void *ctx)
{
    MatmulCase *c = ctx;
    return op_matmul(tp, in[0], in[1], (c->ta ? TRANSPOSE_A : TRANSPOSE_NONE) | (c->tb ? TRANSPOSE_B : TRANSPOSE_NONE));
}

static void test_matmul_2d_all_transposes(void)
{
    /* (M, K, N): tiny, odd, and one past the kernel's 8 x 32 register block and 256-deep K slice */
    int sizes[][3] = {{1, 1, 1}, {5, 7, 3}, {13, 11, 37}, {9, 260, 33}};
    for (int s = 0; s < 4; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                setup();
                int M = sizes[s][0], K = sizes[s][1], N = sizes[s][2];
                Tensor *in[2] = {ta ? input2(K, M, 1) : input2(M, K, 1), tb ? input2(N, K, 2) : input2(K, N, 2)};
                MatmulCase c = {ta, tb};
                char what[64];
                snprintf(what, sizeof what, "matmul %dx%dx%d ta=%d tb=%d", M, K, N, ta, tb);
                expect_gradients(what, build_matmul, &c, in, 2, 150);
            }
}

static void test_matmul_batched(void)
{
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            setup();
            int B = 2, H = 3, M = 5, K = 7, N = 4;
            int sa[4] = {B, H, ta ? K : M, ta ? M : K}, sb[4] = {B, H, tb ? N : K, tb ? K : N};
            Tensor *in[2] = {input(4, sa, -1, 1, 3), input(4, sb, -1, 1, 4)};
            MatmulCase c = {ta, tb};
            expect_gradients("batched matmul", build_matmul, &c, in, 2, 200);
        }
}

static void test_matmul_shared_weight(void)
{
    for (int tb = 0; tb < 2; tb++) {
        setup();
        int sa[3] = {3, 5, 7};
        Tensor *in[2] = {input(3, sa, -1, 1, 5), tb ? input2(6, 7, 6) : input2(7, 6, 6)};
        MatmulCase c = {false, tb};
        expect_gradients("matmul with a shared 2-D weight", build_matmul, &c, in, 2, 200);
    }
}

/* --------------------------------------------------------------- matmul over groups of columns */

typedef struct GroupsCase {
    bool ta, tb;
    int groups;
    Grouped grouped;
} GroupsCase;

static Tensor *build_matmul_groups(Tape *tp, Tensor **in, void *ctx)
{
    GroupsCase *c = ctx;
    Transpose t = (c->ta ? TRANSPOSE_A : TRANSPOSE_NONE) | (c->tb ? TRANSPOSE_B : TRANSPOSE_NONE);
    return op_matmul_groups(tp, in[0], in[1], t, c->groups, c->grouped);
}

/* An operand of N G stored matrices [R, C]: [N, R, G*C] grouped, [N, G, R, C] not. */
static Tensor *groups_input(int N, int G, int R, int C, bool grouped, uint64_t seed)
{
    int sg[3] = {N, R, G * C}, sd[4] = {N, G, R, C};
    return grouped ? input(3, sg, -1, 1, seed) : input(4, sd, -1, 1, seed);
}

/* Every layout (each of a, b and out grouped or not) with every transpose; the tolerance is
 * gradcheck.h's (1e-8 absolute + 1e-6 relative, in double). */
static void test_matmul_groups(void)
{
    enum { N = 2, G = 3, M = 5, K = 7, NC = 4 };
    for (int grouped = 0; grouped < 8; grouped++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                setup();
                Tensor *in[2] = {groups_input(N, G, ta ? K : M, ta ? M : K, grouped & GROUPED_A, 3),
                                 groups_input(N, G, tb ? NC : K, tb ? K : NC, grouped & GROUPED_B, 4)};
                GroupsCase c = {ta, tb, G, (Grouped)grouped};
                char what[80];
                snprintf(what, sizeof what, "matmul over groups, grouped %d%d%d ta=%d tb=%d", !!(grouped & GROUPED_A),
                         !!(grouped & GROUPED_B), !!(grouped & GROUPED_OUT), ta, tb);
                expect_gradients(what, build_matmul_groups, &c, in, 2, 200);
            }
}

/* --------------------------------------------------------------- linear */

static Tensor *build_linear(Tape *tp, Tensor **in, void *ctx)
{
    return op_linear(tp, in[0], in[1], *(bool *)ctx ? in[2] : NULL);
}

static void test_linear(void)
{
    for (int with_bias = 0; with_bias < 2; with_bias++)
        for (int nd = 2; nd <= 3; nd++) {
            setup();
            int sx2[2] = {7, 9}, sx3[3] = {2, 5, 9}, sb[1] = {37};
            bool bias = with_bias;
            Tensor *in[3] = {nd == 2 ? input(2, sx2, -1, 1, 1) : input(3, sx3, -1, 1, 1), input2(9, 37, 2),
                             input(1, sb, -1, 1, 3)};
            expect_gradients(bias ? "linear with bias" : "linear", build_linear, &bias, in, bias ? 3 : 2, 150);
        }
}

/* --------------------------------------------------------------- add, scale */

static Tensor *build_add(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_add(tp, in[0], in[1]);
}

static void test_add_same_shape_and_broadcast(void)
{
    int sa[3] = {2, 3, 5};
    setup();
    Tensor *same[2] = {input(3, sa, -1, 1, 1), input(3, sa, -1, 1, 2)};
    expect_gradients("add same shape", build_add, NULL, same, 2, 100);
    setup();
    int sb[1] = {5};
    Tensor *bias[2] = {input(3, sa, -1, 1, 3), input(1, sb, -1, 1, 4)};
    expect_gradients("add bias [5]", build_add, NULL, bias, 2, 100);
    setup();
    int sc[2] = {3, 5};
    Tensor *trail[2] = {input(3, sa, -1, 1, 5), input(2, sc, -1, 1, 6)};
    expect_gradients("add trailing [3,5]", build_add, NULL, trail, 2, 100);
    setup(); /* wide enough for the column-blocked bias reduction to use several blocks */
    int sd[2] = {9, 150}, se[1] = {150};
    Tensor *wide[2] = {input(2, sd, -1, 1, 7), input(1, se, -1, 1, 8)};
    expect_gradients("add bias [150]", build_add, NULL, wide, 2, 300);
}

static Tensor *build_scale(Tape *tp, Tensor **in, void *ctx)
{
    return op_scale(tp, in[0], *(real *)ctx);
}

static void test_scale(void)
{
    setup();
    int s[2] = {4, 6};
    Tensor *in[1] = {input(2, s, -2, 2, 1)};
    real factor = (real)-0.37;
    expect_gradients("scale", build_scale, &factor, in, 1, 100);
}

static Tensor *build_scale_heads(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_scale_heads(tp, in[0], in[1]);
}

static void test_scale_heads(void)
{
    setup();
    int sx[4] = {2, 3, 4, 5}, ss[1] = {3};
    Tensor *in[2] = {input(4, sx, -1, 1, 1), input(1, ss, 0.1, 1, 2)};
    expect_gradients("scale_heads", build_scale_heads, NULL, in, 2, 200);
}

/* --------------------------------------------------------------- softmax */

static Tensor *build_softmax(Tape *tp, Tensor **in, void *ctx)
{
    return op_softmax(tp, in[0], *(Mask *)ctx);
}

static Tensor *build_softmax_scaled(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_softmax_scaled(tp, in[0], (real)0.37, MASK_CAUSAL);
}

static void test_softmax(void)
{
    Mask plain = MASK_NONE, causal = MASK_CAUSAL;
    setup();
    int s1[2] = {4, 7};
    Tensor *a[1] = {input(2, s1, -3, 3, 1)};
    expect_gradients("softmax", build_softmax, &plain, a, 1, 100);
    setup();
    int s2[4] = {2, 2, 5, 5};
    Tensor *b[1] = {input(4, s2, -3, 3, 2)};
    expect_gradients("causal softmax [2,2,5,5]", build_softmax, &causal, b, 1, 200);
    setup(); /* fewer rows than columns: row r sees columns <= r + 2 */
    int s3[3] = {2, 3, 5};
    Tensor *c[1] = {input(3, s3, -3, 3, 3)};
    expect_gradients("causal softmax [2,3,5]", build_softmax, &causal, c, 1, 100);
    setup();
    Tensor *d[1] = {input(4, s2, -6, 6, 4)};
    expect_gradients("scaled causal softmax [2,2,5,5], s = 0.37", build_softmax_scaled, NULL, d, 1, 200);
}

/* --------------------------------------------------------------- layernorm, gelu */

static Tensor *build_layernorm(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_layernorm(tp, in[0], in[1], in[2], (real)1e-5);
}

static void test_layernorm(void)
{
    int shapes[][3] = {{4, 7, 0}, {2, 3, 70}};
    for (int k = 0; k < 2; k++) {
        setup();
        int nd = shapes[k][2] ? 3 : 2, C = shapes[k][nd - 1];
        int sg[1] = {C};
        Tensor *in[3] = {input(nd, shapes[k], -2, 2, 1), input(1, sg, 0.5, 1.5, 2), input(1, sg, -1, 1, 3)};
        expect_gradients("layernorm", build_layernorm, NULL, in, 3, 150);
    }
}

static Tensor *build_gelu(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_gelu(tp, in[0]);
}

static void test_gelu(void)
{
    setup();
    int s[2] = {5, 9};
    Tensor *in[1] = {input(2, s, -4, 4, 1)};
    expect_gradients("gelu", build_gelu, NULL, in, 1, 100);
}

/* --------------------------------------------------------------- embedding, dropout */

static Tensor *build_embedding(Tape *tp, Tensor **in, void *ctx)
{
    return op_embedding(tp, in[0], ctx, 2, 5);
}

static void test_embedding(void)
{
    setup();
    int ids[10] = {3, 0, 3, 5, 1, 3, 5, 0, 2, 4}; /* repeats: their gradients must add up */
    int s[2] = {6, 4};
    Tensor *in[1] = {input(2, s, -1, 1, 1)};
    expect_gradients("embedding", build_embedding, ids, in, 1, 100);
}

static Tensor *build_dropout(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    tp->training = true;
    tp->dropout_key = 42; /* the same mask on every rebuild */
    return op_dropout(tp, in[0], (real)0.3);
}

static void test_dropout(void)
{
    setup();
    int s[2] = {6, 11};
    Tensor *in[1] = {input(2, s, -1, 1, 1)};
    expect_gradients("dropout p=0.3", build_dropout, NULL, in, 1, 100);
}

/* --------------------------------------------------------------- cross-entropy */

typedef struct CeCase {
    const int *targets;
    const unsigned char *mask;
} CeCase;

static Tensor *build_cross_entropy(Tape *tp, Tensor **in, void *ctx)
{
    CeCase *c = ctx;
    return op_cross_entropy(tp, in[0], c->targets, c->mask);
}

static void test_cross_entropy(void)
{
    int targets[6] = {0, 6, 2, 2, 5, 1};
    unsigned char mask[6] = {1, 0, 1, 1, 0, 1};
    int s[3] = {2, 3, 7};
    setup();
    Tensor *in[1] = {input(3, s, -3, 3, 1)};
    CeCase all = {targets, NULL}, some = {targets, mask};
    expect_gradients("cross-entropy", build_cross_entropy, &all, in, 1, 100);
    expect_gradients("cross-entropy with mask", build_cross_entropy, &some, in, 1, 100);
}

/* --------------------------------------------------------------- reshape, permute */

static Tensor *build_reshape_permute(Tape *tp, Tensor **in, void *ctx)
{
    const int *perm = ctx;
    int s[4] = {2, 5, 3, 4}; /* [B, T, H*dk] -> [B, T, H, dk] -> permute */
    Tensor *v = op_reshape(tp, in[0], 4, s);
    return op_permute(tp, v, 4, perm);
}

static void test_reshape_and_permute(void)
{
    int perms[][4] = {{0, 2, 1, 3}, {3, 1, 0, 2}, {0, 1, 2, 3}};
    for (int k = 0; k < 3; k++) {
        setup();
        int s[3] = {2, 5, 12};
        Tensor *in[1] = {input(3, s, -1, 1, 1)};
        expect_gradients("reshape + permute", build_reshape_permute, perms[k], in, 1, 120);
    }
}

/* --------------------------------------------------------------- tanh, exp, l2_normalize, add_pairs */

static Tensor *build_tanh(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_tanh(tp, in[0]);
}

static Tensor *build_exp(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_exp(tp, in[0]);
}

static void test_tanh_and_exp(void)
{
    setup();
    int s[2] = {5, 9};
    Tensor *in[1] = {input(2, s, -3, 3, 1)};
    expect_gradients("tanh", build_tanh, NULL, in, 1, 100);
    expect_gradients("exp", build_exp, NULL, in, 1, 100);
}

static Tensor *build_l2_normalize(Tape *tp, Tensor **in, void *ctx)
{
    return op_l2_normalize(tp, in[0], *(real *)ctx);
}

static void test_l2_normalize(void)
{
    real eps[2] = {0, (real)0.3}; /* eps = 0.3 is comparable to |x|^2 of these rows: it matters */
    for (int k = 0; k < 2; k++) {
        setup();
        int s[3] = {2, 3, 7};
        Tensor *in[1] = {input(3, s, -1, 1, 1)};
        expect_gradients(k ? "l2_normalize, eps = 0.3" : "l2_normalize, eps = 0", build_l2_normalize, &eps[k], in, 1,
                         100);
    }
}

static Tensor *build_add_pairs(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_add_pairs(tp, in[0], in[1]);
}

static void test_add_pairs(void)
{
    setup();
    int sa[3] = {2, 3, 5}, sb[3] = {2, 4, 5}; /* R = 3 rows of a, C = 4 of b: each sums another count */
    Tensor *in[2] = {input(3, sa, -1, 1, 1), input(3, sb, -1, 1, 2)};
    expect_gradients("add_pairs", build_add_pairs, NULL, in, 2, 100);
}

/* --------------------------------------------------------------- round, spec softmax */

/* A rounding is a staircase, whose finite differences are 0: the straight-through gradient
 * (dx = g) can be checked by finite differences only where the rounding is the identity
 * everywhere (fp32). For bf16 and fp16, on values the format holds exactly, the forward must be
 * the identity and the gradient exactly what arrives (added to what was there). */
static Tensor *build_round_fp32(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    return op_round(tp, in[0], FORMAT_FP32, MASK_NONE, NULL);
}

static void test_round_straight_through(void)
{
    setup();
    int s[2] = {4, 6};
    Tensor *in[1] = {input(2, s, -2, 2, 1)};
    expect_gradients("round to fp32", build_round_fp32, NULL, in, 1, 100);
    NumFormat formats[2] = {FORMAT_BF16, FORMAT_FP16};
    for (int k = 0; k < 2; k++) {
        Tensor *x = in[0];
        for (size_t i = 0; i < x->size; i++) {
            x->data[i] = (real)ldexp((double)((int)i - 11), -3); /* (i - 11) / 8: 5 bits, both formats hold it */
            x->grad[i] = (real)0.25;
        }
        tape_reset(&g_tape);
        FormatCounts counts = {0};
        Tensor *y = op_round(&g_tape, x, formats[k], MASK_NONE, &counts);
        real seed[24];
        for (int i = 0; i < 24; i++) seed[i] = (real)(0.1 * i - 1.3);
        tape_backward_from(&g_tape, y, seed);
        int wrong_value = 0, wrong_grad = 0;
        for (size_t i = 0; i < x->size; i++) {
            wrong_value += y->data[i] != x->data[i];
            wrong_grad += x->grad[i] != (real)0.25 + seed[i];
        }
        const char *name = format_name(formats[k], NULL);
        CHECK(wrong_value == 0, "%s: %d representable values changed by the rounding", name, wrong_value);
        CHECK(wrong_grad == 0, "%s: %d gradients are not 0.25 + g", name, wrong_grad);
        CHECK(counts.overflow == 0 && counts.nan == 0 && counts.underflow == 0, "%s: counts %ld %ld %ld, want none",
              name, counts.overflow, counts.nan, counts.underflow);
    }
}

static Tensor *build_softmax_emulated(Tape *tp, Tensor **in, void *ctx)
{
    return op_softmax_emulated(tp, in[0], ctx);
}

static void test_softmax_emulated_naive(void)
{
    setup();
    int s[4] = {2, 2, 5, 5};
    Tensor *in[1] = {input(4, s, -6, 6, 1)};
    SoftmaxEmulation em = {.scale = (real)0.37, .mask = MASK_CAUSAL, .naive = true};
    expect_gradients("naive causal softmax [2,2,5,5], s = 0.37", build_softmax_emulated, &em, in, 1, 200);
    em.mask = MASK_NONE;
    expect_gradients("naive softmax [2,2,5,5], s = 0.37", build_softmax_emulated, &em, in, 1, 200);
}

/* format_round in the double build: against gcc's _Float16 (its conversion from double rounds
 * once, directly), and against a bf16 rounding of the double's bits for bf16's normal range.
 * The random doubles use all 53 bits, and a quarter of them sit on a tie of the format or one
 * double ulp beside it: rounding through a float first would round twice and get those wrong. */
static uint64_t double_bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* Halfway between the two numbers of a format (p significant bits, smallest normal 2^emin)
 * around x, moved by one double ulp up (side = 1), down (-1) or not (0). */
static double near_tie(double x, int p, int emin, int side)
{
    int e;
    frexp(x, &e);
    double q = ldexp(1, (e - 1 > emin ? e - 1 : emin) - (p - 1)); /* the spacing near x */
    double t = copysign((floor(fabs(x) / q) + 0.5) * q, x);
    return side ? nextafter(t, side * INFINITY) : t;
}

static void test_format_round_in_double(void)
{
    Rng r = rng_stream(17, 0);
    int compared = 0, wrong_bf = 0;
#ifdef __FLT16_MAX__ /* a compiler with _Float16 (gcc 12 on x86-64; not clang 14): the reference for fp16 */
    int wrong16 = 0;
#endif
    for (int i = 0; i < 200000; i++) {
        double sign = rng_below(&r, 2) ? -1 : 1;
        /* fp16: exponents across its range (subnormals included) and a little beyond */
        double x = sign * ldexp(1 + rng_uniform(&r), (int)rng_below(&r, 46) - 30);
        if (i % 4 == 0) x = near_tie(x, 11, -14, (int)rng_below(&r, 3) - 1);
#ifdef __FLT16_MAX__
        wrong16 += double_bits(format_round(x, FORMAT_FP16)) != double_bits((double)(_Float16)x);
#endif
        /* bf16 of a normal double: round to nearest even at bit 45 (52 - 7) of its fraction */
        double y = sign * ldexp(1 + rng_uniform(&r), (int)rng_below(&r, 250) - 125);
        if (i % 4 == 0) y = near_tie(y, 8, -126, (int)rng_below(&r, 3) - 1);
        uint64_t u = double_bits(y), rounded = (u + 0xfffffffffffull + ((u >> 45) & 1)) >> 45 << 45;
        double want_bf;
        memcpy(&want_bf, &rounded, sizeof want_bf);
        wrong_bf += double_bits(format_round(y, FORMAT_BF16)) != double_bits(want_bf);
        compared++;
    }
    CHECK(compared == 200000, "compared %d", compared);
#ifdef __FLT16_MAX__
    CHECK(wrong16 == 0, "fp16: %d of %d doubles rounded otherwise than _Float16", wrong16, compared);
#endif
    CHECK(wrong_bf == 0, "bf16: %d of %d doubles rounded otherwise than the bit reference", wrong_bf, compared);
    /* just above a tie, where a float cannot go: through a float it would land on the tie, and
     * ties-to-even would round it down to 1 */
    double above = nextafter(1 + ldexp(1, -11), 2);
    CHECK(format_round(above, FORMAT_FP16) == 1 + ldexp(1, -10), "1 + 2^-11 + ulp rounded to %.17g",
          format_round(above, FORMAT_FP16));
    CHECK(format_round(1e300, FORMAT_BF16) == INFINITY && format_round(-1e300, FORMAT_FP16) == -INFINITY &&
              format_round(1e-300, FORMAT_FP16) == 0 && format_round(1e-300, FORMAT_FP32) == 1e-300 &&
              format_max(FORMAT_FP32) == DBL_MAX,
          "doubles beyond the formats");
}

/* --------------------------------------------------------------- composite */

typedef struct AttnCase {
    const int *targets;
    const unsigned char *mask;
    int B, T, C, H;
    bool permuted;
} AttnCase;

/* LN -> q, k, v [B, T, H*dk] -> s q k^T per head (read in place) -> causal softmax -> dropout
 * -> P v per head, written into [B, T, H*dk] -> output projection -> cross-entropy, as
 * model/attention.c computes it; with `permuted`, the heads copied out to [B, H, T, dk] and
 * back instead. Inputs: x, gain, bias, Wq, Wk, Wv, Wo, bq. */
static Tensor *build_attention(Tape *tp, Tensor **in, void *ctx)
{
    AttnCase *c = ctx;
    int B = c->B, T = c->T, C = c->C, H = c->H, dk = C / H;
    tp->training = true;
    tp->dropout_key = 7;
    Tensor *a = op_layernorm(tp, in[0], in[1], in[2], (real)1e-5);
    Tensor *q = op_add(tp, op_matmul(tp, a, in[3], TRANSPOSE_NONE), in[7]);
    Tensor *k = op_matmul(tp, a, in[4], TRANSPOSE_NONE);
    Tensor *v = op_matmul(tp, a, in[5], TRANSPOSE_NONE);
    real s = (real)(1 / sqrt((double)dk));
    Tensor *o;
    if (c->permuted) {
        int split[4] = {B, T, H, dk}, perm[4] = {0, 2, 1, 3}, merged[3] = {B, T, C};
        q = op_permute(tp, op_reshape(tp, q, 4, split), 4, perm);
        k = op_permute(tp, op_reshape(tp, k, 4, split), 4, perm);
        v = op_permute(tp, op_reshape(tp, v, 4, split), 4, perm);
        Tensor *S = op_scale(tp, op_matmul(tp, q, k, TRANSPOSE_B), s);
        Tensor *P = op_dropout(tp, op_softmax(tp, S, MASK_CAUSAL), (real)0.2);
        o = op_reshape(tp, op_permute(tp, op_matmul(tp, P, v, TRANSPOSE_NONE), 4, perm), 3, merged);
    } else {
        Tensor *S = op_scale(tp, op_matmul_groups(tp, q, k, TRANSPOSE_B, H, GROUPED_A | GROUPED_B), s);
        Tensor *P = op_dropout(tp, op_softmax(tp, S, MASK_CAUSAL), (real)0.2);
        o = op_matmul_groups(tp, P, v, TRANSPOSE_NONE, H, GROUPED_B | GROUPED_OUT);
    }
    Tensor *logits = op_matmul(tp, o, in[6], TRANSPOSE_NONE);
    return op_cross_entropy(tp, logits, c->targets, c->mask);
}

static void test_attention_composite(void)
{
    setup();
    enum { B = 2, T = 5, C = 6, H = 2, V = 7 };
    int targets[B * T], sx[3] = {B, T, C}, sc[1] = {C};
    unsigned char mask[B * T];
    Rng r = rng_stream(5, 0);
    for (int i = 0; i < B * T; i++) {
        targets[i] = (int)rng_below(&r, V);
        mask[i] = i % 3 != 0;
    }
    Tensor *in[8] = {input(3, sx, -1, 1, 1), input(1, sc, 0.5, 1.5, 2), input(1, sc, -.5, .5, 3),
                     input2(C, C, 4), input2(C, C, 5), input2(C, C, 6), input2(C, V, 7),
                     input(1, sc, -.5, .5, 8)};
    for (int permuted = 0; permuted < 2; permuted++) {
        AttnCase c = {targets, mask, B, T, C, H, permuted};
        expect_gradients(permuted ? "attention + cross-entropy, heads permuted" : "attention + cross-entropy", build_attention,
                         &c, in, 8, 100);
    }
}

/* --------------------------------------------------------------- the check can fail */

/* An op with a deliberately wrong backward (off by 1%): the checker must reject it. */
typedef struct WrongSaved {
    real s;
} WrongSaved;

static void wrong_scale_backward(Tape *tp, TapeEntry *e)
{
    const WrongSaved *saved = e->saved;
    real *dx = tape_grad(tp, e->in[0]);
    for (size_t i = 0; i < e->in[0]->size; i++) dx[i] += (real)1.01 * saved->s * e->out->grad[i];
}

static Tensor *build_wrong(Tape *tp, Tensor **in, void *ctx)
{
    (void)ctx;
    Tensor *x = in[0], *out = tensor_new(tp->arena, x->ndim, x->shape, "wrong");
    for (size_t i = 0; i < x->size; i++) out->data[i] = 2 * x->data[i];
    TapeEntry *e = tape_push(tp, wrong_scale_backward, "wrong", out, x, NULL, NULL);
    if (e) {
        WrongSaved *saved = tape_save(tp, e, sizeof *saved);
        saved->s = 2;
    }
    return out;
}

static void test_gradcheck_rejects_a_wrong_backward(void)
{
    setup();
    int s[2] = {3, 4};
    Tensor *in[1] = {input(2, s, -1, 1, 1)};
    GradcheckResult r = gradcheck(&g_tape, build_wrong, NULL, in, 1, 100, 1);
    CHECK(r.checked == 12 && r.bad == 12, "a 1%% error went unnoticed: %d of %d flagged", r.bad, r.checked);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"grad: matmul 2-D, all transposes", test_matmul_2d_all_transposes},
        {"grad: matmul batched", test_matmul_batched},
        {"grad: matmul shared weight", test_matmul_shared_weight},
        {"grad: matmul over groups of columns, every layout and transpose", test_matmul_groups},
        {"grad: linear (matmul + bias)", test_linear},
        {"grad: add and bias broadcast", test_add_same_shape_and_broadcast},
        {"grad: scale", test_scale},
        {"grad: scale_heads", test_scale_heads},
        {"grad: softmax (plain, causal, scaled)", test_softmax},
        {"grad: layernorm", test_layernorm},
        {"grad: gelu", test_gelu},
        {"grad: embedding", test_embedding},
        {"grad: dropout", test_dropout},
        {"grad: cross-entropy", test_cross_entropy},
        {"grad: reshape and permute", test_reshape_and_permute},
        {"grad: tanh and exp", test_tanh_and_exp},
        {"grad: l2_normalize", test_l2_normalize},
        {"grad: add_pairs", test_add_pairs},
        {"grad: round, straight-through", test_round_straight_through},
        {"grad: naive softmax (emulated), causal and plain", test_softmax_emulated_naive},
        {"format: rounding a double to fp16 and bf16", test_format_round_in_double},
        {"grad: attention composite", test_attention_composite},
        {"grad: the checker rejects a wrong backward", test_gradcheck_rejects_a_wrong_backward},
    };
    int rc = test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
    tape_free(&g_tape);
    arena_free(&g_acts);
    arena_free(&g_inputs);
    return rc;
}
