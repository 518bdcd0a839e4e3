/* run.h - one training run of ./train: everything it holds, built from the options. */
#ifndef RUN_RUN_H
#define RUN_RUN_H

#include "../data/data.h"
#include "attention_map.h"
#include "eval.h"
#include "../model/gpt.h"
#include "../model/optim.h"
#include "../model/train_step.h"
#include "checkpoint.h"
#include "forensics.h"
#include "inject.h"
#include "logbook.h"
#include "options.h"
#include "threads.h"

typedef struct Run {
    Options o;
    Dataset data;
    Gpt model;
    Optimizer opt;
    bool decay[GPT_MAX_PARAMS];  /* per parameter: weight decay applies */
    Arena acts;                  /* the step's activations and their gradients */
    Tape tape;
    Trainer trainer;             /* the step: model, optimizer, tape, seed, clipping */
    Batch batch;
    Evaluator eval;
    Logbook log;
    Forensics forensics;
    Injection inject;            /* --inject: a fault for the tests */
    RunState state;              /* what a checkpoint keeps, so that a resumed run continues exactly */
    int start, stop;             /* steps [start, stop) run here */
    double scale;                /* the fixed score multiplier, for the record (NaN when learned) */
    int saves;                   /* checkpoints written so far */
    AttentionMap attention_init; /* --attention-svg-at=init|both: the model as --seed initialises it */
    OptGiven given[OPTIONS_MAX]; /* which options were given: a resumed run's figure names them */
    ThreadGovernor threads;      /* the thread count, lowered while other programs hold the cores */
    TimeLeft left;               /* the time left of the console lines (run/logbook.h) */
} Run;

/* Reads the options from argv: a --config file, then the flags over it; set[i] records which
 * were given (by the file or a flag). --help: prints it and exits 0. Bad input: a one-line
 * message and exit 2, as for everything below. */
void run_options(Options *o, OptGiven *set, int argc, char **argv);
/* With --load, opens its checkpoint into *ckpt (verified) and applies its configuration: options
 * not given take its values, given ones of the model and the data must agree. Then checks the
 * options together, refuses given ones that would do nothing here, checks every file the run
 * reads or writes, and sets the thread count (run/threads.h). The caller loads from *ckpt and closes it. */
void run_prepare(Options *o, const OptGiven *set, int argc, char **argv, StFile *ckpt, ThreadGovernor *threads);
/* Opens the data of the options and fills in the settings derived from others, the one place
 * where that is done: a corpus (--data) is its own task; the data's longest input is --context or,
 * at 0, the longest the task may need (which --context then becomes); the model's vocabulary is
 * the data's and its head size dk, at 0, is dmodel / heads. Bad data: a one-line message, exit 2. */
void run_open_data(Options *o, Dataset *d);
/* The training run of the options run_options read: run_prepare, then the data, the model,
 * the optimizer, a --load'ed checkpoint's state and the rest. */
void run_setup(Run *r, const Options *o, const OptGiven *set, int argc, char **argv);
/* --dump-state, at the first step of the run: its parameters, batch, logits, loss, gradients and
 * the attention of validation example --attention-example under those parameters; exit 2 on
 * failure. */
void run_dump_state(Run *r, const Tensor *logits, const Tensor *loss);
/* --attention-svg, at the end of the run: the grids --attention-svg-at asks for (the last one's
 * caption with the final validation accuracy, val_acc; NaN: none); exit 2 on failure. */
void run_draw_attention(Run *r, double val_acc);
/* Writes the checkpoint (--save) of a run that has done next_step steps; exit 2 on failure. */
void run_save(Run *r, int next_step);
/* Stops a run that has done `done` steps because of signal `sig`: saves (with --save), says
 * where, exits 128 + sig. */
_Noreturn void run_stop_interrupted(Run *r, int done, int sig);
/* Stops a run after a failed write to its log or standard output (r->log.failed): saves (with
 * --save), exits 2; or, when a signal came first (SIGHUP: the terminal is gone, and with it
 * standard output), stops as for that signal. */
_Noreturn void run_stop_failed_write(Run *r, int done);
void run_free(Run *r);

#endif
