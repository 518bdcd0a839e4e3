/* test_step.c - the training step that ./train and the benchmark run (model/train_step.c):
 * clipping, the dropout key, its hooks, the same bits for any thread count, no allocation. */
#include "test.h"

#include "../model/attn_spec.h"
#include "../data/data.h"
#include "../model/gpt.h"
#include "../model/optim.h"
#include "../run/attention_stats.h"
#include "../model/train_step.h"
#include "../run/threads.h"

#include <math.h>
#include "../tensor/openmp.h"
#include <string.h>

/* A small model, its optimizer, tape and a fixed batch of a copy task. */
typedef struct Rig {
    Dataset data;
    Gpt model;
    Optimizer opt;
    bool decay[GPT_MAX_PARAMS];
    Arena acts;
    Tape tape;
    Batch batch;
    Trainer trainer;
} Rig;

static void rig_open(Rig *g, const GptConfig *base, const OptimConfig *oc, int B, double clip)
{
    char err[256];
    DataConfig dc = {.task = name_find(task_name, "copy"), .symbols = 6, .min_len = 2, .max_len = 5, .val_size = 16, .context = 12, .seed = 1};
    CHECK(dataset_open(&g->data, &dc, err, sizeof err), "%s", err);
    GptConfig cfg = *base;
    cfg.vocab = g->data.vocab.size;
    cfg.context = 12;
    gpt_create(&g->model, &cfg);
    gpt_init(&g->model, 1);
    gpt_decay_flags(&g->model, g->decay);
    optim_init(&g->opt, oc, g->model.params, g->decay, g->model.n_params);
    arena_init(&g->acts, 1024); /* far too small: the first step must grow it */
    tape_init(&g->tape, &g->acts);
    batch_alloc(&g->batch, B, 12);
    g->trainer = (Trainer){.model = &g->model, .opt = &g->opt, .tape = &g->tape, .seed = 5, .clip = clip};
}

static StepBatch rig_batch(Rig *g, int step)
{
    dataset_train_batch(&g->data, step, &g->batch);
    return (StepBatch){g->batch.tokens, g->batch.targets, g->batch.loss_mask, g->batch.B, g->batch.T};
}

static void rig_close(Rig *g)
{
    batch_free(&g->batch);
    tape_free(&g->tape);
    arena_free(&g->acts);
    optim_free(&g->opt);
    gpt_free(&g->model);
    dataset_free(&g->data);
}

static const GptConfig g_small = {.layers = 2, .dmodel = 16, .heads = 2, .dk = 8, .scale_mode = SCALE_SQRT, .init_gain = 1};

static double distance(const real *a, const real *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
    return sqrt(s);
}

/* With SGD at lr 1 and no decay, the update is -(the clipped gradient): its norm must be the
 * clip c when the gradient is longer, and the gradient's own norm when it is shorter. */
static void test_step_clips_the_update_to_the_global_norm(void)
{
    OptimConfig oc = {.kind = name_find(optim_name, "sgd"), .lr = 1, .min_lr = 1, .warmup = 0, .steps = 100};
    double clips[2] = {0.05, 1e6};
    for (int k = 0; k < 2; k++) {
        Rig g;
        rig_open(&g, &g_small, &oc, 4, clips[k]);
        size_t n = g.model.n_values;
        real *before = mem_alloc(n * sizeof(real));
        memcpy(before, g.model.values, n * sizeof(real));
        StepBatch b = rig_batch(&g, 0);
        StepResult res = train_step(&g.trainer, &b, 0, NULL);
        double moved = distance(before, g.model.values, n);
        double want = res.grad_norm > clips[k] ? clips[k] : res.grad_norm;
        CHECK(res.updated && res.lr == 1, "the update was not applied at lr 1 (lr %g)", res.lr);
        CHECK(fabs(moved - want) <= 1e-4 * want, "clip %g: the parameters moved by %.7g, want %.7g (gradient norm %.7g)",
              clips[k], moved, want, res.grad_norm);
        if (k == 0) CHECK(res.grad_norm > 10 * clips[k], "the gradient norm %g is too small to test clipping", res.grad_norm);
        mem_free(before);
        rig_close(&g);
    }
}

/* The key of a step's dropout masks: a function of (seed, step) alone, different for every
 * step and every seed; the step uses it. */
static void test_dropout_key_depends_on_seed_and_step(void)
{
    enum { N = 2000 };
    static uint64_t keys[2 * N];
    for (int s = 0; s < N; s++) {
        keys[s] = train_dropout_key(1, s);
        keys[N + s] = train_dropout_key(2, s);
    }
    int same = 0;
    for (int i = 0; i < 2 * N; i++)
        for (int j = i + 1; j < 2 * N; j++) same += keys[i] == keys[j];
    CHECK(same == 0, "%d pairs of (seed, step) share a dropout key", same);
    CHECK(train_dropout_key(1, 7) == keys[7], "the key is not a function of (seed, step)");

    GptConfig cfg = g_small;
    cfg.dropout = cfg.attn_dropout = 0.3;
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .steps = 10};
    Rig g;
    rig_open(&g, &cfg, &oc, 4, 1);
    /* the same batch at two steps: with dropout on, the losses differ only by their masks */
    StepBatch b = rig_batch(&g, 0);
    real *init = mem_alloc(g.model.n_values * sizeof(real));
    memcpy(init, g.model.values, g.model.n_values * sizeof(real));
    double loss[2];
    for (int k = 0; k < 2; k++) {
        memcpy(g.model.values, init, g.model.n_values * sizeof(real));
        StepResult res = train_step(&g.trainer, &b, 3 + k, NULL);
        CHECK(g.tape.dropout_key == train_dropout_key(g.trainer.seed, 3 + k), "step %d ran with another dropout key", 3 + k);
        loss[k] = res.loss;
    }
    CHECK(loss[0] != loss[1], "steps 3 and 4 drew the same dropout masks (loss %.9g both)", loss[0]);
    mem_free(init);
    rig_close(&g);
}

/* Every hook is called, in order, with the step's own values; returning false from a check
 * skips what follows it. */
typedef struct HookLog {
    char order[16];
    int n;
    bool refuse_forward, refuse_backward;
    double norm_seen;
} HookLog;

static void h_before(void *c, int step)
{
    (void)step;
    HookLog *l = c;
    l->order[l->n++] = 'f';
}
static bool h_forward(void *c, int step, Tensor *loss)
{
    (void)step, (void)loss;
    HookLog *l = c;
    l->order[l->n++] = 'l';
    return !l->refuse_forward;
}
static bool h_backward(void *c, int step, Tensor *loss)
{
    (void)step, (void)loss;
    HookLog *l = c;
    l->order[l->n++] = 'b';
    return !l->refuse_backward;
}
static void h_update(void *c, int step, const StepResult *res, Tensor *logits, Tensor *loss)
{
    (void)step, (void)logits, (void)loss;
    HookLog *l = c;
    l->order[l->n++] = 'u';
    l->norm_seen = res->grad_norm;
}

static void test_step_hooks_are_called_and_can_skip(void)
{
    OptimConfig oc = {.kind = name_find(optim_name, "sgd"), .lr = 0.1, .min_lr = 0.1, .steps = 10};
    Rig g;
    rig_open(&g, &g_small, &oc, 4, 0);
    StepBatch b = rig_batch(&g, 0);
    const char *want[3] = {"flbu", "flu", "flbu"};
    real *before = mem_alloc(g.model.n_values * sizeof(real));
    for (int k = 0; k < 3; k++) {
        HookLog log = {.refuse_forward = k == 1, .refuse_backward = k == 2};
        StepHooks hooks = {&log, h_before, h_forward, h_backward, h_update, NULL};
        memcpy(before, g.model.values, g.model.n_values * sizeof(real));
        StepResult res = train_step(&g.trainer, &b, 0, &hooks);
        log.order[log.n] = 0;
        CHECK(!strcmp(log.order, want[k]), "case %d: hooks called as %s, want %s", k, log.order, want[k]);
        bool moved = memcmp(before, g.model.values, g.model.n_values * sizeof(real)) != 0;
        CHECK(res.updated == (k == 0) && moved == (k == 0), "case %d: updated %d, parameters moved %d", k, res.updated, moved);
        CHECK(res.backward == (k != 1) && (k == 1 ? isnan(log.norm_seen) : log.norm_seen == res.grad_norm && res.grad_norm > 0),
              "case %d: the update hook saw gradient norm %g", k, log.norm_seen);
    }
    mem_free(before);
    rig_close(&g);
}

/* Every parameter's gradient, the loss, the rounding counts and each query row's |dL/dS| have
 * the same bits with 1 and 2 threads, for a model large enough that every parallel loop really
 * splits: [B, T, C] = [8, 32, 128] holds 32768 elements (PARALLEL_MIN), LayerNorm, bias and
 * embedding gradients span 2 or more column blocks, the attention matrices 8 x 4 x 32 x 32. */
static void check_thread_bits(GptConfig cfg, const char *what)
{
    enum { B = 8, T = 32 };
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 3);
    int tokens[B * T], targets[B * T];
    for (int i = 0; i < B * T; i++) {
        tokens[i] = (i * 7 + 3) % 64;
        targets[i] = (i * 11 + 5) % 64;
    }
    Arena acts;
    Tape tp;
    arena_init(&acts, 1 << 20);
    tape_init(&tp, &acts);
    real *grads[2], loss[2], *rows[2];
    FormatCounts counts[2], per_layer[2];
    size_t n_rows = (size_t)B * cfg.heads * T;
    for (int k = 0; k < 2; k++) {
        omp_set_num_threads(k + 1);
        memset(m.grads, 0, m.n_values * sizeof(real));
        tp.training = true;
        tp.dropout_key = train_dropout_key(9, 4);
        AttentionTrace trace[2] = {{.want_row_grads = true}, {.want_row_grads = true}};
        Tensor *l = op_cross_entropy(&tp, gpt_forward(&m, &tp, tokens, B, T, trace), targets, NULL);
        tape_backward(&tp, l);
        loss[k] = l->data[0];
        grads[k] = mem_alloc(m.n_values * sizeof(real));
        memcpy(grads[k], m.grads, m.n_values * sizeof(real));
        rows[k] = mem_alloc(n_rows * sizeof(real));
        memcpy(rows[k], trace[1].row_grad_norms, n_rows * sizeof(real));
        memset(per_layer, 0, sizeof per_layer);
        rounding_add(per_layer, trace, 2);
        counts[k] = rounding_total(per_layer, 2);
        tape_reset(&tp);
    }
    omp_set_num_threads(2);
    CHECK(isfinite(loss[0]) && memcmp(&loss[0], &loss[1], sizeof(real)) == 0, "%s: loss %.9g vs %.9g", what, loss[0], loss[1]);
    size_t off = 0;
    for (int i = 0; i < m.n_params; i++) {
        const Tensor *p = m.params[i];
        CHECK(memcmp(grads[0] + off, grads[1] + off, p->size * sizeof(real)) == 0,
              "%s: the gradient of %s differs between 1 and 2 threads", what, p->name);
        off += p->size;
    }
    CHECK(memcmp(rows[0], rows[1], n_rows * sizeof(real)) == 0 && isfinite(rows[0][n_rows - 1]),
          "%s: the per-query |dL/dS| differ between 1 and 2 threads (or were not recorded)", what);
    CHECK(memcmp(&counts[0], &counts[1], sizeof counts[0]) == 0, "%s: rounding counts %ld/%ld/%ld vs %ld/%ld/%ld", what,
          counts[0].overflow, counts[0].underflow, counts[0].nan, counts[1].overflow, counts[1].underflow, counts[1].nan);
    for (int k = 0; k < 2; k++) {
        mem_free(grads[k]);
        mem_free(rows[k]);
    }
    tape_free(&tp);
    arena_free(&acts);
    gpt_free(&m);
}

static void test_every_gradient_has_the_same_bits_for_1_and_2_threads(void)
{
    if (test_skip_without_threads()) return;
    GptConfig cfg = {.vocab = 64, .context = 32, .layers = 2, .dmodel = 128, .heads = 4, .dk = 32,
                     .scale_mode = SCALE_LEARNED, .scale_init = SCALE_SQRT, .tau_init = 10, .attn_dropout = 0.1,
                     .dropout = 0.1, .init_gain = 1};
    check_thread_bits(cfg, "dot, learned scale");
    GptConfig c = cfg;
    c.attn = name_find(attn_kind_name, "qknorm");
    c.scale_param = SCALE_PARAM_LOG;
    check_thread_bits(c, "qknorm, learned log scale");
    c = cfg;
    c.attn = name_find(attn_kind_name, "cosine");
    check_thread_bits(c, "cosine");
    c = cfg;
    c.attn = name_find(attn_kind_name, "additive");
    check_thread_bits(c, "additive");
    c = cfg;
    c.scale_mode = SCALE_SQRT;
    c.attn = name_find(attn_kind_name, "uniform");
    check_thread_bits(c, "uniform");
    c = cfg;
    c.scale_mode = SCALE_SQRT;
    c.precision = FORMAT_FP16;
    c.softmax = SOFTMAX_NAIVE;
    check_thread_bits(c, "fp16, naive softmax");
    c.precision = FORMAT_BF16;
    c.softmax = SOFTMAX_STABLE;
    check_thread_bits(c, "bf16");
}

/* The thread governor (run/threads.h) may change the thread count between any two steps: a run
 * whose count changes at every step ends with the same bits as a run on one thread. The model
 * is large enough ([8, 12, 128] activations, 128 x 512 weights) for the loops, the gemm and
 * the optimizer's chunks to run in parallel. */
static void test_changing_the_thread_count_between_steps_changes_no_bit(void)
{
    if (test_skip_without_threads()) return;
    GptConfig cfg = {.layers = 2, .dmodel = 128, .heads = 4, .dk = 32, .scale_mode = SCALE_SQRT, .init_gain = 1,
                     .dropout = 0.1, .attn_dropout = 0.1};
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .weight_decay = 0.1,
                      .steps = 10};
    real *params[2];
    for (int run = 0; run < 2; run++) {
        Rig g;
        rig_open(&g, &cfg, &oc, 32, 1.0);
        for (int step = 0; step < 4; step++) {
            omp_set_num_threads(run == 0 ? 1 : 1 + (step + 1) % 2); /* run 1: 2, 1, 2, 1 threads */
            StepBatch b = rig_batch(&g, step);
            StepResult res = train_step(&g.trainer, &b, step, NULL);
            CHECK(res.updated && isfinite(res.loss), "run %d, step %d failed", run, step);
        }
        params[run] = mem_alloc(g.model.n_values * sizeof(real));
        memcpy(params[run], g.model.values, g.model.n_values * sizeof(real));
        size_t n = g.model.n_values;
        rig_close(&g);
        if (run == 1) {
            CHECK(memcmp(params[0], params[1], n * sizeof(real)) == 0,
                  "the parameters after 4 steps differ (distance %g) between 1 thread and a count that changes every step",
                  distance(params[0], params[1], n));
        }
    }
    omp_set_num_threads(2);
    mem_free(params[0]);
    mem_free(params[1]);
}

/* The governor's decision (run/threads.h), case by case. */
static void test_thread_governor_decides_from_delay_and_idle_cores(void)
{
    struct {
        int current, max;
        double delay, idle;
        int windows, want;
        const char *why;
    } cases[] = {
        {2, 2, 0.02, 0.0, 1, 2, "a quiet machine keeps every thread"},
        {2, 2, 0.30, 0.0, 1, 1, "waiting for a CPU: drop to one thread"},
        {4, 4, 0.11, 0.0, 1, 1, "just over the threshold"},
        {1, 2, 0.50, 0.0, 3, 1, "one thread, no idle core: stay"},
        {1, 2, 0.00, 0.95, 1, 2, "one thread, the other core idle: use it"},
        {1, 2, 0.00, 0.60, 1, 1, "one thread, the other core idle 60%: not enough"},
        {1, 8, 0.00, 2.90, 1, 4, "one thread, three cores idle: four threads"},
        {1, 4, 0.00, 7.00, 1, 4, "never above the maximum"},
        {3, 8, 0.01, 0.0, THREADS_RECHECK - 1, 3, "between: keep for a while"},
        {3, 8, 0.01, 0.0, THREADS_RECHECK, 1, "between: then look again on one thread"},
        {8, 8, 0.01, 0.0, 100, 8, "at the maximum: no need to look again"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = threads_decide(cases[i].current, cases[i].max, cases[i].delay, cases[i].idle, cases[i].windows);
        CHECK(got == cases[i].want, "%s: %d threads, want %d", cases[i].why, got, cases[i].want);
    }
}

/* The steps the trainer runs (batch, forward, loss, backward, norm, clipping, update, reset):
 * after the first one, nothing is allocated. (./train also computes the metrics on log
 * steps; they take their scratch space from the tape's arena.) */
static void test_training_steps_allocate_nothing_after_the_first(void)
{
    GptConfig cfg = g_small;
    cfg.scale_mode = SCALE_LEARNED;
    cfg.attn_dropout = cfg.dropout = 0.1;
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .steps = 10};
    Rig g;
    rig_open(&g, &cfg, &oc, 4, 1.0);
    uint64_t after_first = 0;
    for (int step = 0; step < 6; step++) {
        StepBatch b = rig_batch(&g, step);
        StepResult res = train_step(&g.trainer, &b, step, NULL);
        CHECK(res.updated && isfinite(res.loss), "step %d failed", step);
        if (step == 0) after_first = mem_alloc_count();
    }
    CHECK(mem_alloc_count() == after_first, "%llu allocations in steps 2-6",
          (unsigned long long)(mem_alloc_count() - after_first));
    rig_close(&g);
}

/* The map of `make bench` (tensor/profile.h): a profiled step charges every op's forward and
 * backward to its kind, as many times as the model runs it (L layers: 6 L + 1 products with a
 * weight, q k^T and P v per layer, a softmax, a GELU and two residual adds per layer, 2 L + 1
 * LayerNorms, the two embeddings and their sum, 2 L + 1 dropouts on the residual stream and L on
 * the attention weights), nothing to "other ops"; its charges add up to no more than the step's
 * wall time; and the numbers are those of a step without the profile, to the bit. */
static void test_profiled_step_charges_each_op_to_its_kind_and_changes_no_bit(void)
{
    GptConfig cfg = g_small;
    cfg.attn_dropout = cfg.dropout = 0.1;
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 1e-3, .beta1 = 0.9, .beta2 = 0.99, .eps = 1e-8, .steps = 10};
    int L = cfg.layers;
    struct {
        ProfileKind kind;
        long forward, backward;
    } want[] = {
        {PROFILE_PRODUCT, 6 * L + 1, 6 * L + 1},  {PROFILE_GROUP_PRODUCT, 2 * L, 2 * L}, {PROFILE_SOFTMAX, L, L},
        {PROFILE_LAYERNORM, 2 * L + 1, 2 * L + 1}, {PROFILE_GELU, L, L},                  {PROFILE_ADD, 2 * L + 1, 2 * L + 1},
        {PROFILE_EMBEDDING, 2, 2},                 {PROFILE_CROSS_ENTROPY, 1, 1},         {PROFILE_DROPOUT, 3 * L + 1, 3 * L + 1},
        {PROFILE_COPY, 0, 0},                      {PROFILE_OTHER_OP, 0, 0},              {PROFILE_GRAD_CLEAR, 1, 0},
        {PROFILE_GRAD_NORM, 2, 0},                 {PROFILE_OPTIMIZER, 1, 0},             {PROFILE_REST, 2, 0},
    };
    CHECK(sizeof want / sizeof want[0] == PROFILE_KINDS, "the table above lists %d kinds of %d",
          (int)(sizeof want / sizeof want[0]), PROFILE_KINDS);
    real *params[2];
    size_t n = 0;
    for (int run = 0; run < 2; run++) {
        Rig g;
        rig_open(&g, &cfg, &oc, 4, 1.0);
        Profile prof;
        for (int step = 0; step < 3; step++) {
            StepBatch b = rig_batch(&g, step);
            profile_clear(&prof);
            g.tape.profile = run == 1 ? &prof : NULL;
            double t0 = omp_get_wtime();
            StepResult res = train_step(&g.trainer, &b, step, NULL);
            double wall = omp_get_wtime() - t0;
            CHECK(res.updated && isfinite(res.loss), "run %d, step %d failed", run, step);
            if (run == 0) continue;
            double sum = 0;
            for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
                const long *got = prof.calls[want[i].kind];
                CHECK(got[PROFILE_FORWARD] == want[i].forward && got[PROFILE_BACKWARD] == want[i].backward,
                      "step %d, %s: %ld forward and %ld backward charges, want %ld and %ld", step,
                      profile_kind_label(want[i].kind), got[PROFILE_FORWARD], got[PROFILE_BACKWARD], want[i].forward,
                      want[i].backward);
                for (int pass = 0; pass < PROFILE_PASSES; pass++) {
                    CHECK(prof.seconds[want[i].kind][pass] >= 0, "a negative time");
                    sum += prof.seconds[want[i].kind][pass];
                }
            }
            CHECK(sum > 0 && sum <= wall, "step %d: the charges add up to %g s, the step took %g s", step, sum, wall);
        }
        n = g.model.n_values;
        params[run] = mem_alloc(n * sizeof(real));
        memcpy(params[run], g.model.values, n * sizeof(real));
        rig_close(&g);
    }
    CHECK(memcmp(params[0], params[1], n * sizeof(real)) == 0, "the parameters after 3 steps differ with the profile (distance %g)",
          distance(params[0], params[1], n));
    mem_free(params[0]);
    mem_free(params[1]);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"step: the update is clipped to the global norm", test_step_clips_the_update_to_the_global_norm},
        {"step: the dropout key depends on seed and step, and the step uses it", test_dropout_key_depends_on_seed_and_step},
        {"step: hooks are called in order and can skip the update", test_step_hooks_are_called_and_can_skip},
        {"determinism: every gradient has the same bits with 1 and 2 threads", test_every_gradient_has_the_same_bits_for_1_and_2_threads},
        {"step: steps after the first allocate nothing", test_training_steps_allocate_nothing_after_the_first},
        {"determinism: changing the thread count between steps changes no bit", test_changing_the_thread_count_between_steps_changes_no_bit},
        {"profile: a profiled step charges each op to its kind and changes no bit", test_profiled_step_charges_each_op_to_its_kind_and_changes_no_bit},
        {"threads: the governor decides from the run queue delay and the idle cores", test_thread_governor_decides_from_delay_and_idle_cores},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
