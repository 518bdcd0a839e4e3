/* run.c - building a run from its options (see run.h), and saving it. */
#define _POSIX_C_SOURCE 200809L /* access, sysconf */

#include "run.h"

#include "attention_svg.h"
#include "../model/attn_spec.h"
#include "exit.h"
#include "interrupt.h"
#include "paths.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(int) == 4, "token ids are stored as 32-bit integers");

static void capture_init(Run *r);
static void model_command(const Run *r, char *buf, size_t len);

/* Every file the run reads or writes, checked before anything is written (see paths.h); then
 * the leftovers of killed saves to the same targets are removed. */
static void check_paths(Options *o, int argc, char **argv)
{
    const char *config = "";
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--config=", 9)) config = argv[i] + 9;
    PathUse uses[] = {
        {"config", config, PATH_INPUT},   {"data", o->data.path, PATH_INPUT},  {"load", o->run.load, PATH_INPUT},
        {"log", o->run.log, PATH_OUTPUT},     {"save", o->run.save, PATH_OUTPUT}, {"dump-state", o->run.dump_state, PATH_OUTPUT},
        {"tape-dot", o->run.tape_dot, PATH_OUTPUT},
        {"attention-svg", o->run.attention_svg, PATH_OUTPUT},
    };
    /* a checkpoint may be replaced by its own continuation: the write is atomic */
    static const char *const may_replace[][2] = {{"save", "load"}};
    char err[2048];
    if (!paths_check(uses, (int)(sizeof uses / sizeof uses[0]), may_replace, 1, err, sizeof err)) die(EXIT_USER, "%s", err);
    paths_follow_link(o->run.save, sizeof o->run.save);
    paths_follow_link(o->run.dump_state, sizeof o->run.dump_state);
    paths_follow_link(o->run.tape_dot, sizeof o->run.tape_dot);
    paths_follow_link(o->run.attention_svg, sizeof o->run.attention_svg);
    paths_remove_stale_temporaries("save", o->run.save);
    paths_remove_stale_temporaries("dump-state", o->run.dump_state);
    paths_remove_stale_temporaries("tape-dot", o->run.tape_dot);
    paths_remove_stale_temporaries("attention-svg", o->run.attention_svg);
}

/* The memory one layer of the attention variant needs beyond the common (its row's
 * extra_bytes; 0 for most), with why into `why`. */
static double variant_bytes(const GptConfig *c, int B, int T, char *why, size_t len)
{
    const AttnSpec *a = attn_spec(c->attn);
    why[0] = 0;
    return a->extra_bytes ? a->extra_bytes(c, B, T, why, len) : 0;
}

/* Bytes a run needs, roughly: parameters with gradients and optimizer state, plus one step's
 * activations and their gradients (what the arena holds at its peak), plus evaluation. */
static double run_bytes(const GptConfig *c, int B, int T, double variant)
{
    double C = c->dmodel, HD = (double)c->heads * c->dk, L = c->layers, V = c->vocab, H = c->heads;
    double per_layer = 4 * C + 3 * (C * HD + HD) + HD * C + C + 8 * C * C + 5 * C + 4 * c->dk + 2 * HD + H;
    double params = V * C + (double)c->context * C + L * per_layer + 2 * C + C * V;
    /* per layer: ~16 [B,T,C] tensors, ~8 [B,T,HD], ~5 [B,H,T,T], ~3 [B,T,4C]; logits ~3 [B,T,V];
     * a reduced precision keeps a rounded copy of most attention tensors too */
    double per_token = 16 * C + 8 * HD + 5 * H * T + 12 * C;
    if (c->precision != FORMAT_FP32) per_token += 6 * HD + 4 * H * T;
    double acts = (double)B * T * (L * per_token + 3 * V);
    /* activations and their gradients (2 acts), then the variant's own (their gradients included) */
    return sizeof(real) * (5 * params + 2 * acts) + L * variant;
}

static void check_memory(const GptConfig *c, int B, int T)
{
    char why[512];
    double variant = variant_bytes(c, B, T, why, sizeof why), need = run_bytes(c, B, T, variant);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double have = pages > 0 && page > 0 ? (double)pages * page : 64.0 * (1ull << 30);
    const AttnSpec *a = attn_spec(c->attn);
    if (need > 0.9 * have && a->extra_bytes)
        die(EXIT_USER, "--attn=%s needs about %.1f GiB: %s, and the machine has %.1f GiB: %s", a->name,
            need / (1ull << 30), why, have / (1ull << 30), a->remedy);
    if (need > 0.9 * have)
        die(EXIT_USER, "this run needs about %.1f GiB (parameters, gradients, optimizer state, activations) but the machine "
                       "has %.1f GiB: reduce --batch, --dmodel, --layers, --heads or --dk", need / (1ull << 30),
            have / (1ull << 30));
}

/* How many checkpoints a run of steps [start, stop) writes. */
static int saves_planned(const Options *o, int start, int stop)
{
    if (!o->run.save[0]) return 0;
    return 1 + (o->run.save_every > 0 ? (stop - 1) / o->run.save_every - start / o->run.save_every : 0);
}

/* A resumed run may change its optimizer; the new one's state is not in the checkpoint, so it
 * starts at zero (checkpoint_load_from), which deserves a word. */
static void note_optimizer_change(int stored, const Options *o, const OptGiven *set)
{
    if (o->run.decode || !set[options_index("optim")] || stored == o->optim.kind) return;
    fprintf(stderr, "note: --optim=%s: %s was trained with --optim=%s, whose state is not carried over: %s's starts at zero\n",
            optim_name(o->optim.kind, NULL), o->run.load, optim_name(stored, NULL), optim_name(o->optim.kind, NULL));
}

/* Before a resumed run compares the flags given with its checkpoint's settings: whether they
 * would do anything on top of them (--scale-init given to resume a cosine run should say that
 * it needs a learned scale, not that the checkpoint was made with another one). */
static bool given_flags_matter(StFile *ckpt, const Options *o, const OptGiven *set, int *stored_optim, char *err,
                               size_t err_len)
{
    static Options merged;
    OptGiven none[OPTIONS_MAX] = {GIVEN_NOT};
    options_defaults(&merged);
    if (!checkpoint_apply_config_from(ckpt, o->run.load, &merged, none, err, err_len)) return false;
    *stored_optim = merged.optim.kind;
    for (int i = 0; i < options_count(); i++) {
        char value[OPT_TEXT_LEN + 32];
        snprintf(value, sizeof value, "%s", options_format(o, i));
        if (set[i] && !options_set(&merged, options_name(i), value, "a flag", err, err_len)) return false;
    }
    return options_check_given(&merged, set, err, err_len);
}

void run_options(Options *o, OptGiven *set, int argc, char **argv)
{
    char err[2048];
    bool help;
    options_defaults(o);
    if (!options_parse_args(o, argc, argv, set, &help, err, sizeof err)) die(EXIT_USER, "%s", err);
    if (help) {
        options_print_help(argv[0]);
        exit(0);
    }
}

void run_prepare(Options *o, const OptGiven *set, int argc, char **argv, StFile *ckpt, ThreadGovernor *threads)
{
    char err[2048];
    if (o->run.decode) options_decode_ignore_config(o, set);
    /* a checkpoint is opened once, and its checksum verified, before its config is used */
    int stored_optim = -1;
    if (o->run.load[0] && !(checkpoint_open(ckpt, o->run.load, err, sizeof err) &&
                            given_flags_matter(ckpt, o, set, &stored_optim, err, sizeof err) &&
                            checkpoint_apply_config_from(ckpt, o->run.load, o, set, err, sizeof err)))
        die(EXIT_USER, "%s", err);
    if (!options_validate(o, err, sizeof err) || !options_check_given(o, set, err, sizeof err)) die(EXIT_USER, "%s", err);
    if (o->run.load[0]) note_optimizer_change(stored_optim, o, set); /* once the checkpoint is known to fit */
    if (o->run.load[0] && o->data.path[0] && !set[options_index("data")] && access(o->data.path, F_OK) != 0)
        die(EXIT_USER, "--load=%s was made with --data=%s, which is not found from here: give --data=PATH", o->run.load, o->data.path);
    check_paths(o, argc, argv);
    threads_setup(threads, o->run.threads);
}

void run_open_data(Options *o, Dataset *d)
{
    char err[2048];
    if (o->data.path[0] && !task_spec(o->data.task)->load) o->data.task = task_of_corpus(); /* a corpus is its own task */
    o->data.context = o->model.context ? o->model.context : GPT_MAX_CONTEXT;
    if (!dataset_open(d, &o->data, err, sizeof err)) die(EXIT_USER, "%s", err);
    if (o->model.context == 0) o->model.context = dataset_max_input(d);
    if (o->model.dk == 0) o->model.dk = o->model.dmodel / o->model.heads;
    o->model.vocab = d->vocab.size;
}

void run_setup(Run *r, const Options *given, const OptGiven *set, int argc, char **argv)
{
    char err[2048];
    Options *o = &r->o;
    *o = *given;
    memcpy(r->given, set, sizeof r->given);
    interrupt_install();
    StFile ckpt;
    run_prepare(o, set, argc, argv, &ckpt, &r->threads);

    /* data: the task decides the vocabulary and how long sequences get */
    run_open_data(o, &r->data);
    if ((o->run.attention_svg[0] || o->run.dump_state[0]) && o->run.attention_example >= r->data.val.n)
        die(EXIT_USER, "--attention-example=%d: the validation set has %d example%s (0 to %d)", o->run.attention_example,
            r->data.val.n, r->data.val.n == 1 ? "" : "s", r->data.val.n - 1);

    /* the model */
    r->scale = gpt_fixed_scale(&o->model);
    int T = dataset_max_input(&r->data) < o->model.context ? dataset_max_input(&r->data) : o->model.context;
    check_memory(&o->model, o->run.batch, T);
    gpt_create(&r->model, &o->model);
    gpt_init(&r->model, o->data.seed);

    /* the optimizer, and the state of a checkpoint */
    gpt_decay_flags(&r->model, r->decay);
    optim_init(&r->opt, &o->optim, r->model.params, r->decay, r->model.n_params);
    r->state = (RunState){.steps_to_threshold = -1, .last_row_loss = NAN};
    if (o->run.load[0]) {
        if (!checkpoint_load_from(&ckpt, o->run.load, &r->model, &r->opt, &r->state, &r->data.vocab, err, sizeof err))
            die(EXIT_USER, "%s", err);
        st_close(&ckpt);
    }
    if (o->run.save[0] && !checkpoint_check_saveable(o->run.save, &r->model, &r->opt, &r->state, o, &r->data.vocab, err, sizeof err))
        die(EXIT_USER, "%s", err);
    r->start = r->state.next_step;
    r->stop = o->run.stop_at ? o->run.stop_at : o->optim.steps;
    if (r->start > r->stop)
        die(EXIT_USER, "--load=%s is at step %d, past the end of this run (%d); to evaluate or draw it without training, "
                       "give --stop-at=%d and no --steps", o->run.load, r->start, r->stop, r->start);
    if ((o->run.print_tape || o->run.tape_dot[0]) && r->start == r->stop)
        die(EXIT_USER, "%s: no step to describe: the run is at step %d of %d", o->run.print_tape ? "--print-tape" : "--tape-dot",
            r->start, r->stop);
    if (o->run.inject[0] &&
        !inject_parse(&r->inject, o->run.inject, &r->model, r->start, r->stop, saves_planned(o, r->start, r->stop), err, sizeof err))
        die(EXIT_USER, "%s", err);

    /* the step and what is around it */
    batch_alloc(&r->batch, o->run.batch, T);
    evaluator_init(&r->eval, o->run.batch, T);
    arena_init(&r->acts, 1 << 20); /* grows to what a step needs during the first step */
    tape_init(&r->tape, &r->acts);
    r->trainer = (Trainer){.model = &r->model, .opt = &r->opt, .tape = &r->tape, .seed = o->data.seed, .clip = o->run.clip};
    r->forensics = (Forensics){.mode = (NanMode)o->run.nan, .quiet = o->run.quiet, .nan_count = &r->state.nan_count};
    static char command[8192];
    model_command(r, command, sizeof command); /* the log's first line */
    if (!logbook_open(&r->log, o->run.log, &o->model, o->run.quiet, r->start, command)) die(EXIT_USER, "%s", r->log.failed);
    if (o->run.attention_svg[0] && o->run.attention_svg_at != ATTENTION_AT_END) capture_init(r);
}

/* ------------------------------------------------------------------ held-out attention */

/* The attention of the drawn example at initialisation: the model itself when the run starts
 * there, else the model as --seed initialises it (the same bits the first run started from). */
static void capture_init(Run *r)
{
    if (r->start == 0) {
        attention_map_capture(&r->attention_init, &r->model, &r->data, SPLIT_VAL, r->o.run.attention_example, 0);
        return;
    }
    static Gpt fresh;
    gpt_create(&fresh, &r->model.cfg);
    gpt_init(&fresh, r->o.data.seed);
    attention_map_capture(&r->attention_init, &fresh, &r->data, SPLIT_VAL, r->o.run.attention_example, 0);
    gpt_free(&fresh);
}

void run_dump_state(Run *r, const Tensor *logits, const Tensor *loss)
{
    char err[1024];
    AttentionMap heldout;
    attention_map_capture(&heldout, &r->model, &r->data, SPLIT_VAL, r->o.run.attention_example, r->start);
    bool ok = dump_state_write(r->o.run.dump_state, &r->model, &r->batch, logits, loss, r->scale, &heldout, &r->o, err,
                               sizeof err);
    attention_map_free(&heldout);
    if (!ok) die(EXIT_USER, "%s", err);
}

/* The last component of a path. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The command that makes this run's model (options_command_line), on any machine: --context
 * and --dk left out where they are what the task and dmodel / heads give by themselves. */
static void model_command(const Run *r, char *buf, size_t len)
{
    static Options o;
    o = r->o;
    if (o.model.context == dataset_max_input(&r->data)) o.model.context = 0;
    if (o.model.dk * o.model.heads == o.model.dmodel) o.model.dk = 0;
    options_command_line(&o, buf, len);
}

/* The command that makes the figure again, on any machine: for a fresh run "./train <the options
 * of its model> --attention-svg=NAME ..." (context and dk left out where they are what the task
 * and dmodel / heads give by themselves); for a run from a checkpoint, that checkpoint's step and
 * the command that continued it, "--load=<its file name>" and the options given: the options of
 * the steps before are in the checkpoint only, so no fresh command would give its weights. */
static void figure_command(const Run *r, char *buf, size_t len)
{
    const Options *o = &r->o;
    size_t n = 0;
    if (o->run.load[0]) {
        n = (size_t)snprintf(buf, len, "%s from a checkpoint at step %d: ", r->start < r->stop ? "resumed" : "drawn untrained",
                             r->start);
        if (n < len) options_resume_command(o, r->given, base_name(o->run.load), buf + n, len - n);
    } else {
        model_command(r, buf, len);
    }
    n = strlen(buf);
    if (n < len) n += (size_t)snprintf(buf + n, len - n, " --attention-svg=%s", base_name(o->run.attention_svg));
    if (n < len && o->run.attention_svg_at != ATTENTION_AT_END)
        n += (size_t)snprintf(buf + n, len - n, " --attention-svg-at=%s", attention_svg_at_name(o->run.attention_svg_at, NULL));
    if (n < len && o->run.attention_example != 0) n += (size_t)snprintf(buf + n, len - n, " --attention-example=%d", o->run.attention_example);
    if (n < len && r->start > 0)
        snprintf(buf + n, len - n, " (steps 1 to %d ran with the options stored in the checkpoint)", r->start);
}

/* The caption of the grid after the last step: at step 0 (--steps=0) that is the initialisation. */
static void end_caption(const Run *r, double val_acc, char *buf, size_t len)
{
    int n = r->stop == 0 ? snprintf(buf, len, "at initialisation (step 0: --steps=0, nothing trained")
                         : snprintf(buf, len, "after training (step %d", r->stop);
    if (!isnan(val_acc) && n > 0 && (size_t)n < len)
        n += snprintf(buf + n, len - (size_t)n, "; validation accuracy %.1f%%", 100 * val_acc);
    if (n > 0 && (size_t)n < len) snprintf(buf + n, len - (size_t)n, ")");
}

void run_draw_attention(Run *r, double val_acc)
{
    const Options *o = &r->o;
    AttentionMap end = {0};
    AttentionFigure fig = {.vocab = &r->data.vocab};
    char end_text[128], title[2300], command[4200], scores[300], rule[320];
    if (o->run.attention_svg_at != ATTENTION_AT_END) {
        fig.maps[fig.n_maps] = &r->attention_init;
        fig.names[fig.n_maps] = "init";
        fig.captions[fig.n_maps++] = "at initialisation (step 0)";
    }
    if (o->run.attention_svg_at != ATTENTION_AT_INIT) {
        attention_map_capture(&end, &r->model, &r->data, SPLIT_VAL, o->run.attention_example, r->stop);
        end_caption(r, val_acc, end_text, sizeof end_text);
        fig.maps[fig.n_maps] = &end;
        fig.names[fig.n_maps] = "end";
        fig.captions[fig.n_maps++] = end_text;
    }
    Example ex = example_list_get(&r->data.val, o->run.attention_example);
    char src[1024], tgt[1024];
    vocab_format(&r->data.vocab, ex.src, ex.src_len, src, sizeof src);
    vocab_format(&r->data.vocab, ex.tgt, ex.tgt_len, tgt, sizeof tgt);
    snprintf(title, sizeof title, "Attention weights on validation example %d: \"%s\" -> \"%s\"", o->run.attention_example,
             src, tgt);
    figure_command(r, command, sizeof command);
    gpt_describe_scores(&r->model.cfg, scores, sizeof scores);
    snprintf(rule, sizeof rule, "scores %s", scores);
    fig.title = title;
    fig.notes[0] = command;
    fig.notes[1] = rule;
    if (fig.n_maps == 2) fig.notes[2] = "left: at initialisation, right: after training; the same example on the same colour scale";
    char err[1024];
    bool ok = attention_svg_write(o->run.attention_svg, &fig, err, sizeof err);
    attention_map_free(&end);
    if (!ok) die(EXIT_USER, "%s", err);
}

void run_save(Run *r, int next_step)
{
    char err[1024];
    r->state.next_step = next_step;
    inject_before_save(&r->inject, ++r->saves);
    if (!checkpoint_save(r->o.run.save, &r->model, &r->opt, &r->state, &r->o, &r->data.vocab, err, sizeof err))
        die(EXIT_USER, "%s", err);
}

_Noreturn void run_stop_interrupted(Run *r, int done, int sig)
{
    if (r->o.run.save[0]) {
        run_save(r, done);
        fprintf(stderr, "stopped by %s after step %d: saved %s (resume with --load=%s)\n", interrupt_name(sig), done,
                r->o.run.save, r->o.run.save);
    } else {
        fprintf(stderr, "stopped by %s after step %d: nothing saved (no --save)\n", interrupt_name(sig), done);
    }
    exit(128 + sig);
}

_Noreturn void run_stop_failed_write(Run *r, int done)
{
    /* after SIGHUP, a failed console line is the terminal gone: stop as for the signal */
    if (interrupt_requested()) run_stop_interrupted(r, done, interrupt_requested());
    if (!r->o.run.save[0]) die(EXIT_USER, "%s; stopped after step %d (nothing saved: no --save)", r->log.failed, done);
    run_save(r, done);
    die(EXIT_USER, "%s; stopped after step %d, saved %s", r->log.failed, done, r->o.run.save);
}

void run_free(Run *r)
{
    attention_map_free(&r->attention_init);
    logbook_close(&r->log);
    evaluator_free(&r->eval);
    batch_free(&r->batch);
    tape_free(&r->tape);
    arena_free(&r->acts);
    optim_free(&r->opt);
    gpt_free(&r->model);
    dataset_free(&r->data);
}
