/* train.c - ./train: reads the options, builds the data, the model and the optimizer, and
 * runs the training loop with its instrumentation, evaluations and checkpoints.
 *
 * One training step:
 *   batch = f(seed, step) -> forward (recorded on the tape) -> cross-entropy -> backward
 *   -> NaN checks -> gradient norm and clipping -> metrics (on log steps) -> AdamW update
 *   -> NaN check of the parameters -> tape reset (the activations' memory is reused).
 *
 * Exit status: 0 done, 2 bad input, 3 a non-finite value with --nan=stop.
 */
#define _POSIX_C_SOURCE 200809L /* access, sysconf */

#include "cli/checkpoint.h"
#include "cli/eval.h"
#include "cli/options.h"
#include "data/data.h"
#include "model/gpt.h"
#include "model/metrics.h"
#include "model/optim.h"
#include "tensor/rng.h"
#include "tensor/safetensors.h"

#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_USER = 2, EXIT_NONFINITE = 3 };
enum { STREAM_DROPOUT = 21 }; /* RNG stream of the dropout masks (see tensor/rng.h) */

_Static_assert(sizeof(int) == 4, "token ids are stored as 32-bit integers");

/* --inject, the faults the tests provoke on purpose:
 *   nan:STEP:PARAM        an Inf in PARAM's first value before step STEP's forward pass (lasting)
 *   nan:STEP:grad.PARAM   an Inf in PARAM's gradient after step STEP's backward pass (one step)
 *   crash-in-save:N       the N-th checkpoint write dies half-way (the process is killed)
 *   crash-after-step:N    the process is killed right after step N (and its saves) */
typedef enum InjectKind { INJECT_NONE, INJECT_NAN, INJECT_CRASH_IN_SAVE, INJECT_CRASH_AFTER_STEP } InjectKind;

typedef struct Injection {
    InjectKind kind;
    int n;              /* the step, or the save's number */
    Tensor *param;      /* INJECT_NAN */
    bool grad;          /* INJECT_NAN into the gradient */
} Injection;

/* Per-layer measurements of one logged step. */
typedef struct LayerMetrics {
    AttentionStats att;
    double gnorm_wq, gnorm_wk;
    double scale_ratio; /* learned scale: mean over heads of s * sqrt(dk) (1 = the 1/sqrt(dk) rule) */
} LayerMetrics;

typedef struct Run {
    Options o;
    Dataset data;
    Gpt model;
    Optimizer opt;
    bool decay[GPT_MAX_PARAMS];
    Arena acts;
    Tape tape;
    Batch batch;
    Evaluator eval;
    FILE *csv;
    int start, stop;           /* steps [start, stop) run here */
    double scale;              /* the fixed score multiplier, for the record */
    /* progress; `state` is what a checkpoint keeps so that a resumed run continues exactly */
    RunState state;
    double t_start, train_seconds;
    double last_loss, grad_norm;
    double logged_loss;        /* mean training loss of the last logged interval */
    LayerMetrics metrics[GPT_MAX_LAYERS];
    EvalResult last_eval;
    int last_eval_step;
    bool step_failed;          /* this step's update was not applied (--nan=continue) */
    Injection inject;          /* --inject: a fault for the tests */
    int saves;                 /* checkpoints written so far */
} Run;

static void die(int code, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    message_one_line(msg);
    fprintf(stderr, "error: %s\n", msg);
    exit(code);
}

/* ------------------------------------------------------------------ setup */

static ScaleMode parse_scale(const char *s, double *c)
{
    *c = 0;
    if (!strcmp(s, "sqrt")) return SCALE_SQRT;
    if (!strcmp(s, "dk")) return SCALE_DK;
    if (!strcmp(s, "learned")) return SCALE_LEARNED;
    *c = strtod(s, NULL); /* validated by options_set */
    return *c == 1 ? SCALE_ONE : SCALE_CONST;
}

/* Fails early when a file we will write later cannot be created there. */
static void check_writable_dir(const char *flag, const char *path)
{
    if (!path[0]) return;
    char dir[OPT_TEXT_LEN];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = 0;
    else snprintf(dir, sizeof dir, ".");
    if (access(dir, W_OK) != 0) die(EXIT_USER, "--%s=%s: cannot write to the directory %s", flag, path, dir);
}

/* Bytes a run needs, roughly: parameters with gradients and Adam moments, plus one step's
 * activations and their gradients (what the arena holds at its peak), plus evaluation. */
static double run_bytes(const GptConfig *c, int B, int T)
{
    double C = c->dmodel, HD = (double)c->heads * c->dk, L = c->layers, V = c->vocab, H = c->heads;
    double per_layer = 4 * C + 3 * (C * HD + HD) + HD * C + C + 8 * C * C + 5 * C + (c->scale_mode == SCALE_LEARNED ? H : 0);
    double params = V * C + (double)c->context * C + L * per_layer + 2 * C + C * V;
    /* per layer: ~16 [B,T,C] tensors, ~8 [B,T,HD], ~5 [B,H,T,T], ~3 [B,T,4C]; logits ~3 [B,T,V] */
    double acts = (double)B * T * (L * (16 * C + 8 * HD + 5 * H * T + 12 * C) + 3 * V);
    return sizeof(real) * (4 * params + 2 * acts);
}

static void check_memory(const GptConfig *c, int B, int T)
{
    double need = run_bytes(c, B, T);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double have = pages > 0 && page > 0 ? (double)pages * page : 64.0 * (1ull << 30);
    if (need > 0.9 * have)
        die(EXIT_USER, "this run needs about %.1f GiB (parameters, gradients, Adam state, activations) but the machine "
                       "has %.1f GiB: reduce --batch, --dmodel, --layers, --heads or --dk", need / (1ull << 30),
            have / (1ull << 30));
}

/* The fault --inject asks for; one that could never happen in this run is refused. */
static Injection parse_injection(const char *text, const Gpt *m, const Options *o, int start, int stop)
{
    Injection in = {INJECT_NONE, 0, NULL, false};
    char *end;
    const char *arg = strchr(text, ':');
    long n = arg ? strtol(arg + 1, &end, 10) : -1;
    bool number = arg && arg[1] >= '0' && arg[1] <= '9' && n >= 1 && n <= 100000000;
    if (number && !strncmp(text, "crash-in-save:", 14) && !*end) in.kind = INJECT_CRASH_IN_SAVE;
    else if (number && !strncmp(text, "crash-after-step:", 17) && !*end) in.kind = INJECT_CRASH_AFTER_STEP;
    else if (number && !strncmp(text, "nan:", 4) && *end == ':') {
        const char *name = end + 1;
        in.kind = INJECT_NAN;
        in.grad = !strncmp(name, "grad.", 5);
        in.param = gpt_param(m, in.grad ? name + 5 : name);
        if (!in.param) die(EXIT_USER, "--inject=%s: no parameter named %s", text, in.grad ? name + 5 : name);
    } else {
        die(EXIT_USER, "--inject=%s: expected nan:STEP:PARAM, nan:STEP:grad.PARAM, crash-in-save:N or crash-after-step:N", text);
    }
    in.n = (int)n;
    if (in.kind == INJECT_CRASH_IN_SAVE) {
        int saves = o->save[0] ? 1 + (o->save_every > 0 ? (stop - 1) / o->save_every - start / o->save_every : 0) : 0;
        if (in.n > saves) die(EXIT_USER, "--inject=%s: this run writes %d checkpoint%s", text, saves, saves == 1 ? "" : "s");
    } else if (in.n <= start || in.n > stop) {
        die(EXIT_USER, "--inject=%s: this run does steps %d to %d", text, start + 1, stop);
    }
    return in;
}

static void setup(Run *r, int argc, char **argv)
{
    char err[2048];
    Options *o = &r->o;
    bool set[128] = {false}, help;
    options_defaults(o);
    if (!options_parse_args(o, argc, argv, set, &help, err, sizeof err)) die(EXIT_USER, "%s", err);
    if (help) {
        options_print_help(argv[0]);
        exit(0);
    }
    /* a checkpoint is opened once, and its checksum verified, before its config is used */
    StFile ckpt;
    if (o->load[0] && !(checkpoint_open(&ckpt, o->load, err, sizeof err) &&
                        checkpoint_apply_config_from(&ckpt, o->load, o, set, err, sizeof err)))
        die(EXIT_USER, "%s", err);
    if (!options_validate(o, err, sizeof err)) die(EXIT_USER, "%s", err);
    check_writable_dir("save", o->save);
    check_writable_dir("dump-state", o->dump_state);
    if (o->threads > 0) omp_set_num_threads(o->threads);

    /* data: the task decides the vocabulary and how long sequences get */
    DataConfig dc = {0};
    dc.task = o->data[0] ? TASK_TSV
              : !strcmp(o->task, "reverse") ? TASK_REVERSE
              : !strcmp(o->task, "translate") ? TASK_TRANSLATE
                                              : TASK_COPY;
    dc.path = o->data;
    dc.symbols = o->symbols;
    dc.min_len = o->min_len;
    dc.max_len = o->max_len;
    dc.val_size = o->val_size;
    dc.context = o->context ? o->context : 16384;
    dc.seed = o->seed;
    if (!dataset_open(&r->data, &dc, err, sizeof err)) die(EXIT_USER, "%s", err);
    if (dc.task == TASK_TSV) snprintf(o->task, sizeof o->task, "tsv");
    if (o->context == 0) o->context = dataset_max_input(&r->data);
    if (o->dk == 0) o->dk = o->dmodel / o->heads;

    GptConfig gc = {0};
    gc.vocab = r->data.vocab.size;
    gc.context = o->context;
    gc.layers = o->layers;
    gc.dmodel = o->dmodel;
    gc.heads = o->heads;
    gc.dk = o->dk;
    gc.scale_mode = parse_scale(o->scale, &gc.scale_const);
    gc.attn_dropout = o->attn_dropout;
    gc.dropout = o->dropout;
    gc.init_gain = o->init_gain;
    r->scale = gc.scale_mode == SCALE_LEARNED ? NAN : attention_scale(gc.scale_mode, gc.scale_const, gc.dk);
    int T = dataset_max_input(&r->data) < o->context ? dataset_max_input(&r->data) : o->context;
    check_memory(&gc, o->batch, T);
    gpt_create(&r->model, &gc);
    gpt_init(&r->model, o->seed);

    OptimConfig oc = {0};
    oc.kind = !strcmp(o->optim, "sgd") ? OPTIM_SGD : OPTIM_ADAMW;
    oc.lr = o->lr;
    oc.min_lr = o->min_lr;
    oc.warmup = o->warmup;
    oc.steps = o->steps;
    oc.beta1 = o->beta1;
    oc.beta2 = o->beta2;
    oc.eps = o->eps;
    oc.weight_decay = o->weight_decay;
    for (int i = 0; i < r->model.n_params; i++) r->decay[i] = gpt_param_decays(r->model.params[i]);
    optim_init(&r->opt, &oc, r->model.params, r->decay, r->model.n_params);

    r->state = (RunState){0, -1, 0, 0, 0};
    if (o->load[0]) {
        if (!checkpoint_load_from(&ckpt, o->load, &r->model, &r->opt, &r->state, &r->data.vocab, err, sizeof err))
            die(EXIT_USER, "%s", err);
        st_close(&ckpt);
    }
    r->start = r->state.next_step;
    r->stop = o->stop_at ? o->stop_at : o->steps;
    if (r->start > r->stop) die(EXIT_USER, "--load=%s is at step %d, past the end of this run (%d)", o->load, r->start, r->stop);

    if (o->inject[0]) r->inject = parse_injection(o->inject, &r->model, o, r->start, r->stop);

    batch_alloc(&r->batch, o->batch, T);
    evaluator_init(&r->eval, o->batch, T);
    arena_init(&r->acts, 1 << 20); /* grows to what a step needs during the first step */
    tape_init(&r->tape, &r->acts);
    r->last_eval_step = -1;
    r->logged_loss = NAN;
}

/* ------------------------------------------------------------------ NaN forensics */

static void describe_param(const Gpt *m, const real *buf, const char *what, char *out, size_t len)
{
    out[0] = 0;
    for (int i = 0; i < m->n_params; i++) {
        const Tensor *p = m->params[i];
        const real *x = buf == m->values ? p->data : p->grad;
        size_t k = find_nonfinite(x, p->size);
        if (k != SIZE_MAX) {
            snprintf(out, len, "; %s %s holds %g at element %zu", what, p->name, (double)x[k], k);
            return;
        }
    }
}

/* A non-finite value: stop with exit 3, or (--nan=continue) count it; the caller then leaves
 * the parameters as they were (the update is skipped). */
static void report_nonfinite(Run *r, int step, const char *msg)
{
    r->state.nan_count++;
    r->step_failed = true;
    if (!strcmp(r->o.nan, "stop")) {
        if (r->csv) fclose(r->csv);
        fprintf(stderr, "error: step %d: %s\n", step + 1, msg);
        fprintf(stderr, "(stopped: --nan=stop; --nan=continue counts these and skips the update)\n");
        exit(EXIT_NONFINITE);
    }
    if (!r->o.quiet && r->state.nan_count <= 10)
        fprintf(stderr, "warning: step %d: %s (update skipped)\n", step + 1, msg);
}

static void check_forward(Run *r, int step, const Tensor *loss)
{
    if (isfinite(loss->data[0])) return;
    char msg[1024], where[512] = "", cause[256];
    size_t k;
    int e = tape_first_nonfinite_output(&r->tape, &k);
    if (e >= 0) {
        const TapeEntry *te = &r->tape.entries[e];
        snprintf(where, sizeof where, "; first non-finite value: %g in %s (op %s, element %zu)",
                 (double)te->out->data[k], te->out->name, te->op, k);
    }
    describe_param(&r->model, r->model.values, "parameter", cause, sizeof cause);
    snprintf(msg, sizeof msg, "loss is %g%s%s", (double)loss->data[0], where, cause);
    report_nonfinite(r, step, msg);
}

static void check_gradients(Run *r, int step, Tensor *loss)
{
    Gpt *m = &r->model;
    if (find_nonfinite(m->grads, m->n_values) == SIZE_MAX) return;
    char msg[1024], where[512] = "", which[256];
    describe_param(m, m->grads, "gradient of", which, sizeof which);
    /* The backward pass gave its intermediate gradients back as it went; to find the op that
     * made the first non-finite one, run it again op by op (same inputs: the same numbers). */
    Tape *tp = &r->tape;
    memset(m->grads, 0, m->n_values * sizeof(real));
    TapeFinding f;
    if (tape_backward_find_nonfinite(tp, loss, &f) >= 0) {
        const TapeEntry *te = &tp->entries[f.entry];
        const Tensor *in = te->in[f.input];
        snprintf(where, sizeof where, "; first made by the backward of op %s (output %s): %g in the gradient of %s, element %zu",
                 te->op, te->out->name, (double)in->grad[f.element], in->name, f.element);
    }
    /* the replay recomputed the gradients: put back the injected fault, as the step saw it */
    const Injection *in = &r->inject;
    if (in->kind == INJECT_NAN && in->grad && step + 1 == in->n) in->param->grad[0] = (real)INFINITY;
    snprintf(msg, sizeof msg, "non-finite gradient%s%s", which, where);
    report_nonfinite(r, step, msg);
}

/* optim_step refused an update that would have made parameter `bad` (or its Adam moments)
 * non-finite, and changed nothing. */
static void report_bad_update(Run *r, int step, int bad)
{
    char msg[512];
    snprintf(msg, sizeof msg, "the update would make %s (or its Adam moments) non-finite (gradient norm %g, lr %g)",
             r->model.params[bad]->name, r->grad_norm, optim_lr(&r->opt.cfg, step));
    report_nonfinite(r, step, msg);
}

/* ------------------------------------------------------------------ one step */

/* The per-layer metrics of this step (has_grads: the backward pass ran). */
static void measure(Run *r, bool has_grads)
{
    Gpt *m = &r->model;
    for (int l = 0; l < m->cfg.layers; l++) {
        GptLayer *ly = &m->layer[l];
        LayerMetrics *lm = &r->metrics[l];
        lm->att = attention_stats(r->tape.arena, ly->scores, ly->score_scale, ly->probs, r->batch.valid);
        lm->gnorm_wq = has_grads ? l2_norm(ly->wq->grad, ly->wq->size) : NAN;
        lm->gnorm_wk = has_grads ? l2_norm(ly->wk->grad, ly->wk->size) : NAN;
        lm->scale_ratio = NAN;
        if (ly->scale) {
            double s = 0;
            for (int h = 0; h < m->cfg.heads; h++) s += ly->scale->data[h];
            lm->scale_ratio = s / m->cfg.heads * sqrt((double)m->cfg.dk);
        }
    }
}

static void train_step(Run *r, int step, bool log_step)
{
    Gpt *m = &r->model;
    Tape *tp = &r->tape;
    char err[1024];
    r->step_failed = false;
    r->grad_norm = NAN;
    const Injection *in = &r->inject;
    bool inject = in->kind == INJECT_NAN && step + 1 == in->n;
    if (inject && !in->grad) in->param->data[0] = (real)INFINITY;

    dataset_train_batch(&r->data, step, &r->batch);
    memset(m->grads, 0, m->n_values * sizeof(real));
    tp->training = true;
    tp->grad_enabled = true;
    tp->dropout_key = rng_key(rng_key(r->o.seed, STREAM_DROPOUT), (uint64_t)step);

    Tensor *logits = gpt_forward(m, tp, r->batch.tokens, r->batch.B, r->batch.T);
    Tensor *loss = op_cross_entropy(tp, logits, r->batch.targets, r->batch.loss_mask);
    r->last_loss = loss->data[0];
    check_forward(r, step, loss);
    bool backward = !r->step_failed;
    if (backward) {
        tape_backward(tp, loss);
        if (inject && in->grad) in->param->grad[0] = (real)INFINITY;
        check_gradients(r, step, loss);
    }
    if (step == r->start && r->o.dump_state[0] &&
        !dump_state_write(r->o.dump_state, m, &r->batch, logits, loss, r->scale, &r->o, err, sizeof err))
        die(EXIT_USER, "%s", err);
    if (backward) r->grad_norm = optim_grad_norm(&r->opt); /* before clipping: what the log reports */
    if (log_step) measure(r, backward);
    if (!r->step_failed) {
        if (r->o.clip > 0 && r->grad_norm > r->o.clip) optim_scale_grads(&r->opt, r->o.clip / r->grad_norm);
        int bad;
        if (!optim_step(&r->opt, step, optim_lr(&r->opt.cfg, step), &bad)) report_bad_update(r, step, bad);
    }
    tape_reset(tp);
}

/* ------------------------------------------------------------------ logging */

static void csv_header(Run *r)
{
    if (!r->o.log[0]) return;
    r->csv = fopen(r->o.log, "w");
    if (!r->csv) die(EXIT_USER, "--log=%s: cannot create the file", r->o.log);
    fprintf(r->csv, "step,loss,lr,grad_norm,tokens_per_s,time_s");
    for (int l = 0; l < r->model.cfg.layers; l++)
        fprintf(r->csv, ",l%d_score_mean,l%d_score_std,l%d_entropy,l%d_entropy_norm,l%d_max_weight,l%d_gnorm_wq,l%d_gnorm_wk",
                l, l, l, l, l, l, l);
    if (r->model.cfg.scale_mode == SCALE_LEARNED)
        for (int l = 0; l < r->model.cfg.layers; l++) fprintf(r->csv, ",l%d_scale_x_sqrt_dk", l);
    fprintf(r->csv, ",val_loss,val_acc,nan_count\n");
    fflush(r->csv);
}

static void log_row(Run *r, int done, bool evaluated)
{
    double now = omp_get_wtime(), elapsed = now - r->t_start;
    RunState *st = &r->state;
    double mean_loss = st->interval_steps ? st->interval_loss / st->interval_steps : NAN;
    double tokens = (double)st->interval_steps * r->batch.B * r->batch.T;
    double tok_s = r->train_seconds > 0 ? tokens / r->train_seconds : 0;
    double lr = optim_lr(&r->opt.cfg, done - 1);
    int layers = r->model.cfg.layers;
    if (st->steps_to_threshold < 0 && mean_loss <= r->o.loss_threshold) st->steps_to_threshold = done;
    r->logged_loss = mean_loss;
    if (r->csv) {
        fprintf(r->csv, "%d,%.9g,%.6g,%.6g,%.6g,%.3f", done, mean_loss, lr, r->grad_norm, tok_s, elapsed);
        for (int l = 0; l < layers; l++) {
            const LayerMetrics *lm = &r->metrics[l];
            fprintf(r->csv, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", lm->att.score_mean, lm->att.score_std, lm->att.entropy,
                    lm->att.entropy_norm, lm->att.max_weight, lm->gnorm_wq, lm->gnorm_wk);
        }
        if (r->model.cfg.scale_mode == SCALE_LEARNED)
            for (int l = 0; l < layers; l++) fprintf(r->csv, ",%.6g", r->metrics[l].scale_ratio);
        if (evaluated) fprintf(r->csv, ",%.6g,%.6g,%ld\n", r->last_eval.loss, r->last_eval.accuracy, st->nan_count);
        else fprintf(r->csv, ",,,%ld\n", st->nan_count);
        fflush(r->csv);
    }
    if (!r->o.quiet) {
        double per_step = elapsed / (done - r->start > 0 ? done - r->start : 1);
        char acc[32] = "   -  ";
        if (r->last_eval_step >= 0) snprintf(acc, sizeof acc, "%5.1f%%", 100 * r->last_eval.accuracy);
        printf("step %5d/%d  loss %.4f  acc %s  lr %.2e  |g| %7.3f  %6.1fk tok/s  %4.0fs left  std",
               done, r->stop, mean_loss, acc, lr, r->grad_norm, tok_s / 1000, per_step * (r->stop - done));
        for (int l = 0; l < layers && l < 4; l++) printf(" %.2f", r->metrics[l].att.score_std);
        printf("  H/logn");
        for (int l = 0; l < layers && l < 4; l++) printf(" %.2f", r->metrics[l].att.entropy_norm);
        printf("\n");
        fflush(stdout);
    }
    st->interval_loss = 0;
    st->interval_steps = 0;
    r->train_seconds = 0;
}

static void save(Run *r, int next_step)
{
    char err[1024];
    r->state.next_step = next_step;
    r->saves++;
    if (r->inject.kind == INJECT_CRASH_IN_SAVE && r->saves == r->inject.n) st_crash_during_next_write(4096);
    if (!checkpoint_save(r->o.save, &r->model, &r->opt, &r->state, &r->o, &r->data.vocab, err, sizeof err))
        die(EXIT_USER, "%s", err);
}

/* ------------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    static Run run;
    Run *r = &run;
    setup(r, argc, argv);
    csv_header(r);
    const Options *o = &r->o;
    const GptConfig *c = &r->model.cfg;
    if (!o->quiet) {
        char train_n[32] = "generated per step";
        if (r->data.train.n) snprintf(train_n, sizeof train_n, "%d", r->data.train.n);
        printf("task %s: training examples %s, %d held out; %d positions, vocabulary %d\n", o->task, train_n,
               r->data.val.n, r->batch.T, c->vocab);
        printf("model: %d layers, dmodel %d, %d heads of dk %d, %zu parameters; scores scaled by ", c->layers,
               c->dmodel, c->heads, c->dk, r->model.n_values);
        if (c->scale_mode == SCALE_LEARNED) printf("a learned s per head (initially 1/sqrt(dk) = %.4g)\n", 1 / sqrt((double)c->dk));
        else printf("s = %.4g (--scale=%s)\n", r->scale, o->scale);
    }

    r->t_start = omp_get_wtime();
    for (int step = r->start; step < r->stop; step++) {
        int done = step + 1;
        /* --stop-at pauses a run: rows and evaluations fall where an uninterrupted run has them,
         * so that a run resumed from the pause continues it exactly */
        bool evaluate_now = (o->eval_every > 0 && done % o->eval_every == 0) || done == o->steps;
        /* the first step is logged: its metrics describe the model at initialisation */
        bool log_now = done == 1 || done % o->log_every == 0 || evaluate_now;
        double t = omp_get_wtime();
        train_step(r, step, log_now);
        r->train_seconds += omp_get_wtime() - t;
        if (isfinite(r->last_loss)) {
            r->state.interval_loss += r->last_loss;
            r->state.interval_steps++;
        }
        if (evaluate_now) {
            r->last_eval = evaluate(&r->eval, &r->model, &r->tape, &r->data, o->eval_examples);
            r->last_eval_step = done;
        }
        if (log_now) log_row(r, done, evaluate_now);
        if (o->save[0] && o->save_every > 0 && done % o->save_every == 0 && done != r->stop) save(r, done);
        if (r->inject.kind == INJECT_CRASH_AFTER_STEP && done == r->inject.n) raise(SIGKILL);
    }
    if (r->last_eval_step != r->stop) { /* nothing ran (a finished checkpoint): evaluate it */
        r->last_eval = evaluate(&r->eval, &r->model, &r->tape, &r->data, o->eval_examples);
        r->last_eval_step = r->stop;
    }
    if (o->save[0]) save(r, r->stop);
    if (!o->quiet && o->examples > 0) {
        printf("decoded validation examples:\n");
        print_examples(&r->eval, &r->model, &r->tape, &r->data, o->examples, stdout);
    }
    printf("summary: steps=%d final_loss=%.6g val_loss=%.6g val_acc=%.4f steps_to_threshold=%d nan_count=%ld time_s=%.1f\n",
           r->stop, r->logged_loss, r->last_eval.loss, r->last_eval.accuracy, r->state.steps_to_threshold,
           r->state.nan_count, omp_get_wtime() - r->t_start);
    if (r->csv) fclose(r->csv);
    evaluator_free(&r->eval);
    batch_free(&r->batch);
    tape_free(&r->tape);
    arena_free(&r->acts);
    optim_free(&r->opt);
    gpt_free(&r->model);
    dataset_free(&r->data);
    return 0;
}
