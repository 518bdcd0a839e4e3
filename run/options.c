/* options.c - the option table and its parsers. Every user error is one line naming the
 * flag (or the file and line) and what is wrong with it. */
#include "options.h"
#include "option_needs.h"
#include "threads.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum OptKind { KIND_INT, KIND_REAL, KIND_TEXT, KIND_SEED, KIND_BOOL, KIND_ENUM } OptKind;

/* The values of an enumerated option: names(value, &help) gives the name of each value, from
 * 0 up to the first NULL. Some also take a number instead of a name (--scale=8): it is stored
 * at number_offset, the option's value becomes number_value, and the option's min and max bound
 * it (number_range says them in the messages). */
typedef struct EnumValues {
    const char *(*names)(int value, const char **help);
    bool takes_number;
    size_t number_offset;
    int number_value;
    const char *number_range;
} EnumValues;

/* --help's sections, in the order it shows them (a row's options in the table's order). */
typedef enum HelpSection {
    SECTION_NONE, /* no row is left here: tests/test_io.c checks it */
    SECTION_DATA, SECTION_MODEL, SECTION_ATTENTION, SECTION_TRAINING, SECTION_OUTPUT, SECTION_CHECKPOINTS,
    SECTION_DECODE, SECTION_DEBUG, N_SECTIONS
} HelpSection;

static const char *const g_section_titles[N_SECTIONS] = {
    [SECTION_DATA] = "task and data",
    [SECTION_MODEL] = "model",
    [SECTION_ATTENTION] = "attention",
    [SECTION_TRAINING] = "training",
    [SECTION_OUTPUT] = "evaluation and output",
    [SECTION_CHECKPOINTS] = "checkpoints",
    [SECTION_DECODE] = "talking to a trained model (with --load)",
    [SECTION_DEBUG] = "debugging",
};

/* What --decode does with an option of training or of the run (those of the model and the data
 * are checked against the checkpoint instead): by default it is refused as a flag, since
 * decoding trains nothing and writes nothing but standard output. */
typedef enum OptDecode {
    DECODE_REFUSES, /* given as a flag: refused (from a --config file: let through, or dropped if of the run) */
    DECODE_USES,    /* what decoding uses: how the forward pass computes, the model file, the threads */
} OptDecode;

typedef struct OptSpec {
    const char *name;            /* as a flag, a config key and "config.<name>" in checkpoints */
    OptKind kind;
    OptGroup group;              /* whether checkpoints store it, and whether a resumed run must match it */
    HelpSection section;
    size_t offset;               /* of its field in Options */
    const char *def;
    double min, max;             /* for numbers */
    const EnumValues *values;    /* KIND_ENUM */
    /* The day the option came, after checkpoint format /2 (2026-11-30): a checkpoint may lack it
     * and is then read with its default (every new option's default is the behaviour before
     * it). NULL: every checkpoint holds it. */
    const char *added;
    const OptNeeds *needs;       /* when it does something; NULL: always */
    const char *needs_aside;     /* said in brackets after what it needs */
    OptDecode decode;
    const char *decode_instead;  /* refused with --decode: what to run instead, if anything */
    bool per_task;               /* a data option of some tasks: --help names them first (their rows' reads) */
    const char *help;
} OptSpec;

#define OFF(field) offsetof(Options, field)

/* An enumerated option is stored as an int in a field of the module's enum type: the same size. */
_Static_assert(sizeof(ScaleMode) == sizeof(int) && sizeof(ScaleParam) == sizeof(int) && sizeof(QkInit) == sizeof(int) &&
                   sizeof(NumFormat) == sizeof(int) && sizeof(SoftmaxKind) == sizeof(int) &&
                   sizeof(AttentionSvgAt) == sizeof(int) && sizeof(NanMode) == sizeof(int),
               "an enumerated option's field is not an int");

static const EnumValues g_tasks = {task_name, false, 0, 0, NULL};
static const EnumValues g_scales = {scale_mode_name, true, OFF(model.scale_const), SCALE_CONST, "1e-4 to 1e8"};
static const EnumValues g_optimizers = {optim_name, false, 0, 0, NULL};
static const EnumValues g_nan_modes = {nan_mode_name, false, 0, 0, NULL};
static const EnumValues g_attn_kinds = {attn_kind_name, false, 0, 0, NULL};
static const EnumValues g_scale_inits = {scale_init_name, true, OFF(model.scale_init_const), SCALE_CONST, "1e-4 to 1e8"};
static const EnumValues g_scale_params = {scale_param_name, false, 0, 0, NULL};
static const EnumValues g_qk_inits = {qk_init_name, false, 0, 0, NULL};
static const EnumValues g_formats = {format_name, false, 0, 0, NULL};
static const EnumValues g_softmaxes = {softmax_kind_name, false, 0, 0, NULL};
static const EnumValues g_attention_at = {attention_svg_at_name, false, 0, 0, NULL};

/* ------------------------------------------------------------------ the table */

static const OptSpec g_specs[] = {
    /* task and data */
    {.name = "task", .kind = KIND_ENUM, .group = GROUP_DATA, .section = SECTION_DATA, .offset = OFF(data.task),
     .def = "copy", .values = &g_tasks,
     .help = "toy task (tsv: set by --data)"},
    {.name = "data", .kind = KIND_TEXT, .group = GROUP_DATA, .section = SECTION_DATA, .offset = OFF(data.path),
     .def = "",
     .help = "parallel corpus, one source<TAB>target pair per line"},
    {.name = "symbols", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA, .offset = OFF(data.symbols),
     .def = "10", .min = 1, .max = 1000, .per_task = true,
     .help = "alphabet size"},
    {.name = "min-len", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA, .offset = OFF(data.min_len),
     .def = "3", .min = 1, .max = 64, .per_task = true,
     .help = "shortest source"},
    {.name = "max-len", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA, .offset = OFF(data.max_len),
     .def = "8", .min = 1, .max = 64, .per_task = true,
     .help = "longest source"},
    {.name = "val-size", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA, .offset = OFF(data.val_size),
     .def = "512", .min = 1, .max = 1000000,
     .help = "synthetic tasks: held-out validation examples"},
    {.name = "test-size", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA,
     .offset = OFF(data.test_size), .def = "0", .min = 0, .max = 1000000, .added = "2026-12-01",
     .help = "synthetic tasks: held-out test examples, evaluated once at the end"},
    {.name = "recall-pairs", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA,
     .offset = OFF(data.recall_pairs), .def = "4", .min = 1, .max = 31, .added = "2026-12-01", .per_task = true,
     .help = "key-value pairs per example (at most --recall-keys)"},
    {.name = "recall-keys", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA,
     .offset = OFF(data.recall_keys), .def = "16", .min = 1, .max = 1000, .added = "2026-12-01", .per_task = true,
     .help = "key alphabet size (k0, k1 ...)"},
    {.name = "recall-values", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA,
     .offset = OFF(data.recall_values), .def = "16", .min = 2, .max = 1000, .added = "2026-12-01", .per_task = true,
     .help = "value alphabet size (v0, v1 ...)"},
    {.name = "recall-queries", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA,
     .offset = OFF(data.recall_queries), .def = "1", .min = 1, .max = 31, .added = "2026-12-01", .per_task = true,
     .help = "keys asked for, each answered by its value (at most --recall-pairs)"},
    {.name = "lookup-queries", .kind = KIND_INT, .group = GROUP_DATA, .section = SECTION_DATA,
     .offset = OFF(data.lookup_queries), .def = "2", .min = 1, .max = 31, .added = "2026-12-03", .per_task = true,
     .help = "source symbols asked for, each answered by its position"},
    /* model */
    {.name = "layers", .kind = KIND_INT, .group = GROUP_MODEL, .section = SECTION_MODEL, .offset = OFF(model.layers),
     .def = "2", .min = 1, .max = 24,
     .help = "decoder blocks"},
    {.name = "dmodel", .kind = KIND_INT, .group = GROUP_MODEL, .section = SECTION_MODEL, .offset = OFF(model.dmodel),
     .def = "64", .min = 1, .max = 16384,
     .help = "model width C"},
    {.name = "heads", .kind = KIND_INT, .group = GROUP_MODEL, .section = SECTION_MODEL, .offset = OFF(model.heads),
     .def = "4", .min = 1, .max = 1024,
     .help = "attention heads H"},
    {.name = "dk", .kind = KIND_INT, .group = GROUP_MODEL, .section = SECTION_MODEL, .offset = OFF(model.dk),
     .def = "0", .min = 0, .max = 16384,
     .help = "head size (0: dmodel / heads)"},
    {.name = "context", .kind = KIND_INT, .group = GROUP_MODEL, .section = SECTION_MODEL,
     .offset = OFF(model.context), .def = "0", .min = 0, .max = 16384,
     .help = "positions (0: what the task needs)"},
    {.name = "scale", .kind = KIND_ENUM, .group = GROUP_MODEL, .section = SECTION_ATTENTION,
     .offset = OFF(model.scale_mode), .def = "sqrt", .min = 1e-4, .max = 1e8, .values = &g_scales,
     .needs = &NEEDS_SCALED,
     .help = "score multiplier: 1, sqrt (1/sqrt dk), dk (1/dk), learned, or c (1/c)"},
    {.name = "attn", .kind = KIND_ENUM, .group = GROUP_MODEL, .section = SECTION_ATTENTION, .offset = OFF(model.attn),
     .def = "dot", .values = &g_attn_kinds, .added = "2026-12-01",
     .help = "how a head forms its scores"},
    {.name = "scale-init", .kind = KIND_ENUM, .group = GROUP_MODEL, .section = SECTION_ATTENTION,
     .offset = OFF(model.scale_init), .def = "sqrt", .min = 1e-4, .max = 1e8, .values = &g_scale_inits,
     .added = "2026-12-01", .needs = &NEEDS_LEARNED_SCALE,
     .help = "--scale=learned: the start, 1, sqrt (1/sqrt dk), dk (1/dk) or c (1/c)"},
    {.name = "scale-param", .kind = KIND_ENUM, .group = GROUP_MODEL, .section = SECTION_ATTENTION,
     .offset = OFF(model.scale_param), .def = "linear", .values = &g_scale_params, .added = "2026-12-01",
     .needs = &NEEDS_HEAD_MULTIPLIER,
     .help = "how a learned multiplier (--scale=learned, cosine's tau) is stored"},
    {.name = "tau-init", .kind = KIND_REAL, .group = GROUP_MODEL, .section = SECTION_ATTENTION,
     .offset = OFF(model.tau_init), .def = "10", .min = 1e-4, .max = 1e4, .added = "2026-12-01",
     .needs = &NEEDS_VARIANT_READS,
     .help = "--attn=cosine: the temperature tau's start"},
    {.name = "qk-init", .kind = KIND_ENUM, .group = GROUP_MODEL, .section = SECTION_ATTENTION,
     .offset = OFF(model.qk_init), .def = "xavier", .values = &g_qk_inits, .added = "2026-12-01",
     .needs = &NEEDS_SCORES_FROM_QK, .help = "how Wq and Wk start"},
    {.name = "init-gain", .kind = KIND_REAL, .group = GROUP_MODEL, .section = SECTION_MODEL,
     .offset = OFF(model.init_gain), .def = "1", .min = 1e-6, .max = 1e3,
     .help = "multiplies every Xavier (and unit) bound"},
    {.name = "precision", .kind = KIND_ENUM, .group = GROUP_TRAIN, .section = SECTION_ATTENTION,
     .offset = OFF(model.precision), .def = "fp32", .values = &g_formats, .added = "2026-12-01",
     .decode = DECODE_USES,
     .help = "the attention path (q, k, v, scores, weights, P v) rounded to"},
    {.name = "softmax", .kind = KIND_ENUM, .group = GROUP_TRAIN, .section = SECTION_ATTENTION,
     .offset = OFF(model.softmax), .def = "stable", .values = &g_softmaxes, .added = "2026-12-01",
     .decode = DECODE_USES, .needs = &NEEDS_SCORES_FROM_QK,
     .help = "the attention softmax"},
    {.name = "attn-dropout", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_ATTENTION,
     .offset = OFF(model.attn_dropout), .def = "0", .min = 0, .max = 0.999,
     .help = "dropout on attention weights"},
    {.name = "dropout", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_MODEL,
     .offset = OFF(model.dropout), .def = "0", .min = 0, .max = 0.999,
     .help = "dropout on embeddings and residual branches"},
    /* optimisation */
    {.name = "optim", .kind = KIND_ENUM, .group = GROUP_TRAIN, .section = SECTION_TRAINING, .offset = OFF(optim.kind),
     .def = "adamw", .values = &g_optimizers,
     .help = "optimizer"},
    {.name = "batch", .kind = KIND_INT, .group = GROUP_TRAIN, .section = SECTION_TRAINING, .offset = OFF(run.batch),
     .def = "32", .min = 1, .max = 65536,
     .help = "sequences per step"},
    {.name = "steps", .kind = KIND_INT, .group = GROUP_TRAIN, .section = SECTION_TRAINING, .offset = OFF(optim.steps),
     .def = "600", .min = 0, .max = 100000000,
     .help = "training steps (the schedule's length)"},
    {.name = "lr", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING, .offset = OFF(optim.lr),
     .def = "3e-3", .min = 0, .max = 1e6,
     .help = "peak learning rate"},
    {.name = "warmup", .kind = KIND_INT, .group = GROUP_TRAIN, .section = SECTION_TRAINING,
     .offset = OFF(optim.warmup), .def = "50", .min = 0, .max = 100000000,
     .help = "linear warmup steps"},
    {.name = "min-lr", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING,
     .offset = OFF(optim.min_lr), .def = "3e-4", .min = 0, .max = 1e6,
     .help = "learning rate at the end of the cosine"},
    {.name = "weight-decay", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING,
     .offset = OFF(optim.weight_decay), .def = "0.01", .min = 0, .max = 1e3,
     .help = "decoupled weight decay on 2-D weights (incl. embeddings; not biases, LN, scales)"},
    {.name = "clip", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING, .offset = OFF(run.clip),
     .def = "1", .min = 0, .max = 1e12,
     .help = "max global gradient norm (0: off)"},
    {.name = "beta1", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING,
     .offset = OFF(optim.beta1), .def = "0.9", .min = 0, .max = 0.999999, .needs = &NEEDS_OPTIMIZER_READS,
     .help = "Adam first-moment decay"},
    {.name = "beta2", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING,
     .offset = OFF(optim.beta2), .def = "0.98", .min = 0, .max = 0.999999, .needs = &NEEDS_OPTIMIZER_READS,
     .help = "Adam second-moment decay"},
    {.name = "eps", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING, .offset = OFF(optim.eps),
     .def = "1e-8", .min = 1e-30, .max = 1, .needs = &NEEDS_OPTIMIZER_READS,
     .help = "Adam denominator guard"},
    {.name = "momentum", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_TRAINING,
     .offset = OFF(optim.momentum), .def = "0", .min = 0, .max = 0.999999, .added = "2026-12-01",
     .needs = &NEEDS_OPTIMIZER_READS, .needs_aside = "AdamW's momentum is --beta1",
     .help = "--optim=sgd: heavy-ball momentum mu (0: plain SGD)"},
    {.name = "seed", .kind = KIND_SEED, .group = GROUP_DATA, .section = SECTION_DATA, .offset = OFF(data.seed),
     .def = "1",
     .help = "seeds init, data (and the validation split) and dropout; with --decode, the sampling of --temperature"},
    {.name = "loss-threshold", .kind = KIND_REAL, .group = GROUP_TRAIN, .section = SECTION_OUTPUT,
     .offset = OFF(run.loss_threshold), .def = "0.1", .min = 0, .max = 1e9,
     .help = "summary: first step whose mean loss is below"},
    /* the run */
    {.name = "threads", .kind = KIND_INT, .group = GROUP_RUN, .section = SECTION_TRAINING, .offset = OFF(run.threads),
     .def = "0", .min = 0, .max = THREADS_MAX, .decode = DECODE_USES,
     .help = "OpenMP threads (0: $OMP_NUM_THREADS if set, else one per core this process may use, fewer while other programs keep them busy); results do not depend on it"},
    {.name = "log", .kind = KIND_TEXT, .group = GROUP_RUN, .section = SECTION_OUTPUT, .offset = OFF(run.log),
     .def = "",
     .help = "CSV file for the metrics"},
    {.name = "log-every", .kind = KIND_INT, .group = GROUP_TRAIN, .section = SECTION_OUTPUT,
     .offset = OFF(run.log_every), .def = "50", .min = 1, .max = 100000000,
     .help = "steps between log lines"},
    {.name = "eval-every", .kind = KIND_INT, .group = GROUP_TRAIN, .section = SECTION_OUTPUT,
     .offset = OFF(run.eval_every), .def = "200", .min = 0, .max = 100000000,
     .help = "steps between evaluations (0: at the end only)"},
    {.name = "eval-examples", .kind = KIND_INT, .group = GROUP_TRAIN, .section = SECTION_OUTPUT,
     .offset = OFF(run.eval_examples), .def = "256", .min = 1, .max = 1000000,
     .help = "held-out examples per evaluation"},
    {.name = "examples", .kind = KIND_INT, .group = GROUP_RUN, .section = SECTION_OUTPUT, .offset = OFF(run.examples),
     .def = "3", .min = 0, .max = 1000,
     .help = "decoded examples printed at the end"},
    {.name = "save", .kind = KIND_TEXT, .group = GROUP_RUN, .section = SECTION_CHECKPOINTS, .offset = OFF(run.save),
     .def = "",
     .help = "write a checkpoint here (safetensors)"},
    {.name = "save-every", .kind = KIND_INT, .group = GROUP_RUN, .section = SECTION_CHECKPOINTS,
     .offset = OFF(run.save_every), .def = "0", .min = 0, .max = 100000000,
     .help = "also save every N steps (0: only at the end)"},
    {.name = "load", .kind = KIND_TEXT, .group = GROUP_RUN, .section = SECTION_CHECKPOINTS, .offset = OFF(run.load),
     .def = "", .decode = DECODE_USES,
     .help = "resume from this checkpoint; one at the run's end already (its --steps, or --stop-at=its step) is only evaluated and drawn; with --decode: the model to decode with"},
    {.name = "stop-at", .kind = KIND_INT, .group = GROUP_RUN, .section = SECTION_CHECKPOINTS,
     .offset = OFF(run.stop_at), .def = "0", .min = 0, .max = 100000000,
     .help = "stop after this step (0: --steps); the schedule still spans --steps"},
    {.name = "dump-state", .kind = KIND_TEXT, .group = GROUP_RUN, .section = SECTION_DEBUG,
     .offset = OFF(run.dump_state), .def = "",
     .decode_instead = "dump a checkpoint's next step with ./train --load=FILE --dump-state=FILE",
     .help = "write everything about the first step here (and the attention of --attention-example)"},
    {.name = "attention-svg", .kind = KIND_TEXT, .group = GROUP_RUN, .section = SECTION_OUTPUT,
     .offset = OFF(run.attention_svg), .def = "",
     .decode_instead = "draw a checkpoint with ./train --load=FILE --attention-svg=FILE",
     .help = "draw every head's attention weights on one validation example here (SVG heatmaps)"},
    {.name = "attention-svg-at", .kind = KIND_ENUM, .group = GROUP_RUN, .section = SECTION_OUTPUT,
     .offset = OFF(run.attention_svg_at), .def = "end", .values = &g_attention_at, .needs = &NEEDS_FIGURE,
     .decode_instead = "draw a checkpoint with ./train --load=FILE --attention-svg=FILE --attention-svg-at=WHICH",
     .help = "--attention-svg: which weights"},
    {.name = "attention-example", .kind = KIND_INT, .group = GROUP_RUN, .section = SECTION_OUTPUT,
     .offset = OFF(run.attention_example), .def = "0", .min = 0, .max = 1000000, .needs = &NEEDS_HELD_OUT_ATTENTION,
     .decode_instead = "draw a checkpoint with ./train --load=FILE --attention-svg=FILE --attention-example=N",
     .help = "--attention-svg, --dump-state: the validation example (0: the first)"},
    {.name = "nan", .kind = KIND_ENUM, .group = GROUP_TRAIN, .section = SECTION_TRAINING, .offset = OFF(run.nan),
     .def = "stop", .values = &g_nan_modes,
     .help = "on a NaN/Inf: stop (exit 3) or count and skip the update"},
    {.name = "inject", .kind = KIND_TEXT, .group = GROUP_RUN, .section = SECTION_DEBUG, .offset = OFF(run.inject),
     .def = "",
     .help = "testing faults: nan:STEP:PARAM, nan:STEP:grad.PARAM, crash-in-save:N, crash-after-step:N"},
    {.name = "quiet", .kind = KIND_BOOL, .group = GROUP_RUN, .section = SECTION_OUTPUT, .offset = OFF(run.quiet),
     .def = "0", .min = 0, .max = 1,
     .help = "only the summary line"},
    {.name = "print-tape", .kind = KIND_BOOL, .group = GROUP_RUN, .section = SECTION_DEBUG,
     .offset = OFF(run.print_tape), .def = "0", .min = 0, .max = 1,
     .decode_instead = "see the tape of a checkpoint's next step with ./train --load=FILE --print-tape",
     .help = "print the ops the first step records (shapes, FLOPs, memory), then exit without training"},
    {.name = "tape-dot", .kind = KIND_TEXT, .group = GROUP_RUN, .section = SECTION_DEBUG, .offset = OFF(run.tape_dot),
     .def = "", .decode_instead = "graph a checkpoint's next step with ./train --load=FILE --tape-dot=FILE",
     .help = "write the first step's graph here (Graphviz DOT), then exit without training; drawing it needs Graphviz's dot program (dot -Tsvg FILE > FILE.svg)"},
    {.name = "decode", .kind = KIND_BOOL, .group = GROUP_RUN, .section = SECTION_DECODE, .offset = OFF(run.decode),
     .def = "0", .min = 0, .max = 1, .decode = DECODE_USES,
     .help = "no training: print the greedy (or --temperature's sampled) decoding of each source read from stdin, one per line (needs --load)"},
    {.name = "show-attention", .kind = KIND_BOOL, .group = GROUP_RUN, .section = SECTION_DECODE,
     .offset = OFF(run.show_attention), .def = "0", .min = 0, .max = 1, .needs = &NEEDS_DECODE, .decode = DECODE_USES,
     .help = "--decode: per output token, the source token the last layer attends to most (mean over heads)"},
    {.name = "temperature", .kind = KIND_REAL, .group = GROUP_RUN, .section = SECTION_DECODE,
     .offset = OFF(run.temperature), .def = "0", .min = 0, .max = 1e6, .needs = &NEEDS_DECODE, .decode = DECODE_USES,
     .help = "--decode: 0 takes the most likely token; T > 0 samples each token from softmax(logits / T), seeded by --seed"},
    {.name = "top-k", .kind = KIND_INT, .group = GROUP_RUN, .section = SECTION_DECODE, .offset = OFF(run.top_k),
     .def = "0", .min = 0, .max = 100000000, .needs = &NEEDS_SAMPLING, .decode = DECODE_USES,
     .help = "--temperature: sample among the K most likely tokens only, ties to the lower id (0: all; 1: greedy)"},
};

enum { N_SPECS = (int)(sizeof g_specs / sizeof g_specs[0]) };
_Static_assert(N_SPECS <= OPTIONS_MAX, "OPTIONS_MAX is too small for the option table");

int options_count(void) { return N_SPECS; }
const char *options_name(int i) { return g_specs[i].name; }
OptGroup options_group(int i) { return g_specs[i].group; }
const char *options_default(int i) { return g_specs[i].def; }
const char *options_added(int i) { return g_specs[i].added; }

int options_index(const char *name)
{
    for (int i = 0; i < N_SPECS; i++)
        if (!strcmp(g_specs[i].name, name)) return i;
    return -1;
}

/* The option whose name is nearest to a mistyped one, for "did you mean": within one edit for
 * a short name, two for a name of 6 characters or more; NULL when none is that near, or when
 * two are equally near (no guess between them). */
static const char *options_nearest(const char *name)
{
    NearestName n = nearest_start(name);
    for (int i = 0; i < N_SPECS; i++) nearest_offer(&n, g_specs[i].name);
    return nearest_found(&n);
}

/* Whether a typed name is part of an option's name: inside it ("pairs" in "recall-pairs"), or
 * shortened from it ("show-attn": the same first letter, then its letters in the same order). */
static bool name_part_of(const char *typed, const char *name)
{
    if (strstr(name, typed)) return true;
    if (typed[0] != name[0]) return false;
    for (; *typed && *name; name++) typed += *typed == *name;
    return !*typed;
}

/* "WHERE: unknown option (see --help)", with "; did you mean PREFIX<name>?" when one is near
 * (PREFIX "--" for a flag, "" for a config file's key), or else the options whose names hold
 * the one given as a part ("--pairs": --recall-pairs; "--show-attn": --show-attention), when
 * there are at most three. */
static bool unknown_option(char *err, size_t err_len, const char *where, const char *prefix, const char *name)
{
    const char *near = options_nearest(name);
    if (near) return errorf(err, err_len, "%s: unknown option; did you mean %s%s? (see --help)", where, prefix, near);
    const char *part[4];
    int n = 0;
    for (int i = 0; i < N_SPECS && strlen(name) >= 3; i++)
        if (name_part_of(name, g_specs[i].name) && n < 4) part[n++] = g_specs[i].name;
    if (n == 0 || n > 3) return errorf(err, err_len, "%s: unknown option (see --help)", where);
    char list[256];
    size_t used = 0;
    for (int k = 0; k < n; k++) appendf(list, sizeof list, &used, "%s%s%s", k == 0 ? "" : k == n - 1 ? " or " : ", ", prefix, part[k]);
    return errorf(err, err_len, "%s: unknown option; did you mean %s? (see --help)", where, list);
}

/* The name of an enumeration's value nearest to a mistyped one ("lokup": lookup), or NULL. */
static const char *value_nearest(const EnumValues *e, const char *typed)
{
    NearestName n = nearest_start(typed);
    for (int v = 0; e->names(v, NULL); v++) nearest_offer(&n, e->names(v, NULL));
    return nearest_found(&n);
}

/* A number must start with a digit, '-' or '.': strtol/strtod would also skip leading
 * white space and accept a '+', which a typo should not get through. */
static bool number_start(const char *v) { return (*v >= '0' && *v <= '9') || *v == '-' || *v == '.'; }

/* A finite decimal number written in full (nothing after it), or false: not hex ("0x10", which
 * strtod reads as 16, while the integer options refuse it), not too large for a double. One too
 * small for a double's full precision (5e-324) is a number: the option's range judges it. */
static bool parse_real(const char *v, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    bool overflow = errno == ERANGE && isinf(*out);
    return number_start(v) && !strpbrk(v, "xX") && !*end && !overflow && isfinite(*out);
}

/* The value of an enumerated option named v: a name of values->names, or (where numbers are
 * allowed) a number in [min, max]. */
static bool parse_enum(const OptSpec *s, const char *v, int *value, double *number)
{
    const EnumValues *e = s->values;
    *value = name_find(e->names, v);
    if (*value >= 0) return true;
    if (e->takes_number && parse_real(v, number) && *number >= s->min && *number <= s->max) {
        *value = e->number_value;
        return true;
    }
    return false;
}

/* "a|b|c", or "a, b, c or a number from X to Y", into buf. */
static const char *enum_choices(const EnumValues *e, char *buf, size_t len)
{
    const char *name;
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; (name = e->names(i, NULL)) != NULL && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? (e->takes_number ? ", " : "|") : "", name);
    if (e->takes_number && used < len) snprintf(buf + used, len - used, " or a number from %s", e->number_range);
    return buf;
}

/* The shortest text that reads back as exactly x. */
static void format_shortest(double x, char *buf, size_t len)
{
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (strtod(buf, NULL) == x) return;
    }
}

/* True when s is well-formed UTF-8 (text values end up in JSON checkpoint headers). */
static bool utf8_ok(const unsigned char *s)
{
    while (*s) {
        int extra = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2 : (*s & 0xf8) == 0xf0 ? 3 : -1;
        if (extra < 0 || (extra == 1 && *s < 0xc2)) return false;
        for (int k = 1; k <= extra; k++)
            if ((s[k] & 0xc0) != 0x80) return false;
        s += extra + 1;
    }
    return true;
}

bool options_set(Options *o, const char *name, const char *value, const char *where, char *err, size_t err_len)
{
    int i = options_index(name);
    if (i < 0 && strstr(name, "\xEF\xBB\xBF")) /* two files joined: a byte-order mark inside the text */
        return errorf(err, err_len, "%s: unknown option: the name holds an invisible byte-order mark (U+FEFF): remove it",
                      where);
    if (i < 0) return unknown_option(err, err_len, where, where[0] == '-' ? "--" : "", name);
    const OptSpec *s = &g_specs[i];
    char *field = (char *)o + s->offset;
    char *end;
    switch (s->kind) {
    case KIND_INT: {
        errno = 0;
        long v = strtol(value, &end, 10);
        if (!number_start(value) || *end || errno == ERANGE)
            return errorf(err, err_len, "%s=%s: not an integer", where, value);
        if (v < s->min || v > s->max)
            return errorf(err, err_len, "%s=%s: must be between %.0f and %.0f", where, value, s->min, s->max);
        *(int *)field = (int)v;
        return true;
    }
    case KIND_BOOL: {
        if (!strcmp(value, "1") || !strcmp(value, "true") || !strcmp(value, "yes")) *(bool *)field = true;
        else if (!strcmp(value, "0") || !strcmp(value, "false") || !strcmp(value, "no")) *(bool *)field = false;
        else return errorf(err, err_len, "%s=%s: expected 0 or 1", where, value);
        return true;
    }
    case KIND_REAL: {
        double v;
        if (!parse_real(value, &v)) return errorf(err, err_len, "%s=%s: not a finite decimal number", where, value);
        if (v < s->min || v > s->max)
            return errorf(err, err_len, "%s=%s: must be between %g and %g", where, value, s->min, s->max);
        *(double *)field = v;
        return true;
    }
    case KIND_SEED: {
        errno = 0;
        unsigned long long v = strtoull(value, &end, 10);
        if (!number_start(value) || *end || errno == ERANGE || value[0] == '-' || value[0] == '.')
            return errorf(err, err_len, "%s=%s: not a non-negative integer", where, value);
        *(uint64_t *)field = v;
        return true;
    }
    case KIND_TEXT:
        if (strlen(value) >= OPT_TEXT_LEN)
            return errorf(err, err_len, "%s: value longer than %d characters", where, OPT_TEXT_LEN - 1);
        if (!utf8_ok((const unsigned char *)value)) return errorf(err, err_len, "%s: not valid UTF-8", where);
        memcpy(field, value, strlen(value) + 1);
        return true;
    case KIND_ENUM: {
        int v;
        double number = 0;
        char choices[256];
        if (!parse_enum(s, value, &v, &number)) {
            const char *near = value_nearest(s->values, value);
            return errorf(err, err_len, "%s=%s: must be %s%s%s%s%s", where, value, s->values->takes_number ? "" : "one of ",
                          enum_choices(s->values, choices, sizeof choices), near ? "; did you mean " : "", near ? near : "",
                          near ? "?" : "");
        }
        *(int *)field = v;
        if (s->values->takes_number) *(double *)((char *)o + s->values->number_offset) = number;
        return true;
    }
    }
    return false;
}

void options_defaults(Options *o)
{
    memset(o, 0, sizeof *o);
    char err[256];
    for (int i = 0; i < N_SPECS; i++) {
        bool ok = options_set(o, g_specs[i].name, g_specs[i].def, "default", err, sizeof err);
        (void)ok;
    }
}

const char *options_format(const Options *o, int i)
{
    static char buf[OPT_TEXT_LEN + 32];
    const OptSpec *s = &g_specs[i];
    const char *field = (const char *)o + s->offset;
    switch (s->kind) {
    case KIND_INT: snprintf(buf, sizeof buf, "%d", *(const int *)field); break;
    case KIND_BOOL: snprintf(buf, sizeof buf, "%d", *(const bool *)field ? 1 : 0); break;
    case KIND_REAL: snprintf(buf, sizeof buf, "%.17g", *(const double *)field); break;
    case KIND_SEED: snprintf(buf, sizeof buf, "%llu", (unsigned long long)*(const uint64_t *)field); break;
    case KIND_TEXT: snprintf(buf, sizeof buf, "%s", field); break;
    case KIND_ENUM: {
        const EnumValues *e = s->values;
        int v = *(const int *)field;
        if (e->takes_number && v == e->number_value) format_shortest(*(const double *)((const char *)o + e->number_offset), buf, sizeof buf);
        else snprintf(buf, sizeof buf, "%s", e->names(v, NULL));
        break;
    }
    }
    return buf;
}

/* Trims spaces and tabs at both ends, in place. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = 0;
    return s;
}

bool options_parse_config(Options *o, const char *name, char *text, size_t size, OptGiven *set, char *err, size_t err_len)
{
    char where[OPT_TEXT_LEN + 64];
    int lineno = 0;
    for (size_t pos = text_bom(text, size), next; pos < size; pos = next) {
        char *line = text + pos;
        size_t n = text_line(text, size, pos, &next);
        line[n] = 0;
        lineno++;
        snprintf(where, sizeof where, "%.*s:%d", OPT_TEXT_LEN, name, lineno);
        if (strlen(line) != n) return errorf(err, err_len, "%s: contains a NUL byte", where);
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        char *s = trim(line);
        if (!*s) continue;
        char *eq = strchr(s, '=');
        if (!eq) return errorf(err, err_len, "%s: expected \"key = value\"", where);
        *eq = 0;
        char *key = trim(s), *value = trim(eq + 1);
        if (!*key) return errorf(err, err_len, "%s: missing key before '='", where);
        if (!*value) return errorf(err, err_len, "%s: missing value for \"%.64s\"", where, key);
        if (!strcmp(key, "config")) return errorf(err, err_len, "%s: a config file cannot include another", where);
        char key_where[OPT_TEXT_LEN + 160];
        snprintf(key_where, sizeof key_where, "%s: %.64s", where, key);
        if (!options_set(o, key, value, key_where, err, err_len)) return false;
        if (set) set[options_index(key)] = GIVEN_IN_CONFIG;
    }
    return true;
}

bool options_read_config(Options *o, const char *path, OptGiven *set, char *err, size_t err_len)
{
    enum { MAX_CONFIG = 1 << 20 };
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why);
    if (!f) return errorf(err, err_len, "--config=%s: %s", path, why);
    static char text[MAX_CONFIG + 1];
    size_t size = fread(text, 1, MAX_CONFIG + 1, f);
    bool read_error = ferror(f);
    fclose(f);
    if (read_error) return errorf(err, err_len, "--config=%s: read error", path);
    if (size > MAX_CONFIG) return errorf(err, err_len, "--config=%s: larger than 1 MiB", path);
    text[size] = 0;
    return options_parse_config(o, path, text, size, set, err, err_len);
}

bool options_parse_args(Options *o, int argc, char **argv, OptGiven *set, bool *help, char *err, size_t err_len)
{
    *help = false;
    /* first the config file, so that flags override it wherever they appear */
    const char *config = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strncmp(argv[i], "--help=", 7)) {
            const char *v = argv[i][1] == 'h' || !argv[i][6] ? "1" : argv[i] + 7;
            bool yes = !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes");
            if (!yes && strcmp(v, "0") && strcmp(v, "false") && strcmp(v, "no"))
                return errorf(err, err_len, "--help=%s: expected 0 or 1 (or just --help)", v);
            if (yes) {
                *help = true;
                return true;
            }
        }
        if (!strncmp(argv[i], "--config=", 9)) {
            if (config) return errorf(err, err_len, "--config given twice");
            config = argv[i] + 9;
            if (!*config) return errorf(err, err_len, "--config=: missing file name");
        }
    }
    if (config && !options_read_config(o, config, set, err, err_len)) return false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--config=", 9) || !strncmp(a, "--help=", 7)) continue; /* read above */
        if (strncmp(a, "--", 2) != 0)
            return errorf(err, err_len, "unexpected argument \"%s\" (options look like --name=value)", a);
        const char *eq = strchr(a, '=');
        char name[64];
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len == 0 || len >= sizeof name) return errorf(err, err_len, "%s: unknown option (see --help)", a);
        memcpy(name, a + 2, len);
        name[len] = 0;
        int idx = options_index(name);
        if (idx < 0) {
            char where[80];
            snprintf(where, sizeof where, "--%s", name);
            return unknown_option(err, err_len, where, "--", name);
        }
        if (!eq) {
            if (g_specs[idx].kind != KIND_BOOL) return errorf(err, err_len, "--%s: missing value (use --%s=VALUE)", name, name);
            eq = "=1";
        }
        char where[80];
        snprintf(where, sizeof where, "--%s", name);
        if (!options_set(o, name, eq + 1, where, err, err_len)) return false;
        set[idx] = GIVEN_AS_FLAG;
    }
    return true;
}

bool options_validate(const Options *o, char *err, size_t err_len)
{
    const TaskSpec *task = task_spec(o->data.task);
    bool corpus = o->data.path[0] != 0;
    if (corpus && !task->load && o->data.task != name_find(task_name, g_specs[options_index("task")].def))
        return errorf(err, err_len, "--data=%s with --task=%s: a corpus file is its own task (drop --task)", o->data.path,
                      task->name);
    if (!corpus && task->load) return errorf(err, err_len, "--task=%s needs --data=FILE", task->name);
    if (corpus && o->data.test_size > 0)
        return errorf(err, err_len, "--test-size=%d with --data=%s: a corpus's held-out part is chosen from its sources' "
                                    "hashes; --test-size is for the synthetic tasks", o->data.test_size, o->data.path);
    if (o->data.min_len > o->data.max_len)
        return errorf(err, err_len, "--min-len=%d is larger than --max-len=%d", o->data.min_len, o->data.max_len);
    if (task->validate && !task->validate(&o->data, err, err_len)) return false;
    int dk = o->model.dk;
    if (dk == 0) {
        if (o->model.dmodel % o->model.heads)
            return errorf(err, err_len, "--heads=%d does not divide --dmodel=%d (set --dk to choose the head size)", o->model.heads, o->model.dmodel);
        dk = o->model.dmodel / o->model.heads;
    }
    if ((double)o->model.heads * dk > 65536)
        return errorf(err, err_len, "--heads=%d x --dk=%d is larger than 65536", o->model.heads, dk);
    if (o->optim.min_lr > o->optim.lr) return errorf(err, err_len, "--min-lr=%g is larger than --lr=%g", o->optim.min_lr, o->optim.lr);
    if (o->run.stop_at > o->optim.steps) return errorf(err, err_len, "--stop-at=%d is past --steps=%d", o->run.stop_at, o->optim.steps);
    /* --print-tape and --tape-dot look at one step and stop: an output of training would stay unwritten */
    const char *describe = o->run.print_tape ? "--print-tape" : o->run.tape_dot[0] ? "--tape-dot" : NULL;
    const char *unwritten = o->run.save[0] ? "save" : o->run.log[0] ? "log" : o->run.attention_svg[0] ? "attention-svg" : NULL;
    if (describe && unwritten)
        return errorf(err, err_len, "%s describes one step and exits without training: it writes no %s (drop --%s)", describe,
                      o->run.save[0] ? "checkpoint" : o->run.log[0] ? "log" : "figure", unwritten);
    /* no step trained: the grid "after training" is the one at initialisation, drawn twice */
    if (o->run.attention_svg[0] && o->run.attention_svg_at == ATTENTION_AT_BOTH && o->optim.steps == 0)
        return errorf(err, err_len, "--attention-svg-at=both with --steps=0: nothing is trained, so both grids would be the "
                                    "initial weights (give --attention-svg-at=init)");
    return true; /* memory is checked by ./train once the vocabulary and lengths are known */
}

/* ------------------------------------------------------------------ flags that would do nothing */

static bool matters_when_decoding(int i)
{
    return (g_specs[i].group != GROUP_TRAIN && g_specs[i].group != GROUP_RUN) || g_specs[i].decode == DECODE_USES;
}

void options_decode_ignore_config(Options *o, const OptGiven *set)
{
    char err[256];
    for (int i = 0; i < N_SPECS; i++)
        if (set[i] == GIVEN_IN_CONFIG && g_specs[i].group == GROUP_RUN && !matters_when_decoding(i)) {
            bool ok = options_set(o, g_specs[i].name, g_specs[i].def, "default", err, sizeof err);
            (void)ok; /* a default always parses */
        }
}

/* Whether option i holds a value other than its default. (At its default an option does nothing
 * wherever it was given, e.g. `scale = sqrt` in a config file used for a cosine run.) */
static bool off_default(const Options *o, int i)
{
    static Options defaults;
    static bool have_defaults;
    if (!have_defaults) options_defaults(&defaults);
    have_defaults = true;
    char value[OPT_TEXT_LEN + 32];
    snprintf(value, sizeof value, "%s", options_format(o, i));
    return strcmp(value, options_format(&defaults, i)) != 0;
}

/* Refuses option i, given (set) with a value other than its default, that needs `needs`. */
static bool refuse_given(const Options *o, const OptGiven *set, int i, const char *needs, char *err, size_t err_len)
{
    if (!set[i] || !off_default(o, i)) return true;
    char value[OPT_TEXT_LEN + 32];
    snprintf(value, sizeof value, "%s", options_format(o, i));
    if (g_specs[i].kind == KIND_REAL) format_shortest(*(const double *)((const char *)o + g_specs[i].offset), value, sizeof value);
    return errorf(err, err_len, "--%s=%s does nothing here: it needs %s", g_specs[i].name, value, needs);
}

/* With --decode: an option of training or of its outputs given as a flag is refused (one from a
 * --config file is not: the file was written for a training run). */
static bool check_decoding(const Options *o, const OptGiven *set, char *err, size_t err_len)
{
    for (int i = 0; i < N_SPECS; i++) {
        if (matters_when_decoding(i) || set[i] != GIVEN_AS_FLAG || !off_default(o, i)) continue;
        const char *instead = g_specs[i].decode_instead;
        if (instead) return errorf(err, err_len, "--%s does not apply with --decode (%s)", g_specs[i].name, instead);
        return refuse_given(o, set, i, "a training run (--decode only runs the model on its input)", err, err_len);
    }
    return true;
}

bool options_check_given(const Options *o, const OptGiven *set, char *err, size_t err_len)
{
    if (o->run.decode && !check_decoding(o, set, err, err_len)) return false;
    for (int i = 0; i < N_SPECS; i++) {
        const OptNeeds *needs = g_specs[i].needs;
        if (!needs || (o->run.decode && !matters_when_decoding(i))) continue; /* decoding: checked above */
        if (needs->met(o, g_specs[i].name)) continue;
        char text[1024], aside[256] = "";
        if (needs->say) needs->say(g_specs[i].name, text, sizeof text);
        else snprintf(text, sizeof text, "%s", needs->text);
        if (g_specs[i].needs_aside) snprintf(aside, sizeof aside, " (%s)", g_specs[i].needs_aside);
        strncat(text, aside, sizeof text - strlen(text) - 1);
        if (!refuse_given(o, set, i, text, err, err_len)) return false;
    }
    /* a data option that only some tasks read (the tasks' rows), given with another task */
    for (int i = 0; i < N_SPECS; i++) {
        if (!g_specs[i].per_task || !options_task_ignores(o, g_specs[i].name)) continue;
        char tasks[256] = "", text[300];
        needs_tasks_reading(g_specs[i].name, tasks, sizeof tasks);
        snprintf(text, sizeof text, "--task=%s", tasks);
        if (!refuse_given(o, set, i, text, err, err_len)) return false;
    }
    return true;
}

int options_help_section(int i) { return g_specs[i].section != SECTION_NONE ? (int)g_specs[i].section : -1; }

static void print_option_help(const OptSpec *s)
{
    /* the mark says what resuming from a checkpoint does with the option */
    const char *mark = s->group == GROUP_DATA || s->group == GROUP_MODEL ? " *" : s->group == GROUP_TRAIN ? " +" : "";
    char left[64];
    snprintf(left, sizeof left, "  --%s=%s%s", s->name, *s->def ? s->def : "\"\"", mark);
    char tasks[256] = "";
    if (s->per_task) needs_tasks_reading(s->name, tasks, sizeof tasks);
    printf("%-30s %s%s%s\n", left, tasks, *tasks ? ": " : "", s->help);
    if (s->kind != KIND_ENUM) return;
    const char *name, *help;
    for (int v = 0; (name = s->values->names(v, &help)) != NULL; v++) printf("%34s%-10s %s\n", "", name, help);
    if (s->values->takes_number) printf("%34s%-10s a number from %s\n", "", "c", s->values->number_range);
}

void options_print_help(const char *program)
{
    printf("usage: %s [--config=FILE] [--name=value ...]\n"
           "       %s --load=FILE --decode [--show-attention] [--temperature=T [--top-k=K] [--seed=N]]\n"
           "                                (sources on stdin, one per line)\n\n"
           "Trains a small GPT-style transformer on a toy task and logs what attention does.\n"
           "A config file holds \"name = value\" lines with the same names; flags override it.\n"
           "--decode talks to a trained model instead: each source line read from standard input (words\n"
           "separated by spaces, e.g. \"C A B\") gives one output line, its greedy decoding; the task,\n"
           "vocabulary and model come from the checkpoint. A line that cannot be decoded (an unknown\n"
           "word, too long for the context, empty) is reported on stderr as \"line N: ...\" and skipped;\n"
           "one of a length the model was not trained on is decoded, with a warning on stderr.\n"
           "With --temperature=T > 0 each token is sampled instead (the same --seed, the same output).\n"
           "Resuming (--load): options marked * are fixed by the checkpoint, those marked + are stored\n"
           "in it and may be changed, the others apply to this run only.\n\n", program, program);
    for (int k = SECTION_NONE + 1; k < N_SECTIONS; k++) {
        printf("%s:\n", g_section_titles[k]);
        for (int i = 0; i < N_SPECS; i++)
            if (g_specs[i].section == (HelpSection)k) print_option_help(&g_specs[i]);
        printf("\n");
    }
    printf("exit status: 0 done, 2 bad input (flags, config, data, checkpoint; with --decode, any line skipped),\n"
           "             3 non-finite value (--nan=stop)\n");
}

/* ------------------------------------------------------------------ the command of a run */

/* value as one shell word: as it is when it holds only safe characters, else in single quotes
 * (a ' inside written '\''). */
static void append_word(char *buf, size_t len, size_t *used, const char *value)
{
    bool plain = *value != 0;
    for (const char *c = value; *c; c++)
        plain &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("-_.,:/+=", *c);
    if (plain) {
        appendf(buf, len, used, "%s", value);
        return;
    }
    appendf(buf, len, used, "'");
    for (const char *c = value; *c; c++) appendf(buf, len, used, "%s", *c == '\'' ? "'\\''" : (char[2]){*c, 0});
    appendf(buf, len, used, "'");
}

/* Whether option i belongs in a command that makes a model: stored in checkpoints, or --stop-at. */
static bool makes_the_model(int i) { return g_specs[i].group != GROUP_RUN || !strcmp(g_specs[i].name, "stop-at"); }

/* " --name=value" of option i, its number in the shortest form that reads back. */
static void append_option(char *buf, size_t len, size_t *used, const Options *o, int i)
{
    char mine[OPT_TEXT_LEN + 32];
    snprintf(mine, sizeof mine, "%s", options_format(o, i));
    if (g_specs[i].kind == KIND_REAL) format_shortest(*(const double *)((const char *)o + g_specs[i].offset), mine, sizeof mine);
    appendf(buf, len, used, " --%s=", g_specs[i].name);
    append_word(buf, len, used, mine);
}

void options_command_line(const Options *o, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "./train");
    for (int i = 0; i < N_SPECS; i++)
        if (makes_the_model(i) && off_default(o, i)) append_option(buf, len, &used, o, i);
}

void options_resume_command(const Options *o, const OptGiven *set, const char *load, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "./train --load=");
    append_word(buf, len, &used, load);
    /* every one given, even at its default: a given value replaces the checkpoint's */
    for (int i = 0; i < N_SPECS; i++)
        if (makes_the_model(i) && set[i]) append_option(buf, len, &used, o, i);
}
