/* options.h - every setting of ./train, from defaults, a config file, flags or a checkpoint.
 *
 * The settings live in the modules' own configurations (Options below: DataConfig, GptConfig,
 * OptimConfig, and RunConfig for the rest), and one table (options.c) lists each option once: its
 * name (the same as a flag and as a config key), the field it sets in them, its kind, default,
 * range and help. Defaults, --help, config files, command-line flags and the config stored in
 * checkpoints all go through it. An enumerated option (--task, --scale, --optim, --nan) takes its
 * names from the module that owns the values (the task table, the optimizer table, ...).
 */
#ifndef RUN_OPTIONS_H
#define RUN_OPTIONS_H

#include "../data/data.h"
#include "attention_svg.h"
#include "forensics.h"
#include "../model/gpt.h"
#include "../model/optim.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OPT_TEXT_LEN DATA_PATH_LEN /* a text option: a file name, or --inject's fault */
#define OPTIONS_MAX 128 /* room for the options' `set` array: more than the table has */

/* set[i]: where option i got its value, when it was given: from a --config file, or as a flag
 * (which wins over the file). Tested as a truth value, it says "given". */
typedef enum OptGiven { GIVEN_NOT = 0, GIVEN_IN_CONFIG, GIVEN_AS_FLAG } OptGiven;

/* What belongs to no module: the run around the step (batch, clipping), its cadence, its files
 * and outputs, and the threads. */
typedef struct RunConfig {
    int batch;                 /* sequences per step */
    double clip;               /* max global gradient norm (0: off) */
    double loss_threshold;     /* the summary's first step whose mean loss is below */
    int threads, log_every, eval_every, eval_examples, examples, save_every, stop_at;
    char log[OPT_TEXT_LEN], save[OPT_TEXT_LEN], load[OPT_TEXT_LEN], dump_state[OPT_TEXT_LEN];
    char attention_svg[OPT_TEXT_LEN];
    AttentionSvgAt attention_svg_at;
    int attention_example;     /* the validation example drawn (and dumped with --dump-state) */
    NanMode nan;
    char inject[OPT_TEXT_LEN];
    bool quiet;
    bool print_tape;           /* describe the first step's tape and exit (run/tape_print.c) */
    char tape_dot[OPT_TEXT_LEN]; /* the same as a Graphviz graph, here (run/tape_dot.c) */
    /* --decode: no training; sources from standard input through a --load'ed model */
    bool decode, show_attention;
    double temperature;        /* --decode: 0 greedy, T > 0 samples from softmax(logits / T) (seeded by --seed) */
    int top_k;                 /* --decode --temperature: sample among the K most likely tokens (0: all) */
} RunConfig;

/* Every setting of a run, in the modules' own configurations: the option table points into
 * them, and each module is handed its part as it is. The values derived from others (dk 0, context
 * 0, the task of a corpus, the vocabulary) are filled in once, by run/run.c (run_open_data). */
typedef struct Options {
    DataConfig data;           /* the task, its examples and the seed (data/data.h) */
    GptConfig model;           /* the model (model/gpt.h) */
    OptimConfig optim;         /* the optimizer and its schedule (model/optim.h) */
    RunConfig run;             /* the rest (above) */
} Options;

typedef enum OptGroup {
    GROUP_DATA,   /* defines the vocabulary: must match a loaded checkpoint */
    GROUP_MODEL,  /* defines the parameters' shapes: must match a loaded checkpoint */
    GROUP_TRAIN,  /* stored in checkpoints; may be changed when resuming */
    GROUP_RUN,    /* this run only (files, threads): never stored */
} OptGroup;

/* Fills every option with its default. */
void options_defaults(Options *o);
/* Sets one option from text. `where` names the source for messages ("--lr", "a.cfg:3").
 * Returns false with a one-line message in err. */
bool options_set(Options *o, const char *name, const char *value, const char *where, char *err, size_t err_len);
/* Reads `key = value` lines (# starts a comment). */
bool options_read_config(Options *o, const char *path, OptGiven *set, char *err, size_t err_len);
/* The same from text in memory: `size` bytes followed by one more byte of room (a NUL ends the
 * last line there); modified in place; `name` is used in messages. */
bool options_parse_config(Options *o, const char *name, char *text, size_t size, OptGiven *set, char *err, size_t err_len);
/* Parses argv: --config=FILE first, then every --name=value over it. `set[i]` records which
 * options were given explicitly, and how (the file or a flag). *help is set for --help. */
bool options_parse_args(Options *o, int argc, char **argv, OptGiven *set, bool *help, char *err, size_t err_len);
/* Checks that the options make sense together (sizes, divisibility, ranges). */
bool options_validate(const Options *o, char *err, size_t err_len);
/* Refuses options given explicitly (set[i]) with a value other than their default that would
 * do nothing in this configuration, e.g. --scale=dk with --attn=cosine, --momentum with AdamW:
 * a silent no-op would mislead an ablation; --show-attention or --temperature without --decode,
 * --top-k without --temperature > 0; and with --decode, every option of training or of its
 * outputs (--lr, --save, ...) given as a flag: a --config file's are let through, since a file
 * is written for a training run, whereas a flag that does nothing misleads. (At its default,
 * e.g. `scale = sqrt` in a config file used for a cosine run, an option is let through.) */
bool options_check_given(const Options *o, const OptGiven *set, char *err, size_t err_len);
/* With --decode: the options of the run (files, --print-tape, ...) that a --config file set and
 * that --decode does not use go back to their defaults, so that no file they name is checked or
 * refused: the file was written for a training run. (Given as flags, options_check_given refuses them.) */
void options_decode_ignore_config(Options *o, const OptGiven *set);
void options_print_help(const char *program);
/* Whether `option` ("recall-pairs") shapes some task but not o's: read by the others' rows only,
 * so the run ignores it (one set of task flags serves a grid of tasks, or a resumed run). */
bool options_task_ignores(const Options *o, const char *option);
/* The --help section of option i (an index of options_name), or -1 if it has none. */
int options_help_section(int i);

/* Iteration over the table, for checkpoints and logs. */
int options_count(void);
const char *options_name(int i);
OptGroup options_group(int i);
const char *options_default(int i); /* as text, as a flag would give it */
/* The day option i came, after checkpoint format /2 (2026-11-30): a checkpoint may lack it, and
 * is then read with its default (the behaviour before the option existed). NULL: every
 * checkpoint holds it. */
const char *options_added(int i);
int options_index(const char *name); /* -1 when unknown */
/* The value of option i as text (in a static buffer; read it before the next call). */
const char *options_format(const Options *o, int i);

/* The command that makes this run's model again: "./train" and every option stored in
 * checkpoints (data, model, training) whose value differs from its default, then --stop-at when
 * given; files other than --data are left out, so the text is the same on any machine. */
void options_command_line(const Options *o, char *buf, size_t len);
/* The command that resumed this run from a checkpoint: "./train --load=<load>" and every option
 * of options_command_line that was given (set[i]), with its value even at its default (a given
 * value replaces the checkpoint's). The options the checkpoint was made with are in it, not here. */
void options_resume_command(const Options *o, const OptGiven *set, const char *load, char *buf, size_t len);

#endif
