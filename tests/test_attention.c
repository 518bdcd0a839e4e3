/* test_attention.c - the attention of one held-out example (run/attention_map.c), its heatmaps
 * (run/attention_svg.c) and the command a figure names (options_command_line). The figure's
 * numbers against --dump-state, from ./train, are tests/attention.sh. */
#include "test.h"

#include "../run/attention_map.h"
#include "../run/attention_stats.h"
#include "../model/train_step.h"
#include "../run/attention_svg.h"
#include "../run/logbook.h"
#include "../run/options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A copy-task dataset and a small model at initialisation. */
typedef struct Rig {
    Dataset d;
    Gpt m;
} Rig;

static void rig_open(Rig *g, ScaleMode scale)
{
    memset(g, 0, sizeof *g);
    DataConfig dc = {.task = name_find(task_name, "reverse"), .symbols = 6, .min_len = 3, .max_len = 6, .val_size = 24, .context = 64,
                     .seed = 2};
    char err[256];
    CHECK(dataset_open(&g->d, &dc, err, sizeof err), "dataset: %s", err);
    GptConfig gc = {.vocab = g->d.vocab.size, .context = dataset_max_input(&g->d), .layers = 2, .dmodel = 32,
                    .heads = 2, .dk = 16, .scale_mode = scale, .scale_init = SCALE_SQRT, .init_gain = 1};
    gpt_create(&g->m, &gc);
    gpt_init(&g->m, 7);
}

static void rig_close(Rig *g)
{
    gpt_free(&g->m);
    dataset_free(&g->d);
}

/* H = mean over rows of -sum p log p: rows (1), (1/2, 1/2), (1/3, 1/3, 1/3) give (0 + log 2 + log 3) / 3. */
static void test_mean_entropy_of_a_head(void)
{
    real p[9] = {1, 0, 0, 0.5f, 0.5f, 0, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f};
    double want = (log(2.0) + log(3.0)) / 3;
    CHECK(fabs(attention_mean_entropy(p, 3) - want) < 1e-6, "H = %g, want %g", attention_mean_entropy(p, 3), want);
    real onehot[4] = {1, 0, 0, 1}; /* 0 log 0 = 0 */
    CHECK(attention_mean_entropy(onehot, 2) == 0, "one-hot rows: H = %g", attention_mean_entropy(onehot, 2));
    p[4] = NAN;
    CHECK(isnan(attention_mean_entropy(p, 3)), "a NaN weight must make H NaN");
}

/* The example's input is BOS source SEP target; every row is a distribution over the keys up
 * to the query; and the weights are those of the same example in an evaluation batch. */
static void test_capture_is_the_example_in_a_batch(void)
{
    Rig g;
    rig_open(&g, SCALE_SQRT);
    int k = 5;
    AttentionMap am;
    attention_map_capture(&am, &g.m, &g.d, SPLIT_VAL, k, 0);
    Example ex = example_list_get(&g.d.val, k);
    int n = ex.src_len + ex.tgt_len + 2, L = g.m.cfg.layers, H = g.m.cfg.heads;
    CHECK(am.n == n && am.layers == L && am.heads == H, "n %d (want %d), %d x %d", am.n, n, am.layers, am.heads);
    CHECK(am.tokens[0] == TOK_BOS && am.tokens[ex.src_len + 1] == TOK_SEP && am.tokens[1] == ex.src[0] &&
              am.tokens[n - 1] == ex.tgt[ex.tgt_len - 1],
          "tokens are not BOS source SEP target");
    double worst_sum = 0, above = 0;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++) {
                double sum = 0;
                for (int j = 0; j < n; j++) {
                    real p = attention_map_weight(&am, l, h, i, j);
                    if (j <= i) sum += p;
                    else above += fabs((double)p);
                }
                worst_sum = test_max(worst_sum, fabs(sum - 1));
            }
    CHECK(worst_sum < 1e-5 && above == 0, "rows sum to 1 within %g; weight above the diagonal %g", worst_sum, above);
    CHECK(!strcmp(am.multiplier_name, "s") && fabs(am.multiplier[0] - 0.25) < 1e-12, "s = %g, want 1/sqrt(16)",
          am.multiplier[0]);

    /* the same example as row 2 of a batch of 4, in a forward pass of the full length (the same
     * bits in the -O3 build; a rounding's tolerance for other builds, whose matmul kernels may
     * treat the edge rows of a block otherwise) */
    Batch b;
    int T = dataset_max_input(&g.d);
    batch_alloc(&b, 4, T);
    dataset_eval_batch(&g.d, SPLIT_VAL, k - 2, &b);
    Arena arena;
    Tape tp;
    arena_init(&arena, 1 << 16);
    tape_init(&tp, &arena);
    tp.grad_enabled = tp.training = false;
    AttentionTrace trace[GPT_MAX_LAYERS];
    memset(trace, 0, sizeof trace);
    gpt_forward(&g.m, &tp, b.tokens, b.B, b.T, trace);
    double worst = 0;
    for (int l = 0; l < L; l++)
        for (int h = 0; h < H; h++)
            for (int i = 0; i < n; i++)
                for (int j = 0; j < n; j++) {
                    real in_batch = trace[l].weights->data[(((size_t)2 * H + h) * T + i) * T + j];
                    worst = test_max(worst, fabs((double)in_batch - attention_map_weight(&am, l, h, i, j)));
                }
    CHECK(worst < 1e-6, "alone vs in a batch: weights differ by %g", worst);
    double h00 = attention_mean_entropy(am.weights, n);
    CHECK(am.entropy[0] == h00 && h00 > 0, "entropy of head 0: %g, recomputed %g", am.entropy[0], h00);
    tape_free(&tp);
    arena_free(&arena);
    batch_free(&b);
    attention_map_free(&am);
    rig_close(&g);
}

/* A learned scale: each head's own multiplier, as the model reads it. */
static void test_capture_names_each_heads_multiplier(void)
{
    Rig g;
    rig_open(&g, SCALE_LEARNED);
    g.m.layer[1].scale->data[1] = 0.75f;
    AttentionMap am;
    attention_map_capture(&am, &g.m, &g.d, SPLIT_VAL, 0, 0);
    CHECK(fabs(am.multiplier[3] - 0.75) < 1e-7 && fabs(am.multiplier[0] - 0.25) < 1e-7, "multipliers %g %g",
          am.multiplier[0], am.multiplier[3]);
    attention_map_free(&am);
    rig_close(&g);
}

/* A capture in the middle of training steps (where --dump-state takes it) changes nothing. */
static void before_update_capture(void *ctx, int step, const StepResult *res, Tensor *logits, Tensor *loss)
{
    (void)res, (void)logits, (void)loss;
    Rig *g = ctx;
    AttentionMap am;
    attention_map_capture(&am, &g->m, &g->d, SPLIT_VAL, step % 3, step);
    attention_map_free(&am);
}

static void train_rig(Rig *g, int steps, bool capture, real *values_out)
{
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 3e-3, .min_lr = 3e-4, .warmup = 2, .steps = steps, .beta1 = 0.9,
                      .beta2 = 0.98, .eps = 1e-8};
    bool decay[GPT_MAX_PARAMS];
    gpt_decay_flags(&g->m, decay);
    Optimizer opt;
    optim_init(&opt, &oc, g->m.params, decay, g->m.n_params);
    Arena acts;
    Tape tp;
    arena_init(&acts, 1 << 16);
    tape_init(&tp, &acts);
    Batch b;
    batch_alloc(&b, 8, dataset_max_input(&g->d));
    Trainer t = {.model = &g->m, .opt = &opt, .tape = &tp, .seed = 3, .clip = 1};
    StepHooks hooks = {.ctx = g, .before_update = before_update_capture};
    for (int step = 0; step < steps; step++) {
        dataset_train_batch(&g->d, step, &b);
        StepBatch sb = {b.tokens, b.targets, b.loss_mask, b.B, b.T};
        train_step(&t, &sb, step, capture ? &hooks : NULL);
    }
    memcpy(values_out, g->m.values, g->m.n_values * sizeof(real));
    batch_free(&b);
    tape_free(&tp);
    arena_free(&acts);
    optim_free(&opt);
}

static void test_capture_during_training_changes_no_bit(void)
{
    Rig a, b;
    rig_open(&a, SCALE_SQRT);
    rig_open(&b, SCALE_SQRT);
    real *va = malloc(a.m.n_values * sizeof(real)), *vb = malloc(b.m.n_values * sizeof(real));
    train_rig(&a, 4, false, va);
    train_rig(&b, 4, true, vb);
    CHECK(memcmp(va, vb, a.m.n_values * sizeof(real)) == 0, "a capture inside the steps changed the training");
    free(va);
    free(vb);
    rig_close(&a);
    rig_close(&b);
}

/* ------------------------------------------------------------------ the logged |dL/dS| median */

static char *read_all(const char *path);

/* What the hook of a measured step sees: the log it measures into, the batch, and the median
 * and mean per layer of the recorded |dL/dS| rows, worked out here from the trace. */
typedef struct QgradCheck {
    Trainer *trainer;
    Logbook *log;
    const Batch *batch;
    double median[GPT_MAX_LAYERS], mean[GPT_MAX_LAYERS];
} QgradCheck;

static int compare_real(const void *a, const void *b)
{
    real x = *(const real *)a, y = *(const real *)b;
    return (x > y) - (x < y);
}

/* The rows the statistic is over: real tokens (batch->valid) with at least two visible keys
 * and a gradient that reached them (>= 0). Sorted; the median is the middle one, or the mean
 * of the middle two. */
static void before_update_qgrad(void *ctx, int step, const StepResult *res, Tensor *logits, Tensor *loss)
{
    (void)step, (void)res, (void)logits, (void)loss;
    QgradCheck *c = ctx;
    const Gpt *m = c->trainer->model;
    int B = c->batch->B, T = c->batch->T, H = m->cfg.heads;
    real *x = malloc((size_t)B * H * T * sizeof(real));
    for (int l = 0; l < m->cfg.layers; l++) {
        const real *g = c->trainer->trace[l].row_grad_norms;
        long n = 0;
        double sum = 0;
        for (int bh = 0; bh < B * H; bh++)
            for (int i = 1; i < T; i++) /* i = 0 sees one key */
                if (c->batch->valid[(bh / H) * T + i] && g[(size_t)bh * T + i] >= 0) sum += x[n++] = g[(size_t)bh * T + i];
        qsort(x, (size_t)n, sizeof *x, compare_real);
        c->median[l] = n % 2 ? x[n / 2] : ((double)x[n / 2 - 1] + x[n / 2]) / 2;
        c->mean[l] = sum / n;
    }
    free(x);
    FormatCounts none[GPT_MAX_LAYERS] = {{0}};
    logbook_measure(c->log, m, c->trainer->trace, none, c->trainer->tape->arena, c->batch->valid, true);
}

/* The per-query gradient statistic of the log, lN_qgrad_median, is the median of the rows'
 * |dL/dS|, not their mean: a measured training step of a real model (whose row gradients are
 * skewed: the mean is well above the median) is logged, and the CSV's column is read back. */
static void test_logged_qgrad_is_the_median(void)
{
    Rig g;
    rig_open(&g, SCALE_SQRT);
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 3e-3, .min_lr = 3e-4, .warmup = 2, .steps = 10, .beta1 = 0.9,
                      .beta2 = 0.98, .eps = 1e-8};
    bool decay[GPT_MAX_PARAMS];
    for (int i = 0; i < g.m.n_params; i++) decay[i] = gpt_param_decays(g.m.params[i]);
    Optimizer opt;
    optim_init(&opt, &oc, g.m.params, decay, g.m.n_params);
    Arena acts;
    Tape tp;
    arena_init(&acts, 1 << 16);
    tape_init(&tp, &acts);
    Batch b;
    batch_alloc(&b, 16, dataset_max_input(&g.d));
    dataset_train_batch(&g.d, 0, &b);
    Trainer t = {.model = &g.m, .opt = &opt, .tape = &tp, .seed = 3, .clip = 1, .measure = true};
    Logbook log;
    const char *path = test_path("qgrad.csv");
    CHECK(logbook_open(&log, path, &g.m.cfg, true, 0, "./train"), "logbook_open: %s", log.failed);
    QgradCheck c = {.trainer = &t, .log = &log, .batch = &b};
    StepHooks hooks = {.ctx = &c, .before_update = before_update_qgrad};
    StepBatch sb = {b.tokens, b.targets, b.loss_mask, b.B, b.T};
    StepResult res = train_step(&t, &sb, 0, &hooks);
    LogRow row = {.step = 1, .stop = 10, .loss = res.loss, .lr = res.lr, .grad_norm = res.grad_norm,
                  .val_loss = NAN, .val_acc = NAN};
    CHECK(logbook_row(&log, &row), "logbook_row: %s", log.failed);
    logbook_close(&log);
    /* the CSV's header (after its comment line, the command) and its one row, column by column */
    char *text = read_all(path), *rows[2] = {NULL, NULL};
    if (!CHECK(text != NULL, "cannot read %s", path)) return;
    rows[0] = text;
    while (rows[0][0] == '#' && strchr(rows[0], '\n')) rows[0] = strchr(rows[0], '\n') + 1; /* the command line */
    char *nl = strchr(rows[0], '\n');
    if (nl) *nl = 0, rows[1] = nl + 1;
    for (int l = 0; l < g.m.cfg.layers; l++) {
        char name[32];
        snprintf(name, sizeof name, "l%d_qgrad_median", l);
        int col = 0, want_col = -1;
        for (char *h = rows[0]; h; h = strchr(h, ','), h = h ? h + 1 : NULL, col++)
            if (!strncmp(h, name, strlen(name)) && (h[strlen(name)] == ',' || h[strlen(name)] == 0)) want_col = col;
        const char *v = rows[1];
        for (int k = 0; v && k < want_col; k++) v = strchr(v, ','), v = v ? v + 1 : NULL;
        double logged = want_col >= 0 && v ? strtod(v, NULL) : NAN;
        CHECK(fabs(c.mean[l] - c.median[l]) > 0.05 * c.median[l], "layer %d: mean %g and median %g too close to tell apart",
              l, c.mean[l], c.median[l]);
        CHECK(fabs(logged - c.median[l]) <= 1e-5 * c.median[l], "%s = %.9g: the median is %.9g (the mean %.9g)", name,
              logged, c.median[l], c.mean[l]);
    }
    free(text);
    batch_free(&b);
    tape_free(&tp);
    arena_free(&acts);
    optim_free(&opt);
    rig_close(&g);
}

/* ------------------------------------------------------------------ the figure */

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

static int count(const char *s, const char *what)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
    return n;
}

/* A map made by hand, 1 layer x 2 heads over 4 tokens, drawn twice side by side: each cell holds
 * its own weight (the float itself, from 9 digits), the hidden cells are one masked region per
 * panel and no cell, the words are escaped and long ones cut. */
static void test_figure_cells_hold_the_weights(void)
{
    Vocab v;
    vocab_init(&v);
    const char *amp = "a&b", *longword = "\xc3\xa9tonnamment-long-mot"; /* "étonnamment-long-mot": 20 characters */
    int id_amp = vocab_add(&v, amp, strlen(amp)), id_long = vocab_add(&v, longword, strlen(longword));
    int tokens[4] = {TOK_BOS, id_amp, TOK_SEP, id_long};
    real w[2 * 16];
    double mult[2] = {0.125, 0.125}, ent[2];
    for (int h = 0; h < 2; h++)
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) w[(h * 4 + i) * 4 + j] = j > i ? 0 : (real)(1.0 + h + 3 * j) / (real)(1 + i);
    for (int h = 0; h < 2; h++) ent[h] = attention_mean_entropy(w + h * 16, 4);
    AttentionMap am = {.layers = 1, .heads = 2, .n = 4, .tokens = tokens, .weights = w, .multiplier = mult,
                       .multiplier_name = "s", .entropy = ent, .split = SPLIT_VAL, .example = 0, .step = 9};
    AttentionFigure fig = {.n_maps = 2, .maps = {&am, &am}, .names = {"init", "end"},
                           .captions = {"at initialisation", "after <training> & more"}, .vocab = &v,
                           .title = "a \"title\"", .notes = {"./train --x=1", NULL, NULL, NULL}};
    const char *path = test_path("attention_test.svg");
    char err[512];
    CHECK(attention_svg_write(path, &fig, err, sizeof err), "write: %s", err);
    char *s = read_all(path);
    CHECK(s != NULL, "no file at %s", path);
    if (!s) return;
    CHECK(count(s, "<rect class=\"cell\"") == 2 * 2 * 10, "%d cells, want 2 grids x 2 heads x 10", count(s, "<rect class=\"cell\""));
    CHECK(count(s, "<path class=\"masked\"") == 4, "%d masked regions, want 4", count(s, "<path class=\"masked\""));
    int checked = 0, wrong = 0, h = -1;
    for (const char *p = s; *p; p++) {
        if (!strncmp(p, "<g class=\"panel\"", 16)) sscanf(strstr(p, "data-h=\""), "data-h=\"%d", &h);
        if (strncmp(p, "<rect class=\"cell\"", 18)) continue;
        int i, j;
        float val;
        const char *at = strstr(p, "data-i=");
        if (sscanf(at, "data-i=\"%d\" data-j=\"%d\" data-p=\"%f\"", &i, &j, &val) != 3) {
            wrong++;
            continue;
        }
        wrong += j > i || val != w[(h * 4 + i) * 4 + j];
        checked++;
    }
    CHECK(checked == 40 && wrong == 0, "%d cells read, %d wrong", checked, wrong);
    CHECK(strstr(s, ">a&amp;b<") && strstr(s, "after &lt;training&gt; &amp; more") && !strstr(s, "<training>"),
          "text is not escaped");
    CHECK(strstr(s, ">\xc3\xa9tonnamment-l~<") != NULL, "a long word is not cut to 13 characters and ~");
    CHECK(strstr(s, "data-map=\"init\"") && strstr(s, "data-map=\"end\"") && strstr(s, "data-step=\"9\""),
          "the grids are not named");
    CHECK(strstr(s, "s = 0.125, H = ") != NULL, "a panel's title lacks its multiplier");
    CHECK(strstr(s, "url(#scale)") && strstr(s, "hidden by the causal mask"), "the legend is missing");
    free(s);
    vocab_free(&v);
    CHECK(!attention_svg_write("/nonexistent-dir/x.svg", &fig, err, sizeof err) && strstr(err, "--attention-svg"),
          "a write into a missing folder must fail, naming the flag: %s", err);
}

/* A NaN weight (a run with --nan=continue) is drawn in a colour off the scale, with its legend
 * entry; a non-finite entropy or multiplier reads "NaN" in a title and "nan" in a data- attribute,
 * whatever its sign bit (printf would write "-nan"); a control character in a word (XML allows
 * none) becomes '?'. */
static void test_figure_marks_what_it_cannot_colour(void)
{
    Vocab v;
    vocab_init(&v);
    int bell = vocab_add(&v, "x\ay", 3);
    int tokens[2] = {TOK_BOS, bell};
    real w[8] = {1, 0, NAN, 0.5f, 1, 0, (real)copysign(NAN, -1.0), 0.5f};
    double mult[2] = {NAN, copysign(NAN, -1.0)}, ent[2] = {copysign(NAN, -1.0), INFINITY};
    AttentionMap am = {.layers = 1, .heads = 2, .n = 2, .tokens = tokens, .weights = w, .multiplier = mult,
                       .multiplier_name = NULL, .entropy = ent};
    AttentionMap scaled = am;
    scaled.multiplier_name = "s";
    AttentionFigure fig = {.n_maps = 2, .maps = {&am, &scaled}, .names = {"init", "end"}, .captions = {"init", "end"},
                           .vocab = &v, .title = "t"};
    const char *path = test_path("attention_nan.svg");
    char err[512];
    CHECK(attention_svg_write(path, &fig, err, sizeof err), "write: %s", err);
    char *s = read_all(path);
    if (!CHECK(s != NULL, "no file")) return;
    CHECK(count(s, "data-p=\"nan\"") == 4 && strstr(s, "not finite (NaN or Inf)"), "a NaN cell is not marked");
    CHECK(strstr(s, ">x?y<") && !strchr(s, '\a'), "a control character reached the SVG");
    CHECK(count(s, "not scaled, H = NaN (non-finite weights)") == 1 && count(s, "not scaled, H = Inf (non-finite weights)") == 1,
          "additive scores' titles");
    CHECK(count(s, "s = NaN, H = NaN (non-finite weights)") == 1 && count(s, "s = NaN, H = Inf (non-finite weights)") == 1,
          "a NaN multiplier's titles");
    CHECK(count(s, "data-entropy=\"nan\"") == 2 && count(s, "data-entropy=\"inf\"") == 2 && count(s, "data-multiplier=\"nan\"") == 4,
          "non-finite data- attributes");
    CHECK(!strstr(s, "-nan") && !strstr(s, "nan nats"), "a \"-nan\" or \"nan nats\" reached the SVG");
    free(s);
    vocab_free(&v);
}

/* The command of a figure: the options off their default, shortest numbers, quoted paths. */
static void test_command_line_of_a_run(void)
{
    Options o;
    char buf[4096], err[256];
    options_defaults(&o);
    options_command_line(&o, buf, sizeof buf);
    CHECK(!strcmp(buf, "./train"), "defaults: %s", buf);
    CHECK(options_set(&o, "lr", "1e-3", "t", err, sizeof err) && options_set(&o, "data", "my file's.tsv", "t", err, sizeof err) &&
              options_set(&o, "log", "x.csv", "t", err, sizeof err) && options_set(&o, "stop-at", "5", "t", err, sizeof err),
          "%s", err);
    options_command_line(&o, buf, sizeof buf);
    CHECK(!strcmp(buf, "./train --data='my file'\\''s.tsv' --lr=0.001 --stop-at=5"), "got %s", buf);
    char tiny[12];
    options_command_line(&o, tiny, sizeof tiny);
    CHECK(strlen(tiny) == sizeof tiny - 1, "a short buffer is filled, not overrun: \"%s\"", tiny);
    /* a resumed run's: the options given, even at their default (they replace the checkpoint's) */
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    options_defaults(&o);
    o.model.dropout = 0.1; /* the checkpoint's, not given: left to the checkpoint */
    set[options_index("lr")] = GIVEN_AS_FLAG;
    set[options_index("steps")] = GIVEN_IN_CONFIG;
    set[options_index("save")] = GIVEN_AS_FLAG; /* no option of the model */
    options_resume_command(&o, set, "my run.st", buf, sizeof buf);
    CHECK(!strcmp(buf, "./train --load='my run.st' --steps=600 --lr=0.003"), "resumed: %s", buf);
}

/* The console's time left, on a clock of our own: a run whose first step takes 5 s (the arena
 * grows, it is measured) and every later one 0.01 s. The first row cannot know ("-", NaN); from
 * the second on, the rate since the first row gives the truth exactly (before: the first step's
 * time was in the rate, and 600 steps of 0.01 s were said to need minutes). */
static void test_time_left_from_the_second_row(void)
{
    TimeLeft t = {0};
    int stop = 600;
    double first = 5, per_step = 0.01;
    CHECK(isnan(time_left(&t, 1, first, stop)), "the first row says a time left");
    for (int done = 50; done <= stop; done += 50) {
        double elapsed = first + (done - 1) * per_step, truth = (stop - done) * per_step;
        double said = time_left(&t, done, elapsed, stop);
        CHECK(fabs(said - truth) <= 1e-9, "step %d: %g s left said, %g s true", done, said, truth);
    }
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"logbook: the time left from the second row, exact on a steady clock", test_time_left_from_the_second_row},
        {"mean_entropy_of_a_head", test_mean_entropy_of_a_head},
        {"capture_is_the_example_in_a_batch", test_capture_is_the_example_in_a_batch},
        {"capture_names_each_heads_multiplier", test_capture_names_each_heads_multiplier},
        {"capture_during_training_changes_no_bit", test_capture_during_training_changes_no_bit},
        {"figure_cells_hold_the_weights", test_figure_cells_hold_the_weights},
        {"figure_marks_what_it_cannot_colour", test_figure_marks_what_it_cannot_colour},
        {"command_line_of_a_run", test_command_line_of_a_run},
        {"logged_qgrad_is_the_median", test_logged_qgrad_is_the_median},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
