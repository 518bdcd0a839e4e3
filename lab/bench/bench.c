/* bench.c - the benchmark behind `make bench`: how close the kernels and the training step
 * come to this machine's limit, measured in one run (ratios, since machines are noisy).
 *
 *   1. peak: a calibrated FMA loop on 1 and on N threads (GFLOP/s);
 *   2. matmul: GFLOP/s of the products a training step runs, at each config's shapes, in all
 *      the forms training uses (A.B, A.B^T, A^T.B, batched per head), as % of the peak;
 *   3. step: a full training step (forward, backward, AdamW) per config with 1 and N threads:
 *      median ms/step over >= 20 steps after warm-up, tokens/s, model FLOP/s and % of peak,
 *      and the peak resident memory against the theoretical minimum;
 *   4. side by side: ours / PyTorch's best per config, from the times scripts/torch_bench.py
 *      measured on this machine (build/torch_bench.csv, read by bench_torch.c), when present.
 *
 * Configs (B, T, C, L, H, V; dk = C/H): S = 32,32,64,2,4,32  M = 32,64,128,4,4,64
 *                                        L = 16,128,256,4,8,256  XL = 8,256,512,6,8,256
 * Model FLOPs per step: 6 P B T + 12 L B T^2 H dk, P = elements of all matmul weights (with
 * the output head), the convention of the comparison figures in the README.
 *
 *   5. load: ./train's default run with its default threads and with --threads=1, quiet and
 *      beside one busy process per core (bench_load.c).
 *
 *   ./bench [--configs=S,M,L,XL] [--steps=20] [--csv=bench.csv] [--train=./train] [--torch=build/torch_bench.csv]
 */
#define _DEFAULT_SOURCE /* fork, pipe, execv, wait4 */

#include "../../tensor/rng.h"
#include "../../model/gpt.h"
#include "../../model/optim.h"
#include "../../model/train_step.h"
#include "../../run/threads.h"
#include "../../tensor/gemm.h"
#include "../../tensor/fpmode.h"
#include "bench_load.h"
#include "bench_torch.h"

#include <math.h>
#include "../../tensor/openmp.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct Config {
    const char *name;
    int B, T, C, L, H, V;
} Config;

static const Config g_configs[] = {
    {"S", 32, 32, 64, 2, 4, 32},
    {"M", 32, 64, 128, 4, 4, 64},
    {"L", 16, 128, 256, 4, 8, 256},
    {"XL", 8, 256, 512, 6, 8, 256},
};
enum { N_CONFIGS = 4 };

static FILE *g_csv;
static TorchTable g_torch; /* PyTorch's times on this machine (scripts/torch_bench.py), when present */
static bool g_have_torch;

/* Whether config `name` is in the comma-separated list (exactly: "L" does not select "XL"). */
static bool selected(const char *list, const char *name)
{
    char l[256], k[16];
    snprintf(l, sizeof l, ",%s,", list);
    snprintf(k, sizeof k, ",%s,", name);
    return strstr(l, k) != NULL;
}

/* ------------------------------------------------------------------ 1. peak */

/* 128 independent FMA lanes per iteration: 8 registers of 16 floats (or 16 of 8), enough
 * independent chains to cover the FMA latency on both pipes. (With 64 lanes the compiler uses
 * only 4 registers and the loop measures latency, not throughput: half the peak.) */
enum { PEAK_LANES = 128 };

static double fma_loop(long iters)
{
    float acc[PEAK_LANES];
    for (int j = 0; j < PEAK_LANES; j++) acc[j] = (float)j * 1e-3f;
    const float x = 0.999999f, y = 1e-7f;
    for (long i = 0; i < iters; i++) {
#pragma omp simd
        for (int j = 0; j < PEAK_LANES; j++) acc[j] = fmaf(acc[j], x, y);
    }
    float s = 0;
    for (int j = 0; j < PEAK_LANES; j++) s += acc[j];
    return s; /* used, so the loop is not removed */
}

static double peak_gflops(int threads)
{
    long iters = 2000000;
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        double sink = 0, t = omp_get_wtime();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
        sink += fma_loop(iters);
        t = omp_get_wtime() - t;
        double g = 2.0 * PEAK_LANES * iters * threads / t / 1e9;
        if (g > best && sink != -1) best = g;
    }
    return best;
}

/* ------------------------------------------------------------------ 2. matmul */

typedef struct MatmulCase {
    const char *what;
    int batch, M, N, K;
    bool ta, tb;
} MatmulCase;

static double matmul_gflops(const MatmulCase *c, int threads)
{
    GemmShape s = gemm_layout((GemmShape){.M = c->M, .N = c->N, .K = c->K, .trans_a = c->ta, .trans_b = c->tb,
                                          .batch = c->batch, .stride_a = (size_t)c->M * c->K,
                                          .stride_b = (size_t)c->K * c->N, .stride_c = (size_t)c->M * c->N});
    size_t na = s.stride_a * c->batch, nb = s.stride_b * c->batch, nc = s.stride_c * c->batch;
    real *A = mem_alloc(na * sizeof(real)), *B = mem_alloc(nb * sizeof(real)), *C = mem_alloc(nc * sizeof(real));
    Rng r = rng_stream(1, RNG_STREAM_BENCH);
    for (size_t i = 0; i < na; i++) A[i] = (real)rng_uniform(&r);
    for (size_t i = 0; i < nb; i++) B[i] = (real)rng_uniform(&r);
    omp_set_num_threads(threads);
    double flops = 2.0 * c->batch * c->M * c->N * (double)c->K;
    int reps = (int)fmax(3, 2e9 / flops); /* ~2 GFLOP per measurement */
    double best = INFINITY;
    gemm(&s, A, B, C); /* warm-up */
    for (int k = 0; k < 5; k++) {
        double t = omp_get_wtime();
        for (int i = 0; i < reps; i++) gemm(&s, A, B, C);
        best = fmin(best, (omp_get_wtime() - t) / reps);
    }
    mem_free(A);
    mem_free(B);
    mem_free(C);
    return flops / best / 1e9;
}

static int matmul_cases(const Config *c, MatmulCase *out)
{
    int BT = c->B * c->T, C = c->C, F = 4 * c->C, dk = c->C / c->H, BH = c->B * c->H;
    MatmulCase cases[] = {
        {"x.W (qkv, out proj)", 1, BT, C, C, false, false},
        {"x.W1 (mlp up)", 1, BT, F, C, false, false},
        {"dY.W1^T (mlp up, dx)", 1, BT, C, F, false, true},
        {"x^T.dY (mlp up, dW1)", 1, C, F, BT, true, false},
        {"x.Wlm (head)", 1, BT, c->V, C, false, false},
        {"Q.K^T per head", BH, c->T, c->T, dk, false, true},
        {"P.V per head", BH, c->T, dk, c->T, false, false},
        {"P^T.dO per head (dV)", BH, c->T, dk, c->T, true, false},
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    memcpy(out, cases, sizeof cases);
    return n;
}

enum { ROUNDS = 3, MAX_CASES = 64 };

/* Every product of the selected configs, ROUNDS times over, keeping each one's best: the rounds
 * are spread over the whole section, so a slow phase of the machine (other tenants) does not
 * decide a figure. */
typedef struct MatmulResults {
    MatmulCase cases[MAX_CASES];
    const Config *config[MAX_CASES];
    double best[MAX_CASES][2]; /* GFLOP/s on 1 thread, on N threads */
    int n;
} MatmulResults;

static void run_matmuls(const char *only, int nthreads, MatmulResults *r)
{
    r->n = 0;
    for (int i = 0; i < N_CONFIGS; i++)
        if (selected(only, g_configs[i].name)) {
            MatmulCase cs[16];
            int k = matmul_cases(&g_configs[i], cs);
            for (int j = 0; j < k && r->n < MAX_CASES; j++) {
                r->config[r->n] = &g_configs[i];
                r->cases[r->n] = cs[j];
                r->best[r->n][0] = r->best[r->n][1] = 0;
                r->n++;
            }
        }
    for (int round = 0; round < ROUNDS; round++)
        for (int i = 0; i < r->n; i++) {
            r->best[i][0] = fmax(r->best[i][0], matmul_gflops(&r->cases[i], 1));
            r->best[i][1] = fmax(r->best[i][1], matmul_gflops(&r->cases[i], nthreads));
        }
}

static void print_matmuls(const MatmulResults *r, double peak1, double peakn)
{
    for (int i = 0; i < r->n; i++) {
        const MatmulCase *m = &r->cases[i];
        double g1 = r->best[i][0], gn = r->best[i][1];
        printf("| %s | %s | %d x %dx%dx%d | %.1f | %.0f%% | %.1f | %.0f%% |\n", r->config[i]->name, m->what, m->batch, m->M,
               m->N, m->K, g1, 100 * g1 / peak1, gn, 100 * gn / peakn);
        fprintf(g_csv, "matmul,%s,%s,%d,%d,%d,%d,%d,%.2f,%.1f,%.2f,%.1f\n", r->config[i]->name, m->what, m->batch, m->M, m->N,
                m->K, m->ta * 2 + m->tb, g1, 100 * g1 / peak1, gn, 100 * gn / peakn);
    }
    fflush(stdout);
}

/* ------------------------------------------------------------------ 3. training step */

typedef struct StepStats {
    double median_ms, min_ms;
    Profile map;             /* where the time of `steps` further steps went (profile.h), summed */
    int map_steps;
    double flops_per_step;
    double min_bytes;        /* parameters, gradients, Adam moments, activations */
    double param_bytes, act_bytes;
} StepStats;

static double matmul_weight_elements(const Config *c)
{
    double C = c->C;
    return c->L * (4 * C * C + 8 * C * C) + C * c->V; /* q, k, v, o; W1, W2; head */
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs in a child process: builds the model, times `steps` steps after 3 of warm-up. */
static StepStats run_steps(const Config *c, int threads, int steps)
{
    omp_set_num_threads(threads);
    GptConfig gc = {.vocab = c->V, .context = c->T, .layers = c->L, .dmodel = c->C, .heads = c->H, .dk = c->C / c->H,
                    .scale_mode = SCALE_SQRT, .init_gain = 1};
    Gpt m;
    gpt_create(&m, &gc);
    gpt_init(&m, 1);
    bool decay[GPT_MAX_PARAMS];
    gpt_decay_flags(&m, decay);
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 1e-3, .min_lr = 1e-4, .warmup = 10, .steps = 1000,
                      .beta1 = 0.9, .beta2 = 0.98, .eps = 1e-8, .weight_decay = 0.01};
    Optimizer opt;
    optim_init(&opt, &oc, m.params, decay, m.n_params);
    int n = c->B * c->T;
    int *tokens = mem_alloc((size_t)n * sizeof(int)), *targets = mem_alloc((size_t)n * sizeof(int));
    Rng r = rng_stream(3, RNG_STREAM_BENCH);
    for (int i = 0; i < n; i++) {
        tokens[i] = (int)rng_below(&r, (uint32_t)c->V);
        targets[i] = (int)rng_below(&r, (uint32_t)c->V);
    }
    Arena acts;
    Tape tp;
    arena_init(&acts, 1 << 20);
    tape_init(&tp, &acts);

    /* the activations a backward pass needs: every output recorded on the tape */
    StepStats st = {0};
    Tensor *loss = op_cross_entropy(&tp, gpt_forward(&m, &tp, tokens, c->B, c->T, NULL), targets, NULL);
    (void)loss;
    for (int k = 0; k < tp.n; k++) st.act_bytes += (double)tp.entries[k].out->size * sizeof(real);
    tape_reset(&tp);
    st.param_bytes = 4.0 * m.n_values * sizeof(real); /* values, gradients, Adam m and v */
    st.min_bytes = st.param_bytes + st.act_bytes;

    double *ms = mem_alloc((size_t)steps * sizeof(double));
    Trainer trainer = {.model = &m, .opt = &opt, .tape = &tp, .seed = 1, .clip = 1.0};
    StepBatch batch = {tokens, targets, NULL, c->B, c->T};
    for (int s = 0; s < steps + 3; s++) {
        double t = omp_get_wtime();
        train_step(&trainer, &batch, s, NULL); /* the step ./train runs, without its instrumentation */
        if (s >= 3) ms[s - 3] = 1e3 * (omp_get_wtime() - t);
    }
    /* the map: as many steps again, each charged by kind of work; the timed steps above ran
     * without it, so the headline figures carry no clock reads at all */
    profile_clear(&st.map);
    tp.profile = &st.map;
    for (int s = steps + 3; s < 2 * steps + 3; s++) train_step(&trainer, &batch, s, NULL);
    tp.profile = NULL;
    st.map_steps = steps;
    qsort(ms, (size_t)steps, sizeof(double), cmp_double);
    st.median_ms = ms[steps / 2];
    st.min_ms = ms[0];
    double dk = (double)c->C / c->H;
    st.flops_per_step = 6 * matmul_weight_elements(c) * n + 12.0 * c->L * c->B * (double)c->T * c->T * c->H * dk;
    return st;
}

/* PyTorch's best tokens/s at config c, for bench.csv; NaN without the file. */
static double torch_tokens_per_s(const Config *c)
{
    const TorchRow *b = g_have_torch ? torch_table_best(&g_torch, c->name) : NULL;
    return b ? c->B * c->T / (b->ms / 1e3) : NAN;
}

static const char *g_self; /* argv[0], to start measurement children */

/* Runs one measurement in a fresh process (this program, started again with --child), so
 * that its peak resident memory is its own. A plain fork() would not do: the child of a
 * process whose OpenMP thread pool is running cannot start parallel regions. */
static bool measure_step(const Config *c, int threads, int steps, StepStats *out, double *rss_bytes)
{
    int fd[2];
    if (pipe(fd) != 0) return false;
    fflush(stdout);
    char a1[64], a2[64], a3[64];
    snprintf(a1, sizeof a1, "--child=%s", c->name);
    snprintf(a2, sizeof a2, "--threads=%d", threads);
    snprintf(a3, sizeof a3, "--steps=%d", steps);
    pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) { /* only async-signal-safe calls until exec */
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        char *args[] = {(char *)g_self, a1, a2, a3, NULL};
        execv(g_self, args);
        _exit(127);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], out, sizeof *out);
    close(fd[0]);
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != (ssize_t)sizeof *out)
        return false;
    *rss_bytes = ru.ru_maxrss * 1024.0; /* Linux reports kilobytes */
    return true;
}

/* The child's side: measure, write the StepStats to stdout (the pipe), exit. */
static int child_main(const char *name, int threads, int steps)
{
    for (int i = 0; i < N_CONFIGS; i++)
        if (!strcmp(g_configs[i].name, name)) {
            StepStats st = run_steps(&g_configs[i], threads, steps);
            return fwrite(&st, sizeof st, 1, stdout) == 1 && fflush(stdout) == 0 ? 0 : 1;
        }
    return 2;
}

/* Measures config c; *best_ms, *best_threads: the faster of the two (NaN when a measurement failed);
 * st[0], st[1]: the kept measurements on 1 and on nthreads threads (st[0].map_steps = 0 when failed). */
static void bench_steps(const Config *c, int nthreads, double peak1, double peakn, int steps, double *best_ms,
                        int *best_threads, StepStats st[2])
{
    *best_ms = NAN;
    *best_threads = 0;
    st[0].map_steps = st[1].map_steps = 0;
    double rss[2], tok_s[2];
    int threads[2] = {1, nthreads};
    /* two rounds, alternating thread counts; the faster median of each (see bench_matmuls) */
    for (int round = 0; round < 2; round++)
        for (int k = 0; k < 2; k++) {
            StepStats one;
            double r;
            if (!measure_step(c, threads[k], steps, &one, &r)) {
                printf("| %s | %d | (the measurement failed) |\n", c->name, threads[k]);
                st[0].map_steps = st[1].map_steps = 0;
                return;
            }
            if (round == 0 || one.median_ms < st[k].median_ms) st[k] = one;
            rss[k] = round == 0 ? r : fmax(rss[k], r);
        }
    for (int k = 0; k < 2; k++) {
        double gf = st[k].flops_per_step / (st[k].median_ms / 1e3) / 1e9, peak = k ? peakn : peak1;
        tok_s[k] = c->B * c->T / (st[k].median_ms / 1e3);
        printf("| %s | %d | %.1f | %.0f | %.1f | %.0f%% | %.0f | %.0f | %.2f |\n", c->name, threads[k], st[k].median_ms, tok_s[k],
               gf, 100 * gf / peak, rss[k] / (1 << 20), st[k].min_bytes / (1 << 20), rss[k] / st[k].min_bytes);
        fprintf(g_csv, "step,%s,%d,%.3f,%.3f,%.0f,%.2f,%.1f,%.0f,%.0f,%.0f,%.3f,%.0f\n", c->name, threads[k], st[k].median_ms,
                st[k].min_ms, tok_s[k], gf, 100 * gf / peak, rss[k], st[k].param_bytes, st[k].act_bytes,
                rss[k] / st[k].min_bytes, torch_tokens_per_s(c));
        fflush(stdout);
    }
    printf("| %s | speed-up %d vs 1 thread: %.2fx |\n", c->name, nthreads, st[0].median_ms / st[1].median_ms);
    int k = st[1].median_ms < st[0].median_ms;
    *best_ms = st[k].median_ms;
    *best_threads = threads[k];
}

/* The map of config c: each kind's mean forward, backward and total ms per step and its share of
 * the step (the sum of every kind: the charges cover the whole step, profile.h), on 1 thread and
 * on nthreads; then the unprofiled median beside that sum, so a reader sees what the clock cost. */
static void print_map(const Config *c, const StepStats st[2], int nthreads)
{
    if (!st[0].map_steps || !st[1].map_steps) return;
    double total[2] = {0, 0};
    for (int k = 0; k < 2; k++)
        for (int kind = 0; kind < PROFILE_KINDS; kind++)
            total[k] += st[k].map.seconds[kind][PROFILE_FORWARD] + st[k].map.seconds[kind][PROFILE_BACKWARD];
    printf("\n### %s: where a step's time goes (mean of %d steps)\n\n"
           "| work | 1 thread: forward ms | backward ms | ms | %% of step | %d threads: forward ms | backward ms | ms | %% of step |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", c->name, st[0].map_steps, nthreads);
    for (int kind = 0; kind < PROFILE_KINDS; kind++) {
        printf("| %s |", profile_kind_label(kind));
        for (int k = 0; k < 2; k++) {
            double f = 1e3 * st[k].map.seconds[kind][PROFILE_FORWARD] / st[k].map_steps;
            double b = 1e3 * st[k].map.seconds[kind][PROFILE_BACKWARD] / st[k].map_steps;
            double share = 100 * (f + b) / (1e3 * total[k] / st[k].map_steps);
            printf(" %.3f | %.3f | %.3f | %.1f%% |", f, b, f + b, share);
            fprintf(g_csv, "map,%s,\"%s\",%d,%.4f,%.4f,%.4f,%.2f\n", c->name, profile_kind_label(kind), k ? nthreads : 1, f, b, f + b,
                    share);
        }
        printf("\n");
    }
    printf("| **the step (sum of the rows)** |");
    for (int k = 0; k < 2; k++) printf(" | | **%.3f** | 100%% |", 1e3 * total[k] / st[k].map_steps);
    printf("\n| the step's median without the clock (above) |");
    for (int k = 0; k < 2; k++) printf(" | | %.3f | |", st[k].median_ms);
    printf("\n");
    fflush(stdout);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    const char *csv = "bench.csv", *only = "S,M,L,XL", *child = NULL, *train = "./train", *torch = TORCH_BENCH_DEFAULT;
    int steps = 20, threads = 1;
    g_self = argv[0];
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--configs=", 10)) only = argv[i] + 10;
        else if (!strncmp(argv[i], "--steps=", 8)) steps = atoi(argv[i] + 8);
        else if (!strncmp(argv[i], "--csv=", 6)) csv = argv[i] + 6;
        else if (!strncmp(argv[i], "--child=", 8)) child = argv[i] + 8;
        else if (!strncmp(argv[i], "--threads=", 10)) threads = atoi(argv[i] + 10);
        else if (!strncmp(argv[i], "--train=", 8)) train = argv[i] + 8;
        else if (!strncmp(argv[i], "--torch=", 8)) torch = argv[i] + 8;
        else {
            fprintf(stderr, "usage: %s [--configs=S,M,L,XL] [--steps=20] [--csv=bench.csv] [--train=./train] [--torch=%s]\n",
                    argv[0], TORCH_BENCH_DEFAULT);
            return 2;
        }
    }
    if (steps < 1 || steps > 100000) {
        fprintf(stderr, "error: --steps must be between 1 and 100000\n");
        return 2;
    }
    threads_from_env(); /* a bad $OMP_NUM_THREADS or $OMP_DYNAMIC: refused as ./train refuses it */
    fpmode_flush_subnormals(); /* as ./train (tensor/fpmode.h) */
    if (child) return child_main(child, threads, steps);
    char err[1024];
    int got = torch_table_read(torch, &g_torch, err, sizeof err);
    if (got < 0) {
        fprintf(stderr, "error: %s\n", err);
        return 2;
    }
    g_have_torch = got > 0;
    g_csv = fopen(csv, "w");
    if (!g_csv) {
        fprintf(stderr, "error: cannot write %s\n", csv);
        return 2;
    }
    int nthreads = threads_usable(); /* what ./train uses by default: affinity mask, cgroup quota */
    fprintf(g_csv, "kind,config,what,threads_or_batch,a,b,c,d,e,f,g,h,i\n");

    /* The peak is measured before and after the matmul rounds and the higher figure kept, so
     * that a slow phase of the machine cannot make kernels look faster than the peak. */
    double peak1 = peak_gflops(1), peakn = peak_gflops(nthreads);
    MatmulResults mm;
    run_matmuls(only, nthreads, &mm);
    peak1 = fmax(peak1, peak_gflops(1));
    peakn = fmax(peakn, peak_gflops(nthreads));
    printf("## Peak: a calibrated FMA loop (the better of two measurements)\n\n| threads | GFLOP/s |\n|---:|---:|\n"
           "| 1 | %.1f |\n| %d | %.1f |\n\n", peak1, nthreads, peakn);
    fprintf(g_csv, "peak,,,1,%.2f\npeak,,,%d,%.2f\n", peak1, nthreads, peakn);
    printf("## Matmul (the best of %d rounds of 5 timings; gemm kernel: %s, picked for this CPU at run time)\n\n| config | product | batch x MxNxK | 1 thread GFLOP/s | %% of peak | %d threads | %% of peak |\n"
           "|---|---|---|---:|---:|---:|---:|\n", ROUNDS, gemm_kernel_name(), nthreads);
    print_matmuls(&mm, peak1, peakn);
    printf("\n## Training step (forward, backward, AdamW; median of %d steps after 3 warm-up, the better of 2 rounds)\n\n"
           "| config | threads | ms/step | tokens/s | model GFLOP/s | %% of peak | peak RSS MiB | minimum MiB | RSS / minimum |\n"
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", steps);
    double best_ms[N_CONFIGS];
    int best_threads[N_CONFIGS];
    StepStats kept[N_CONFIGS][2];
    for (int i = 0; i < N_CONFIGS; i++)
        if (selected(only, g_configs[i].name))
            bench_steps(&g_configs[i], nthreads, peak1, peakn, steps, &best_ms[i], &best_threads[i], kept[i]);
    printf("\nminimum = parameters + gradients + Adam moments + every activation the tape keeps for the backward pass.\n");
    printf("\n## The map: where each config's step spends its time, by kind of work\n\n"
           "The same child processes as the table above ran %d more steps each, with every op's forward and backward\n"
           "charged to its kind (tensor/profile.h); the rows add up to the whole step.\n", steps);
    for (int i = 0; i < N_CONFIGS; i++)
        if (selected(only, g_configs[i].name)) print_map(&g_configs[i], kept[i], nthreads);
    if (!g_have_torch) torch_print_absent(torch);
    else {
        torch_print_header(&g_torch);
        for (int i = 0; i < N_CONFIGS; i++)
            if (selected(only, g_configs[i].name)) torch_print_row(&g_torch, g_configs[i].name, best_ms[i], best_threads[i]);
    }
    bench_busy_neighbour(train, nthreads, g_csv);
    fclose(g_csv);
    return 0;
}
