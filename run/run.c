/* run.c - building a run from its options (see run.h), and saving it. */
#define _POSIX_C_SOURCE 200809L /* access, sysconf */

#include "run.h"

#include "exit.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(int) == 4, "token ids are stored as 32-bit integers");

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

/* How many checkpoints a run of steps [start, stop) writes. */
static int saves_planned(const Options *o, int start, int stop)
{
    if (!o->save[0]) return 0;
    return 1 + (o->save_every > 0 ? (stop - 1) / o->save_every - start / o->save_every : 0);
}

void run_setup(Run *r, int argc, char **argv)
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
    DataConfig dc = data_config_from_options(o);
    if (!dataset_open(&r->data, &dc, err, sizeof err)) die(EXIT_USER, "%s", err);
    o->task = dc.task;
    if (o->context == 0) o->context = dataset_max_input(&r->data);
    if (o->dk == 0) o->dk = o->dmodel / o->heads;

    /* the model */
    GptConfig gc = gpt_config_from_options(o, r->data.vocab.size);
    r->scale = gc.scale_mode == SCALE_LEARNED ? NAN : attention_scale(gc.scale_mode, gc.scale_const, gc.dk);
    int T = dataset_max_input(&r->data) < o->context ? dataset_max_input(&r->data) : o->context;
    check_memory(&gc, o->batch, T);
    gpt_create(&r->model, &gc);
    gpt_init(&r->model, o->seed);

    /* the optimizer, and the state of a checkpoint */
    OptimConfig oc = optim_config_from_options(o);
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
    if (o->inject[0] &&
        !inject_parse(&r->inject, o->inject, &r->model, r->start, r->stop, saves_planned(o, r->start, r->stop), err, sizeof err))
        die(EXIT_USER, "%s", err);

    /* the step and what is around it */
    batch_alloc(&r->batch, o->batch, T);
    evaluator_init(&r->eval, o->batch, T);
    arena_init(&r->acts, 1 << 20); /* grows to what a step needs during the first step */
    tape_init(&r->tape, &r->acts);
    r->trainer = (Trainer){.model = &r->model, .opt = &r->opt, .tape = &r->tape, .seed = o->seed, .clip = o->clip};
    r->forensics = (Forensics){.mode = (NanMode)o->nan, .quiet = o->quiet, .nan_count = &r->state.nan_count};
    if (!logbook_open(&r->log, o->log, &gc, o->quiet)) die(EXIT_USER, "--log=%s: cannot create the file", o->log);
}

void run_save(Run *r, int next_step)
{
    char err[1024];
    r->state.next_step = next_step;
    inject_before_save(&r->inject, ++r->saves);
    if (!checkpoint_save(r->o.save, &r->model, &r->opt, &r->state, &r->o, &r->data.vocab, err, sizeof err))
        die(EXIT_USER, "%s", err);
}

void run_free(Run *r)
{
    logbook_close(&r->log);
    evaluator_free(&r->eval);
    batch_free(&r->batch);
    tape_free(&r->tape);
    arena_free(&r->acts);
    optim_free(&r->opt);
    gpt_free(&r->model);
    dataset_free(&r->data);
}
