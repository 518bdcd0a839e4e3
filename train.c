/* train.c - ./train: trains a small GPT-style transformer and reports what its attention does.
 *
 * The loop, one step at a time:
 *     batch     = the step's examples, a function of (seed, step)          data/dataset.c
 *     train_step: forward -> loss -> backward -> clip -> update -> reset   model/train_step.c
 *     every --eval-every steps: held-out loss and greedy-decoding accuracy run/eval.c
 *     every --log-every steps:  a console line and a CSV row               run/logbook.c
 *     every --save-every steps: a checkpoint                               run/checkpoint.c
 * Everything else rides on the step as hooks (below main): NaN checks and forensics
 * (run/forensics.c), the metrics of logged steps, --dump-state, and the faults of --inject
 * (run/inject.c). Setting up from the options is run/run.c; --attention-svg draws at the end
 * (run/attention_svg.c). --print-tape and --tape-dot show the first step's tape
 * (run/tape_print.c, run/tape_dot.c) and exit 0 after that step, untrained (nothing saved,
 * logged or evaluated).
 *
 * `./train --load=model.st --decode` trains nothing: it reads sources from standard input and
 * prints their greedy decodings (run/decode.c). main only dispatches.
 *
 * Exit status: 0 done, 2 bad input or a failed write, 3 a non-finite value with --nan=stop,
 * 130 / 143 / 129 stopped by SIGINT / SIGTERM / SIGHUP (saved first when --save is given).
 */
#include "run/decode.h"
#include "run/exit.h"
#include "run/interrupt.h"
#include "run/run.h"
#include "run/log_columns.h"
#include "run/tape_dot.h"
#include "run/tape_print.h"
#include "run/threads.h"
#include "tensor/fpmode.h"

#include <math.h>
#include "tensor/openmp.h"
#include <stdio.h>

/* The step's context for its hooks. */
typedef struct StepContext {
    Run *run;
    bool log_now;      /* this step is logged: measure its attention and gradients */
    bool described;    /* --print-tape, --tape-dot: the step's tape was shown; stop */
} StepContext;

static StepHooks instrumentation(StepContext *ctx);
static void print_banner(const Run *r);
static bool log_row(Run *r, int done, double train_seconds, const StepResult *last, const EvalResult *eval);
static int train(const Options *given, const OptGiven *set, int argc, char **argv);
static void add_counts(FormatCounts *total, const FormatCounts *c);
static LogValue final_loss(const Run *r);

int main(int argc, char **argv)
{
    static Options o;
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    run_options(&o, set, argc, argv); /* --help exits here */
    threads_from_env(); /* a bad $OMP_NUM_THREADS: one line, exit 2, before OpenMP reads it (below) */
    fpmode_flush_subnormals(); /* the same bits on every machine, and no slow subnormals (tensor/fpmode.h) */
    return o.run.decode ? decode_main(&o, set, argc, argv) : train(&o, set, argc, argv);
}

/* The training run: see the top of the file. */
static int train(const Options *given, const OptGiven *set, int argc, char **argv)
{
    static Run run;
    Run *r = &run;
    run_setup(r, given, set, argc, argv); /* data, model, optimizer, checkpoint */
    const Options *o = &r->o;
    print_banner(r);

    StepContext ctx = {r, false, false};
    StepHooks hooks = instrumentation(&ctx);
    EvalResult last_eval = {.loss = NAN, .accuracy = NAN};
    bool evaluated_at_stop = false;
    FormatCounts eval_fp = {0}; /* --precision: what rounding did in this run's evaluations */
    double t_start = omp_get_wtime(), train_seconds = 0;
    for (int step = r->start; step < r->stop; step++) {
        /* Ctrl-C or kill: stop between steps, saved (run/interrupt.h) */
        if (interrupt_requested()) run_stop_interrupted(r, step, interrupt_requested());
        threads_tick(&r->threads); /* fewer threads while other programs hold the cores (run/threads.h) */
        int done = step + 1;
        /* --stop-at pauses a run: rows and evaluations fall where an uninterrupted run has them,
         * so that a run resumed from the pause continues it exactly */
        bool evaluate_now = (o->run.eval_every > 0 && done % o->run.eval_every == 0) || done == o->optim.steps;
        /* the first step is logged: its metrics describe the model at initialisation */
        ctx.log_now = done == 1 || done % o->run.log_every == 0 || evaluate_now;

        double t = omp_get_wtime();
        dataset_train_batch(&r->data, step, &r->batch);
        StepBatch b = {r->batch.tokens, r->batch.targets, r->batch.loss_mask, r->batch.B, r->batch.T};
        r->trainer.measure = ctx.log_now;
        StepResult res = train_step(&r->trainer, &b, step, &hooks);
        if (ctx.described) { /* --print-tape, --tape-dot: that was the step to look at */
            if (!logbook_stdout_ok(&r->log)) die(EXIT_USER, "%s", r->log.failed);
            run_free(r);
            return 0;
        }
        train_seconds += omp_get_wtime() - t;
        if (isfinite(res.loss)) {
            r->state.interval_loss += res.loss;
            r->state.interval_steps++;
        }

        EvalResult eval;
        if (evaluate_now) {
            last_eval = eval = evaluate(&r->eval, &r->model, &r->tape, &r->data, SPLIT_VAL, o->run.eval_examples, NULL);
            add_counts(&eval_fp, &eval.rounding);
            evaluated_at_stop = done == r->stop;
        }
        if (ctx.log_now) {
            if (!log_row(r, done, train_seconds, &res, evaluate_now ? &eval : NULL))
                run_stop_failed_write(r, done); /* a full disk, a closed pipe: save, then exit 2 */
            train_seconds = 0;
        }
        if (o->run.save[0] && o->run.save_every > 0 && done % o->run.save_every == 0 && done != r->stop) run_save(r, done);
        inject_after_step(&r->inject, step);
    }
    if (interrupt_requested()) run_stop_interrupted(r, r->stop, interrupt_requested());
    if (o->run.save[0]) run_save(r, r->stop); /* before the final evaluations: a signal there loses nothing */
    r->eval.stop_requested = interrupt_requested; /* they may be long (a test set of 10^6): a signal stops them
                                                     (those of the steps are bounded by --eval-examples and logged whole) */
    if (!evaluated_at_stop) /* the last step was no evaluation step, or nothing ran (a finished checkpoint) */
    {
        last_eval = evaluate(&r->eval, &r->model, &r->tape, &r->data, SPLIT_VAL, o->run.eval_examples, NULL);
        add_counts(&eval_fp, &last_eval.rounding);
    }
    /* the test set, once, at the end: what a study reports (settings are chosen on validation) */
    EvalResult test = {.loss = NAN, .accuracy = NAN};
    if (r->data.test.n) test = evaluate(&r->eval, &r->model, &r->tape, &r->data, SPLIT_TEST, r->data.test.n, NULL);
    add_counts(&eval_fp, &test.rounding);
    if (interrupt_requested()) run_stop_interrupted(r, r->stop, interrupt_requested()); /* saved again: the same bytes */
    if (o->run.attention_svg[0]) run_draw_attention(r, last_eval.accuracy); /* after the save: a failed drawing loses no training */

    if (!o->run.quiet && o->run.examples > 0) {
        printf("decoded validation examples:\n");
        print_examples(&r->eval, &r->model, &r->tape, &r->data, o->run.examples, stdout);
    }
    FormatCounts fp = rounding_total(r->state.rounding, r->model.cfg.layers);
    bool reduced = r->model.cfg.precision != FORMAT_FP32;
    LogValue summary[N_SUMMARY_FIELDS] = { /* the fields of run/log_columns.c */
        [SUMMARY_STEPS] = log_count(r->stop),
        [SUMMARY_FINAL_LOSS] = final_loss(r),
        [SUMMARY_VAL_LOSS] = log_real(last_eval.loss),
        [SUMMARY_VAL_ACC] = log_real(last_eval.accuracy),
        [SUMMARY_STEPS_TO_THRESHOLD] = log_count(r->state.steps_to_threshold),
        [SUMMARY_NAN_COUNT] = log_count(r->state.nan_count),
        [SUMMARY_FP_OVERFLOWS] = log_count(fp.overflow),
        [SUMMARY_FP_UNDERFLOWS] = log_count(fp.underflow),
        [SUMMARY_FP_NANS] = log_count(fp.nan),
        [SUMMARY_EVAL_FP_OVERFLOWS] = reduced ? log_count(eval_fp.overflow) : log_empty(), /* fp32: left out */
        [SUMMARY_EVAL_FP_UNDERFLOWS] = reduced ? log_count(eval_fp.underflow) : log_empty(),
        [SUMMARY_EVAL_FP_NANS] = reduced ? log_count(eval_fp.nan) : log_empty(),
        [SUMMARY_TEST_LOSS] = test.examples ? log_real(test.loss) : log_empty(), /* no test set: left out */
        [SUMMARY_TEST_ACC] = test.examples ? log_real(test.accuracy) : log_empty(),
        [SUMMARY_TEST_EXAMPLES] = test.examples ? log_count(test.examples) : log_empty(),
        [SUMMARY_TIME_S] = log_real(omp_get_wtime() - t_start),
    };
    summary_print(stdout, summary);
    if (!logbook_stdout_ok(&r->log)) die(EXIT_USER, "%s", r->log.failed); /* the checkpoint is saved already */
    run_free(r);
    return 0;
}

/* The summary's final_loss: the last row's loss; for a resumed run that logged no row, the mean
 * training loss since the checkpoint's last row, or (nothing trained since it) that row's own, as
 * the run it continues ended with; NaN when there is none. */
static LogValue final_loss(const Run *r)
{
    if (r->log.rows) return log_real(r->log.last_loss);
    const RunState *st = &r->state;
    return log_real(st->interval_steps ? st->interval_loss / st->interval_steps : st->last_row_loss);
}

static void add_counts(FormatCounts *total, const FormatCounts *c)
{
    total->overflow += c->overflow;
    total->underflow += c->underflow;
    total->nan += c->nan;
}

/* ------------------------------------------------------------------ the step's hooks */

static void before_forward(void *c, int step)
{
    StepContext *ctx = c;
    inject_before_forward(&ctx->run->inject, step);
}

static bool after_forward(void *c, int step, Tensor *loss)
{
    StepContext *ctx = c;
    Run *r = ctx->run;
    return forensics_check_loss(&r->forensics, step, &r->tape, &r->model, loss);
}

static bool after_backward(void *c, int step, Tensor *loss)
{
    StepContext *ctx = c;
    Run *r = ctx->run;
    inject_after_backward(&r->inject, step);
    if (forensics_check_gradients(&r->forensics, step, &r->tape, &r->model, loss)) return true;
    /* the forensics replay recomputed the gradients: put the fault back, as the step saw it */
    inject_after_backward(&r->inject, step);
    return false;
}

static void before_update(void *c, int step, const StepResult *res, Tensor *logits, Tensor *loss)
{
    StepContext *ctx = c;
    Run *r = ctx->run;
    char err[1024];
    if (step == r->start && r->o.run.dump_state[0]) run_dump_state(r, logits, loss);
    if (step == r->start && (r->o.run.print_tape || r->o.run.tape_dot[0])) {
        /* the tape as the step recorded it; the backward has replayed it already */
        if (r->o.run.print_tape) {
            (void)tape_print(stdout, &r->tape, &r->model, step, r->batch.B, r->batch.T); /* checked here: */
            if (!logbook_stdout_ok(&r->log)) die(EXIT_USER, "%s", r->log.failed);
        }
        if (r->o.run.tape_dot[0] && !tape_dot_write(r->o.run.tape_dot, &r->tape, &r->model, err, sizeof err)) die(EXIT_USER, "%s", err);
        if (r->o.run.tape_dot[0] && !r->o.run.quiet) printf("wrote the graph of step %d to %s\n", step + 1, r->o.run.tape_dot);
        ctx->described = true;
    }
    rounding_add(r->state.rounding, r->trainer.trace, r->model.cfg.layers);
    if (ctx->log_now)
        logbook_measure(&r->log, &r->model, r->trainer.trace, r->state.rounding, r->tape.arena, r->batch.valid,
                        res->backward);
}

static void update_refused(void *c, int step, const StepResult *res, int bad_param)
{
    StepContext *ctx = c;
    Run *r = ctx->run;
    forensics_update_refused(&r->forensics, step, &r->model, bad_param, res->grad_norm, res->lr);
}

static StepHooks instrumentation(StepContext *ctx)
{
    return (StepHooks){.ctx = ctx,
                       .before_forward = before_forward,
                       .after_forward = after_forward,
                       .after_backward = after_backward,
                       .before_update = before_update,
                       .update_refused = update_refused};
}

/* ------------------------------------------------------------------ reporting */

static void print_banner(const Run *r)
{
    const Options *o = &r->o;
    const GptConfig *c = &r->model.cfg;
    if (o->run.quiet) return;
    char train_n[32] = "generated per step";
    if (r->data.train.n) snprintf(train_n, sizeof train_n, "%d", r->data.train.n);
    printf("task %s: training examples %s, %d held out; %d positions, vocabulary %d\n", task_name(o->data.task, NULL), train_n,
           r->data.val.n, r->batch.T, c->vocab);
    char scores[256];
    gpt_describe_scores(c, scores, sizeof scores);
    printf("model: %d layer%s, dmodel %d, %d head%s of dk %d, %zu parameters; scores %s\n", c->layers,
           c->layers == 1 ? "" : "s", c->dmodel, c->heads, c->heads == 1 ? "" : "s", c->dk, r->model.n_values, scores);
    const ThreadGovernor *g = &r->threads;
    if (g->on) printf("threads: %d (the cores this process may use; fewer while other programs keep them busy)\n", g->max);
    else if (!threads_have_openmp()) printf("threads: 1 (this build has no OpenMP)\n");
    else printf("threads: %d\n", g->max);
}

/* The row of step `done`: the mean training loss since the last row (and the loss threshold's
 * first crossing), then the logbook's CSV row and console line; false when a write failed. */
static bool log_row(Run *r, int done, double train_seconds, const StepResult *last, const EvalResult *eval)
{
    RunState *st = &r->state;
    double mean_loss = st->interval_steps ? st->interval_loss / st->interval_steps : NAN;
    double tokens = (double)st->interval_steps * r->batch.B * r->batch.T;
    double elapsed = omp_get_wtime() - r->log.t_start;
    if (st->steps_to_threshold < 0 && mean_loss <= r->o.run.loss_threshold) st->steps_to_threshold = done;
    LogRow row = {.step = done,
                  .stop = r->stop,
                  .loss = mean_loss,
                  .lr = last->lr,
                  .grad_norm = last->grad_norm,
                  .tokens_per_s = train_seconds > 0 ? tokens / train_seconds : 0,
                  .elapsed = elapsed,
                  .seconds_left = time_left(&r->left, done, elapsed, r->stop),
                  .evaluated = eval != NULL,
                  .val_loss = eval ? eval->loss : NAN,
                  .val_acc = eval ? eval->accuracy : NAN,
                  .nan_count = st->nan_count};
    st->interval_loss = 0;
    st->interval_steps = 0;
    st->last_row_loss = mean_loss;
    return logbook_row(&r->log, &row);
}
