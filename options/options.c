/* options.c - the option table and its parsers. Every user error is one line naming the
 * flag (or the file and line) and what is wrong with it. */
#include "options.h"
#include "../base/threads.h"

#include "../instrument/attention_svg.h"
#include "../instrument/forensics.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
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

typedef struct OptSpec {
    const char *name;
    OptKind kind;
    OptGroup group;
    size_t offset;
    const char *def;
    double min, max;             /* for numbers */
    const EnumValues *values;    /* KIND_ENUM */
    const char *help;
} OptSpec;

#define OFF(field) offsetof(Options, field)

/* An enumerated option is stored as an int in a field of the module's enum type: the same size. */
_Static_assert(sizeof(TaskKind) == sizeof(int) && sizeof(AttnKind) == sizeof(int) && sizeof(ScaleMode) == sizeof(int) &&
                   sizeof(ScaleParam) == sizeof(int) && sizeof(QkInit) == sizeof(int) && sizeof(NumFormat) == sizeof(int) &&
                   sizeof(SoftmaxKind) == sizeof(int) && sizeof(OptimKind) == sizeof(int) &&
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

static const OptSpec g_specs[] = {
    /* task and data */
    {"task", KIND_ENUM, GROUP_DATA, OFF(data.task), "copy", 0, 0, &g_tasks, "toy task (tsv: set by --data)"},
    {"data", KIND_TEXT, GROUP_DATA, OFF(data.path), "", 0, 0, NULL, "parallel corpus, one source<TAB>target pair per line"},
    {"symbols", KIND_INT, GROUP_DATA, OFF(data.symbols), "10", 1, 1000, NULL, "copy/reverse/sort: alphabet size"},
    {"min-len", KIND_INT, GROUP_DATA, OFF(data.min_len), "3", 1, 64, NULL, "copy/reverse/sort: shortest source"},
    {"max-len", KIND_INT, GROUP_DATA, OFF(data.max_len), "8", 1, 64, NULL, "copy/reverse/sort: longest source"},
    {"val-size", KIND_INT, GROUP_DATA, OFF(data.val_size), "512", 1, 1000000, NULL, "synthetic tasks: held-out validation examples"},
    {"test-size", KIND_INT, GROUP_DATA, OFF(data.test_size), "0", 0, 1000000, NULL, "synthetic tasks: held-out test examples, evaluated once at the end"},
    {"recall-pairs", KIND_INT, GROUP_DATA, OFF(data.recall_pairs), "4", 1, 31, NULL, "recall: key-value pairs per example (at most --recall-keys)"},
    {"recall-keys", KIND_INT, GROUP_DATA, OFF(data.recall_keys), "16", 1, 1000, NULL, "recall: key alphabet size (k0, k1 ...)"},
    {"recall-values", KIND_INT, GROUP_DATA, OFF(data.recall_values), "16", 2, 1000, NULL, "recall: value alphabet size (v0, v1 ...)"},
    {"recall-queries", KIND_INT, GROUP_DATA, OFF(data.recall_queries), "1", 1, 31, NULL, "recall: keys asked for, each answered by its value (at most --recall-pairs)"},
    /* model */
    {"layers", KIND_INT, GROUP_MODEL, OFF(model.layers), "2", 1, 24, NULL, "decoder blocks"},
    {"dmodel", KIND_INT, GROUP_MODEL, OFF(model.dmodel), "64", 1, 16384, NULL, "model width C"},
    {"heads", KIND_INT, GROUP_MODEL, OFF(model.heads), "4", 1, 1024, NULL, "attention heads H"},
    {"dk", KIND_INT, GROUP_MODEL, OFF(model.dk), "0", 0, 16384, NULL, "head size (0: dmodel / heads)"},
    {"context", KIND_INT, GROUP_MODEL, OFF(model.context), "0", 0, 16384, NULL, "positions (0: what the task needs)"},
    {"scale", KIND_ENUM, GROUP_MODEL, OFF(model.scale_mode), "sqrt", 1e-4, 1e8, &g_scales, "score multiplier: 1, sqrt (1/sqrt dk), dk (1/dk), learned, or c (1/c)"},
    {"attn", KIND_ENUM, GROUP_MODEL, OFF(model.attn), "dot", 0, 0, &g_attn_kinds, "how a head forms its scores"},
    {"scale-init", KIND_ENUM, GROUP_MODEL, OFF(model.scale_init), "sqrt", 1e-4, 1e8, &g_scale_inits, "--scale=learned: the start, 1, sqrt (1/sqrt dk), dk (1/dk) or c (1/c)"},
    {"scale-param", KIND_ENUM, GROUP_MODEL, OFF(model.scale_param), "linear", 0, 0, &g_scale_params, "how a learned multiplier (--scale=learned, cosine's tau) is stored"},
    {"tau-init", KIND_REAL, GROUP_MODEL, OFF(model.tau_init), "10", 1e-4, 1e4, NULL, "--attn=cosine: the temperature tau's start"},
    {"qk-init", KIND_ENUM, GROUP_MODEL, OFF(model.qk_init), "xavier", 0, 0, &g_qk_inits, "how Wq and Wk start"},
    {"init-gain", KIND_REAL, GROUP_MODEL, OFF(model.init_gain), "1", 1e-6, 1e3, NULL, "multiplies every Xavier (and unit) bound"},
    {"precision", KIND_ENUM, GROUP_TRAIN, OFF(model.precision), "fp32", 0, 0, &g_formats, "the attention path (q, k, v, scores, weights, P v) rounded to"},
    {"softmax", KIND_ENUM, GROUP_TRAIN, OFF(model.softmax), "stable", 0, 0, &g_softmaxes, "the attention softmax"},
    {"attn-dropout", KIND_REAL, GROUP_TRAIN, OFF(model.attn_dropout), "0", 0, 0.999, NULL, "dropout on attention weights"},
    {"dropout", KIND_REAL, GROUP_TRAIN, OFF(model.dropout), "0", 0, 0.999, NULL, "dropout on embeddings and residual branches"},
    /* optimisation */
    {"optim", KIND_ENUM, GROUP_TRAIN, OFF(optim.kind), "adamw", 0, 0, &g_optimizers, "optimizer"},
    {"batch", KIND_INT, GROUP_TRAIN, OFF(run.batch), "32", 1, 65536, NULL, "sequences per step"},
    {"steps", KIND_INT, GROUP_TRAIN, OFF(optim.steps), "600", 0, 100000000, NULL, "training steps (the schedule's length)"},
    {"lr", KIND_REAL, GROUP_TRAIN, OFF(optim.lr), "3e-3", 0, 1e6, NULL, "peak learning rate"},
    {"warmup", KIND_INT, GROUP_TRAIN, OFF(optim.warmup), "50", 0, 100000000, NULL, "linear warmup steps"},
    {"min-lr", KIND_REAL, GROUP_TRAIN, OFF(optim.min_lr), "3e-4", 0, 1e6, NULL, "learning rate at the end of the cosine"},
    {"weight-decay", KIND_REAL, GROUP_TRAIN, OFF(optim.weight_decay), "0.01", 0, 1e3, NULL, "decoupled weight decay on 2-D weights (incl. embeddings; not biases, LN, scales)"},
    {"clip", KIND_REAL, GROUP_TRAIN, OFF(run.clip), "1", 0, 1e12, NULL, "max global gradient norm (0: off)"},
    {"beta1", KIND_REAL, GROUP_TRAIN, OFF(optim.beta1), "0.9", 0, 0.999999, NULL, "Adam first-moment decay"},
    {"beta2", KIND_REAL, GROUP_TRAIN, OFF(optim.beta2), "0.98", 0, 0.999999, NULL, "Adam second-moment decay"},
    {"eps", KIND_REAL, GROUP_TRAIN, OFF(optim.eps), "1e-8", 1e-30, 1, NULL, "Adam denominator guard"},
    {"momentum", KIND_REAL, GROUP_TRAIN, OFF(optim.momentum), "0", 0, 0.999999, NULL, "--optim=sgd: heavy-ball momentum mu (0: plain SGD)"},
    {"seed", KIND_SEED, GROUP_DATA, OFF(data.seed), "1", 0, 0, NULL, "seeds init, data (and the validation split) and dropout"},
    {"loss-threshold", KIND_REAL, GROUP_TRAIN, OFF(run.loss_threshold), "0.1", 0, 1e9, NULL, "summary: first step whose mean loss is below"},
    /* the run */
    {"threads", KIND_INT, GROUP_RUN, OFF(run.threads), "0", 0, THREADS_MAX, NULL, "OpenMP threads (0: $OMP_NUM_THREADS if set, else one per core this process may use, fewer while other programs keep them busy); results do not depend on it"},
    {"log", KIND_TEXT, GROUP_RUN, OFF(run.log), "", 0, 0, NULL, "CSV file for the metrics"},
    {"log-every", KIND_INT, GROUP_TRAIN, OFF(run.log_every), "50", 1, 100000000, NULL, "steps between log lines"},
    {"eval-every", KIND_INT, GROUP_TRAIN, OFF(run.eval_every), "200", 0, 100000000, NULL, "steps between evaluations (0: at the end only)"},
    {"eval-examples", KIND_INT, GROUP_TRAIN, OFF(run.eval_examples), "256", 1, 1000000, NULL, "held-out examples per evaluation"},
    {"examples", KIND_INT, GROUP_RUN, OFF(run.examples), "3", 0, 1000, NULL, "decoded examples printed at the end"},
    {"save", KIND_TEXT, GROUP_RUN, OFF(run.save), "", 0, 0, NULL, "write a checkpoint here (safetensors)"},
    {"save-every", KIND_INT, GROUP_RUN, OFF(run.save_every), "0", 0, 100000000, NULL, "also save every N steps (0: only at the end)"},
    {"load", KIND_TEXT, GROUP_RUN, OFF(run.load), "", 0, 0, NULL, "resume from this checkpoint; one at the run's end already (its --steps, or --stop-at=its step) is only evaluated and drawn; with --decode: the model to decode with"},
    {"stop-at", KIND_INT, GROUP_RUN, OFF(run.stop_at), "0", 0, 100000000, NULL, "stop after this step (0: --steps); the schedule still spans --steps"},
    {"dump-state", KIND_TEXT, GROUP_RUN, OFF(run.dump_state), "", 0, 0, NULL, "write everything about the first step here (and the attention of --attention-example)"},
    {"attention-svg", KIND_TEXT, GROUP_RUN, OFF(run.attention_svg), "", 0, 0, NULL, "draw every head's attention weights on one validation example here (SVG heatmaps)"},
    {"attention-svg-at", KIND_ENUM, GROUP_RUN, OFF(run.attention_svg_at), "end", 0, 0, &g_attention_at, "--attention-svg: which weights"},
    {"attention-example", KIND_INT, GROUP_RUN, OFF(run.attention_example), "0", 0, 1000000, NULL, "--attention-svg, --dump-state: the validation example (0: the first)"},
    {"nan", KIND_ENUM, GROUP_TRAIN, OFF(run.nan), "stop", 0, 0, &g_nan_modes, "on a NaN/Inf: stop (exit 3) or count and skip the update"},
    {"inject", KIND_TEXT, GROUP_RUN, OFF(run.inject), "", 0, 0, NULL, "testing faults: nan:STEP:PARAM, nan:STEP:grad.PARAM, crash-in-save:N, crash-after-step:N"},
    {"quiet", KIND_BOOL, GROUP_RUN, OFF(run.quiet), "0", 0, 1, NULL, "only the summary line"},
    {"print-tape", KIND_BOOL, GROUP_RUN, OFF(run.print_tape), "0", 0, 1, NULL, "print the ops the first step records (shapes, FLOPs, memory), then exit without training"},
    {"tape-dot", KIND_TEXT, GROUP_RUN, OFF(run.tape_dot), "", 0, 0, NULL, "write the first step's graph here (Graphviz DOT), then exit without training"},
    {"decode", KIND_BOOL, GROUP_RUN, OFF(run.decode), "0", 0, 1, NULL, "no training: print the greedy decoding of each source read from stdin, one per line (needs --load)"},
    {"show-attention", KIND_BOOL, GROUP_RUN, OFF(run.show_attention), "0", 0, 1, NULL, "--decode: per output token, the source token the last layer attends to most (mean over heads)"},
};

enum { N_SPECS = (int)(sizeof g_specs / sizeof g_specs[0]) };
_Static_assert(N_SPECS <= OPTIONS_MAX, "OPTIONS_MAX is too small for the option table");

int options_count(void) { return N_SPECS; }
const char *options_name(int i) { return g_specs[i].name; }
OptGroup options_group(int i) { return g_specs[i].group; }
const char *options_default(int i) { return g_specs[i].def; }

int options_index(const char *name)
{
    for (int i = 0; i < N_SPECS; i++)
        if (!strcmp(g_specs[i].name, name)) return i;
    return -1;
}

/* A number must start with a digit, '-' or '.': strtol/strtod would also skip leading
 * white space and accept a '+', which a typo should not get through. */
static bool number_start(const char *v) { return (*v >= '0' && *v <= '9') || *v == '-' || *v == '.'; }

/* A finite number written in full (nothing after it), or false. */
static bool parse_real(const char *v, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(v, &end);
    return number_start(v) && !*end && errno != ERANGE && isfinite(*out);
}

/* The value of an enumerated option named v: a name of values->names, or (where numbers are
 * allowed) a number in [min, max]. */
static bool parse_enum(const OptSpec *s, const char *v, int *value, double *number)
{
    const EnumValues *e = s->values;
    const char *name;
    for (int i = 0; (name = e->names(i, NULL)) != NULL; i++)
        if (!strcmp(name, v)) {
            *value = i;
            return true;
        }
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
    if (i < 0) return errorf(err, err_len, "%s: unknown option \"%s\" (see --help)", where, name);
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
        if (!parse_real(value, &v)) return errorf(err, err_len, "%s=%s: not a finite number", where, value);
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
        if (!parse_enum(s, value, &v, &number))
            return errorf(err, err_len, "%s=%s: must be %s%s", where, value, s->values->takes_number ? "" : "one of ",
                          enum_choices(s->values, choices, sizeof choices));
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
        if (idx < 0) return errorf(err, err_len, "--%s: unknown option (see --help)", name);
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
    bool tsv = o->data.path[0] != 0;
    if (tsv && o->data.task != TASK_COPY && o->data.task != TASK_TSV)
        return errorf(err, err_len, "--data=%s with --task=%s: a corpus file is its own task (drop --task)", o->data.path,
                      task_name(o->data.task, NULL));
    if (!tsv && o->data.task == TASK_TSV) return errorf(err, err_len, "--task=tsv needs --data=FILE");
    if (tsv && o->data.test_size > 0)
        return errorf(err, err_len, "--test-size=%d with --data=%s: a corpus's held-out part is chosen from its sources' "
                                    "hashes; --test-size is for the synthetic tasks", o->data.test_size, o->data.path);
    if (o->data.min_len > o->data.max_len)
        return errorf(err, err_len, "--min-len=%d is larger than --max-len=%d", o->data.min_len, o->data.max_len);
    if (o->data.task == TASK_RECALL && o->data.recall_pairs > o->data.recall_keys)
        return errorf(err, err_len, "--recall-pairs=%d is more than --recall-keys=%d: the keys of an example are distinct",
                      o->data.recall_pairs, o->data.recall_keys);
    if (o->data.task == TASK_RECALL && o->data.recall_queries > o->data.recall_pairs)
        return errorf(err, err_len, "--recall-queries=%d is more than --recall-pairs=%d: each query asks for another pair",
                      o->data.recall_queries, o->data.recall_pairs);
    if (o->data.task == TASK_RECALL && 2 * o->data.recall_pairs + o->data.recall_queries > 64)
        return errorf(err, err_len, "--recall-pairs=%d with --recall-queries=%d: a source of %d tokens, more than 64",
                      o->data.recall_pairs, o->data.recall_queries, 2 * o->data.recall_pairs + o->data.recall_queries);
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

static bool dot_like(const Options *o) { return o->model.attn == ATTN_DOT || o->model.attn == ATTN_QKNORM; }
static bool scaled_by_flag(const Options *o) { return dot_like(o); }
static bool learned_scale(const Options *o) { return dot_like(o) && o->model.scale_mode == SCALE_LEARNED; }
static bool head_multiplier(const Options *o) { return learned_scale(o) || o->model.attn == ATTN_COSINE; }
static bool cosine(const Options *o) { return o->model.attn == ATTN_COSINE; }
static bool sgd(const Options *o) { return o->optim.kind == OPTIM_SGD; }
static bool adam(const Options *o) { return o->optim.kind == OPTIM_ADAMW; }
static bool decoding(const Options *o) { return o->run.decode; }
static bool drawn(const Options *o) { return o->run.attention_svg[0] != 0; }
static bool held_out_attention(const Options *o) { return o->run.attention_svg[0] || o->run.dump_state[0]; }

/* Each option of the model, the optimizer or an output that matters only in some configurations,
 * and what it needs. (The data options that shape one task, --symbols or --recall-pairs, are not here:
 * one set of them serves a grid of several tasks, and each task reads its own.) */
static const struct {
    const char *name;
    bool (*matters)(const Options *o);
    const char *needs;
} g_relevance[] = {
    {"scale", scaled_by_flag, "--attn=dot or qknorm (cosine scores are tau cos(q, k), with a learned tau: see "
                              "--tau-init; additive scores v.tanh(q_i + k_j) are not scaled, which is the claim "
                              "under test)"},
    {"scale-init", learned_scale, "--scale=learned (with --attn=dot or qknorm)"},
    {"scale-param", head_multiplier, "--scale=learned or --attn=cosine"},
    {"tau-init", cosine, "--attn=cosine"},
    {"momentum", sgd, "--optim=sgd (AdamW's momentum is --beta1)"},
    {"beta1", adam, "--optim=adamw"},
    {"beta2", adam, "--optim=adamw"},
    {"eps", adam, "--optim=adamw"},
    {"show-attention", decoding, "--decode"},
    {"attention-svg-at", drawn, "--attention-svg=FILE"},
    {"attention-example", held_out_attention, "--attention-svg=FILE or --dump-state=FILE"},
};

/* With --decode nothing is trained and nothing written but standard output: of the options of
 * training and of the run, only these do something (how the forward pass computes, the model,
 * the threads). Every other one given as a flag is refused, a new one too until it is listed
 * here. (The model's and the data's options are checked against the checkpoint instead.) */
static const char *const g_decode_options[] = {"precision", "softmax", "load", "threads", "decode", "show-attention"};

/* The options refused with --decode that do something with a checkpoint without training it:
 * what to run instead. */
static const char *const g_decode_instead[][2] = {
    {"attention-svg", "draw a checkpoint with ./train --load=FILE --attention-svg=FILE"},
    {"attention-svg-at", "draw a checkpoint with ./train --load=FILE --attention-svg=FILE --attention-svg-at=WHICH"},
    {"attention-example", "draw a checkpoint with ./train --load=FILE --attention-svg=FILE --attention-example=N"},
    {"print-tape", "see the tape of a checkpoint's next step with ./train --load=FILE --print-tape"},
    {"tape-dot", "graph a checkpoint's next step with ./train --load=FILE --tape-dot=FILE"},
    {"dump-state", "dump a checkpoint's next step with ./train --load=FILE --dump-state=FILE"},
};

static bool matters_when_decoding(int i)
{
    if (g_specs[i].group != GROUP_TRAIN && g_specs[i].group != GROUP_RUN) return true;
    for (size_t k = 0; k < sizeof g_decode_options / sizeof g_decode_options[0]; k++)
        if (!strcmp(g_decode_options[k], g_specs[i].name)) return true;
    return false;
}

static const char *decode_instead(int i)
{
    for (size_t k = 0; k < sizeof g_decode_instead / sizeof g_decode_instead[0]; k++)
        if (!strcmp(g_decode_instead[k][0], g_specs[i].name)) return g_decode_instead[k][1];
    return NULL;
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
        const char *instead = decode_instead(i);
        if (instead) return errorf(err, err_len, "--%s does not apply with --decode (%s)", g_specs[i].name, instead);
        return refuse_given(o, set, i, "a training run (--decode only runs the model on its input)", err, err_len);
    }
    return true;
}

bool options_check_given(const Options *o, const OptGiven *set, char *err, size_t err_len)
{
    if (o->run.decode && !check_decoding(o, set, err, err_len)) return false;
    for (size_t k = 0; k < sizeof g_relevance / sizeof g_relevance[0]; k++) {
        int i = options_index(g_relevance[k].name);
        if (o->run.decode && !matters_when_decoding(i)) continue; /* decoding uses none of them: checked above */
        if (!g_relevance[k].matters(o) && !refuse_given(o, set, i, g_relevance[k].needs, err, err_len)) return false;
    }
    return true;
}

/* --help shows the options by what they are about, in this order; the table above is ordered
 * by what a checkpoint does with them (options_group). Every option is in exactly one
 * section (tests/test_io.c checks it). */
static const char *const g_help_sections[][24] = {
    {"task and data", "task", "data", "symbols", "min-len", "max-len", "recall-pairs", "recall-keys",
     "recall-values", "recall-queries", "val-size", "test-size", "seed", NULL},
    {"model", "layers", "dmodel", "heads", "dk", "context", "init-gain", "dropout", NULL},
    {"attention", "scale", "attn", "scale-init", "scale-param", "tau-init", "qk-init", "precision", "softmax",
     "attn-dropout", NULL},
    {"training", "optim", "lr", "min-lr", "warmup", "steps", "batch", "weight-decay", "clip", "beta1", "beta2",
     "eps", "momentum", "nan", "threads", NULL},
    {"evaluation and output", "eval-every", "eval-examples", "examples", "log", "log-every", "loss-threshold",
     "quiet", "attention-svg", "attention-svg-at", "attention-example", NULL},
    {"checkpoints", "save", "save-every", "load", "stop-at", NULL},
    {"talking to a trained model (with --load)", "decode", "show-attention", NULL},
    {"debugging", "print-tape", "tape-dot", "dump-state", "inject", NULL},
};
enum { N_HELP_SECTIONS = (int)(sizeof g_help_sections / sizeof g_help_sections[0]) };

int options_help_section(int i)
{
    for (int k = 0; k < N_HELP_SECTIONS; k++)
        for (int j = 1; g_help_sections[k][j]; j++)
            if (!strcmp(g_help_sections[k][j], g_specs[i].name)) return k;
    return -1;
}

static void print_option_help(const OptSpec *s)
{
    /* the mark says what resuming from a checkpoint does with the option */
    const char *mark = s->group == GROUP_DATA || s->group == GROUP_MODEL ? " *" : s->group == GROUP_TRAIN ? " +" : "";
    char left[64];
    snprintf(left, sizeof left, "  --%s=%s%s", s->name, *s->def ? s->def : "\"\"", mark);
    printf("%-30s %s\n", left, s->help);
    if (s->kind != KIND_ENUM) return;
    const char *name, *help;
    for (int v = 0; (name = s->values->names(v, &help)) != NULL; v++) printf("%34s%-10s %s\n", "", name, help);
    if (s->values->takes_number) printf("%34s%-10s a number from %s\n", "", "c", s->values->number_range);
}

void options_print_help(const char *program)
{
    printf("usage: %s [--config=FILE] [--name=value ...]\n"
           "       %s --load=FILE --decode [--show-attention]    (sources on stdin, one per line)\n\n"
           "Trains a small GPT-style transformer on a toy task and logs what attention does.\n"
           "A config file holds \"name = value\" lines with the same names; flags override it.\n"
           "--decode talks to a trained model instead: each source line read from standard input (words\n"
           "separated by spaces, e.g. \"C A B\") gives one output line, its greedy decoding; the task,\n"
           "vocabulary and model come from the checkpoint. A line that cannot be decoded (an unknown\n"
           "word, too long for the context, empty) is reported on stderr as \"line N: ...\" and skipped;\n"
           "one of a length the model was not trained on is decoded, with a warning on stderr.\n"
           "Resuming (--load): options marked * are fixed by the checkpoint, those marked + are stored\n"
           "in it and may be changed, the others apply to this run only.\n\n", program, program);
    for (int k = 0; k < N_HELP_SECTIONS; k++) {
        printf("%s:\n", g_help_sections[k][0]);
        for (int j = 1; g_help_sections[k][j]; j++) {
            int i = options_index(g_help_sections[k][j]);
            assert(i >= 0); /* a section names an option that does not exist */
            print_option_help(&g_specs[i]);
        }
        printf("\n");
    }
    printf("exit status: 0 done, 2 bad input (flags, config, data, checkpoint; with --decode, any line skipped),\n"
           "             3 non-finite value (--nan=stop)\n");
}

/* ------------------------------------------------------------------ the command of a run */

/* Appends to buf[0 .. len) at *used, as snprintf would (nothing once it is full). */
static void appendf(char *buf, size_t len, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
    if (*used >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, len - *used, fmt, ap);
    va_end(ap);
    *used += n > 0 ? (size_t)n : 0;
}

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
