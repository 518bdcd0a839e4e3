/* checkpoint.c - saving and loading runs; see docs/FORMAT.md for the layout. */
#include "checkpoint.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* /3 (since 2026-12-07): only the chosen optimizer's state; /2: every optimizer's state kept under
 * the run's settings (an SGD run's file holds AdamW's m and v, all zero); /1 (before 2026-11-30):
 * as /2, but the checksum covers the data section only, not the whole file. All three are read:
 * a state buffer the run does not keep is skipped, one it keeps and the file lacks starts at 0. */
#define FORMAT_CHECKPOINT "attention-scale-checkpoint/3"
#define FORMAT_CHECKPOINT_V2 "attention-scale-checkpoint/2"
#define FORMAT_CHECKPOINT_V1 "attention-scale-checkpoint/1"
#define FORMAT_DUMP "attention-scale-dump/2"

/* Field k of a rounding count, in the order of the keys "run.fp_overflows", "run.fp_underflows",
 * "run.fp_nans". */
static long *count_of(FormatCounts *c, int k) { return k == 0 ? &c->overflow : k == 1 ? &c->underflow : &c->nan; }

/* "config.<name>" for every option stored with a run. */
static void add_config(StWriter *w, const Options *o)
{
    for (int i = 0; i < options_count(); i++) {
        if (options_group(i) == GROUP_RUN) continue;
        char key[96];
        snprintf(key, sizeof key, "config.%s", options_name(i));
        st_add_meta(w, key, options_format(o, i));
    }
}

/* The vocabulary as one string, words separated by newlines (words never contain one). */
static char *vocab_text(const Vocab *v)
{
    size_t n = 1;
    for (int i = 0; i < v->size; i++) n += strlen(v->words[i]) + 1;
    char *s = mem_alloc(n), *p = s;
    for (int i = 0; i < v->size; i++) p += sprintf(p, "%s%s", i ? "\n" : "", v->words[i]);
    return s;
}

/* Everything a checkpoint holds, in the order it is written. */
static void checkpoint_writer(StWriter *w_out, const Gpt *m, const Optimizer *opt, const RunState *rs,
                              const Options *o, const Vocab *vocab)
{
    StWriter w;
    st_writer_init(&w);
    char num[32], name[ST_MAX_NAME];
    st_add_meta(&w, "format", FORMAT_CHECKPOINT);
    snprintf(num, sizeof num, "%d", rs->next_step);
    st_add_meta(&w, "step", num);
    snprintf(num, sizeof num, "%d", rs->steps_to_threshold);
    st_add_meta(&w, "run.steps_to_threshold", num);
    snprintf(num, sizeof num, "%ld", rs->nan_count);
    st_add_meta(&w, "run.nan_count", num);
    snprintf(num, sizeof num, "%.17g", rs->interval_loss); /* 17 digits: the double comes back exactly */
    st_add_meta(&w, "run.interval_loss", num);
    snprintf(num, sizeof num, "%d", rs->interval_steps);
    st_add_meta(&w, "run.interval_steps", num);
    snprintf(num, sizeof num, "%.17g", rs->last_row_loss); /* "nan" before the first row */
    st_add_meta(&w, "run.last_row_loss", num);
    /* the rounding counts, layer by layer: "12 0" */
    const char *const count_keys[3] = {"run.fp_overflows", "run.fp_underflows", "run.fp_nans"};
    for (int k = 0; k < 3; k++) {
        char list[GPT_MAX_LAYERS * 24] = "";
        size_t n = 0;
        for (int l = 0; l < m->cfg.layers; l++) {
            FormatCounts c = rs->rounding[l];
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%ld", l ? " " : "", *count_of(&c, k));
        }
        st_add_meta(&w, count_keys[k], list);
    }
    snprintf(num, sizeof num, "%d", vocab->size);
    st_add_meta(&w, "vocab_size", num);
    char *words = vocab_text(vocab);
    st_add_meta(&w, "vocab", words);
    mem_free(words);
    add_config(&w, o);
    for (int i = 0; i < m->n_params; i++) st_add_tensor(&w, m->params[i]->name, m->params[i]);
    /* the chosen optimizer's state, parameter by parameter: "optim.<state>.<parameter>" */
    size_t off = 0;
    for (int i = 0; i < m->n_params && opt; i++) {
        const Tensor *p = m->params[i];
        int64_t shape[TENSOR_MAX_DIMS];
        for (int d = 0; d < p->ndim; d++) shape[d] = p->shape[d];
        const OptimState *state;
        int kind, k;
        for (int b = 0; (state = optim_buffer(b, &kind, &k)) != NULL; b++) {
            if (!optim_state_kept(opt, b)) continue;
            snprintf(name, sizeof name, "optim.%s.%s", state->name, p->name);
            st_add(&w, name, ST_F32, opt->state[b] + off, p->ndim, shape);
        }
        off += p->size;
    }
    *w_out = w;
}

bool checkpoint_save(const char *path, const Gpt *m, const Optimizer *opt, const RunState *rs, const Options *o,
                     const Vocab *vocab, char *err, size_t err_len)
{
    StWriter w;
    checkpoint_writer(&w, m, opt, rs, o, vocab);
    bool ok = st_write(&w, path, err, err_len);
    st_writer_free(&w);
    return ok;
}

bool checkpoint_check_saveable(const char *path, const Gpt *m, const Optimizer *opt, const RunState *rs,
                               const Options *o, const Vocab *vocab, char *err, size_t err_len)
{
    StWriter w;
    checkpoint_writer(&w, m, opt, rs, o, vocab);
    char why[256];
    bool ok = st_check(&w, why, sizeof why);
    /* the run state's numbers grow by a few digits as training goes: keep 4 KB of room */
    if (ok && st_header_length(&w) + 4096 > ST_MAX_HEADER) {
        snprintf(why, sizeof why, "its header would be %.1f MB, at the format's limit of %u MB",
                 st_header_length(&w) / 1048576.0, ST_MAX_HEADER >> 20);
        ok = false;
    }
    st_writer_free(&w);
    if (!ok) return errorf(err, err_len, "--save=%s: a checkpoint of this run could not be read back: %s", path, why);
    return true;
}

/* The format, then the checksum: nothing else in the file is used before both have passed. */
static bool check_opened(StFile *sf, const char *path, char *err, size_t err_len)
{
    const char *format = st_meta(sf, "format");
    bool v1 = format && !strcmp(format, FORMAT_CHECKPOINT_V1);
    char inner[256];
    if (!format || (!v1 && strcmp(format, FORMAT_CHECKPOINT) != 0 && strcmp(format, FORMAT_CHECKPOINT_V2) != 0))
        errorf(err, err_len, "--load=%s: not a checkpoint of this program (metadata \"format\" is %s)", path,
               format ? format : "missing");
    else if (!st_verify_checksum(sf, v1 ? ST_CHECKSUM_DATA : ST_CHECKSUM_WHOLE_FILE, inner, sizeof inner))
        errorf(err, err_len, "--load=%s: %s", path, inner);
    else
        return true;
    st_close(sf);
    return false;
}

bool checkpoint_open(StFile *sf, const char *path, char *err, size_t err_len)
{
    return st_open(sf, path, err, err_len) && check_opened(sf, path, err, err_len);
}

bool checkpoint_open_stream(StFile *sf, FILE *f, const char *path, char *err, size_t err_len)
{
    return st_open_stream(sf, f, path, err, err_len) && check_opened(sf, path, err, err_len);
}

bool checkpoint_apply_config(const char *path, Options *o, const OptGiven *set, char *err, size_t err_len)
{
    StFile sf;
    if (!checkpoint_open(&sf, path, err, err_len)) return false;
    bool ok = checkpoint_apply_config_from(&sf, path, o, set, err, err_len);
    st_close(&sf);
    return ok;
}

bool checkpoint_apply_config_from(StFile *sf, const char *path, Options *o, const OptGiven *set, char *err, size_t err_len)
{
    bool ok = true;
    for (int i = 0; i < options_count() && ok; i++) {
        if (options_group(i) == GROUP_RUN) continue;
        char key[96], where[OPT_TEXT_LEN + 128];
        snprintf(key, sizeof key, "config.%s", options_name(i));
        /* an option newer than the file: the file was made with what is now its default (every
         * new option's default is the behaviour before it existed); any other missing is an error */
        const char *value = st_meta(sf, key);
        if (!value && options_added(i)) value = options_default(i);
        if (!value) {
            ok = errorf(err, err_len, "--load=%s: metadata lacks \"%s\"", path, key);
            break;
        }
        snprintf(where, sizeof where, "--load=%.*s: %s", OPT_TEXT_LEN, path, key);
        Options stored = *o;
        if (!options_set(&stored, options_name(i), value, where, err, err_len)) {
            ok = false;
            break;
        }
        if (!set[i]) {
            *o = stored;
            continue;
        }
        /* given explicitly: fine for training options, must agree for the model and data, but
         * for the corpus's path: the same file may be reached from another directory, and the
         * vocabulary check of checkpoint_load_from is what ties a checkpoint to its data */
        if (!strcmp(options_name(i), "data")) continue;
        /* a flag that shapes another task than the checkpoint's does nothing: run.c refuses it
         * before (given_flags_matter, the rule of a fresh run); here it keeps the checkpoint's
         * value (--task is the first data row of the table, so `stored` holds the checkpoint's
         * task by now) */
        if (options_task_ignores(&stored, options_name(i))) {
            assert(options_index("task") < i); /* the checkpoint's task is in `stored` already */
            *o = stored;
            continue;
        }
        OptGroup g = options_group(i);
        char mine[OPT_TEXT_LEN + 32];
        snprintf(mine, sizeof mine, "%s", options_format(o, i));
        if ((g == GROUP_MODEL || g == GROUP_DATA) && strcmp(mine, options_format(&stored, i)) != 0)
            ok = errorf(err, err_len, "--%s=%s, but the checkpoint %s was made with %s", options_name(i), mine, path,
                      options_format(&stored, i));
    }
    return ok;
}

/* Reads tensor `name` into dst after checking its shape against t's. */
static bool load_tensor(StFile *sf, const char *name, const Tensor *t, real *dst, const char *path, char *err,
                        size_t err_len)
{
    const StTensor *st = st_find(sf, name);
    if (!st) return errorf(err, err_len, "--load=%s: tensor \"%s\" is missing", path, name);
    bool same = st->ndim == t->ndim;
    for (int d = 0; same && d < t->ndim; d++) same = st->shape[d] == t->shape[d];
    if (!same) {
        char want[64] = "", have[64] = "";
        for (int d = 0; d < t->ndim; d++) snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d", d ? "x" : "", t->shape[d]);
        for (int d = 0; d < st->ndim && d < 8; d++)
            snprintf(have + strlen(have), sizeof have - strlen(have), "%s%lld", d ? "x" : "", (long long)st->shape[d]);
        return errorf(err, err_len, "--load=%s: tensor \"%s\" has shape [%s], the model needs [%s]", path, name,
                    st->ndim ? have : "scalar", want);
    }
    char inner[256];
    if (!st_read_real(sf, st, dst, inner, sizeof inner)) return errorf(err, err_len, "--load=%s: %s", path, inner);
    size_t k = find_nonfinite(dst, t->size);
    if (k != SIZE_MAX)
        return errorf(err, err_len, "--load=%s: tensor \"%s\" holds %g at element %zu (it was saved from a run that had diverged)",
                      path, name, (double)dst[k], k);
    return true;
}

/* One optimizer state buffer of every parameter ("optim.<state>.<parameter>") into values, when
 * the file has it (else left at zero); a negative value in a buffer that cannot hold one is an
 * error. */
static bool load_state(StFile *sf, const char *path, const Gpt *m, const OptimState *state, real *values, char *err,
                       size_t err_len)
{
    char name[ST_MAX_NAME];
    snprintf(name, sizeof name, "optim.%s.%s", state->name, m->params[0]->name);
    if (!st_find(sf, name)) return true;
    size_t off = 0;
    for (int i = 0; i < m->n_params; i++) {
        const Tensor *p = m->params[i];
        real *dst = values + off;
        snprintf(name, sizeof name, "optim.%s.%s", state->name, p->name);
        if (!load_tensor(sf, name, p, dst, path, err, err_len)) return false;
        for (size_t j = 0; j < p->size && state->nonnegative; j++)
            if (dst[j] < 0) return errorf(err, err_len, "--load=%s: tensor \"%s\" holds a negative value at element %zu", path, name, j);
        off += p->size;
    }
    return true;
}

/* An integer metadata value in [lo, hi], written as the writer writes it (digits, a sign). */
static bool meta_long(const StFile *sf, const char *key, long lo, long hi, long *out)
{
    const char *v = st_meta(sf, key);
    char *end;
    if (!v || !((*v >= '0' && *v <= '9') || *v == '-')) return false;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (*end || errno == ERANGE || x < lo || x > hi) return false;
    *out = x;
    return true;
}

/* "12 0 3": exactly `layers` non-negative counts, separated by one space, into field k of c[l]. */
static bool meta_counts(const char *v, int layers, FormatCounts *c, int k)
{
    for (int l = 0; l < layers; l++) {
        if (l > 0 && *v++ != ' ') return false;
        if (!(*v >= '0' && *v <= '9')) return false;
        char *end;
        errno = 0;
        long x = strtol(v, &end, 10);
        if (errno == ERANGE) return false;
        *count_of(&c[l], k) = x;
        v = end;
    }
    return *v == 0;
}

/* A finite number in [lo, hi], as a flag would be checked. */
static bool meta_real(const StFile *sf, const char *key, double lo, double hi, double *out)
{
    const char *v = st_meta(sf, key);
    char *end;
    if (!v || !((*v >= '0' && *v <= '9') || *v == '-' || *v == '.')) return false;
    errno = 0;
    double x = strtod(v, &end);
    if (*end || errno == ERANGE || !isfinite(x) || x < lo || x > hi) return false;
    *out = x;
    return true;
}

bool checkpoint_load(const char *path, Gpt *m, Optimizer *opt, RunState *rs, const Vocab *vocab, char *err,
                     size_t err_len)
{
    StFile sf;
    if (!checkpoint_open(&sf, path, err, err_len)) return false;
    bool ok = checkpoint_load_from(&sf, path, m, opt, rs, vocab, err, err_len);
    st_close(&sf);
    return ok;
}

bool checkpoint_load_from(StFile *sf, const char *path, Gpt *m, Optimizer *opt, RunState *rs, const Vocab *vocab,
                          char *err, size_t err_len)
{
    bool ok = false;
    char *words = NULL;
    const char *stored_words = st_meta(sf, "vocab");
    long step, vsize, threshold, nans, isteps;
    double interval; /* a sum of cross-entropies: finite, >= 0 */
    if (!meta_long(sf, "step", 0, 100000000, &step) || !meta_long(sf, "vocab_size", 1, 100000000, &vsize) ||
        !meta_long(sf, "run.steps_to_threshold", -1, 100000000, &threshold) ||
        !meta_long(sf, "run.nan_count", 0, 100000000, &nans) || !meta_long(sf, "run.interval_steps", 0, 100000000, &isteps) ||
        !meta_real(sf, "run.interval_loss", 0, 1e300, &interval)) {
        errorf(err, err_len, "--load=%s: metadata lacks a valid step, vocab_size or run.* entry (a count in range, a finite loss)", path);
        goto done;
    }
    /* the last row's loss, since 2026-12-07 (older files: NaN, unknown); "nan" and "inf" are losses
     * a row can have */
    double last_row = NAN;
    const char *last_text = st_meta(sf, "run.last_row_loss");
    if (last_text && strcmp(last_text, "nan") && strcmp(last_text, "-nan")) {
        if (!strcmp(last_text, "inf")) last_row = INFINITY;
        else if (!meta_real(sf, "run.last_row_loss", 0, 1e300, &last_row)) {
            errorf(err, err_len, "--load=%s: metadata \"run.last_row_loss\" is \"%s\", not a loss (a number >= 0, nan or inf)", path,
                   last_text);
            goto done;
        }
    }
    /* the rounding counts, one per layer, since --precision (older files: 0) */
    FormatCounts rounding[GPT_MAX_LAYERS] = {{0}};
    const char *const count_keys[3] = {"run.fp_overflows", "run.fp_underflows", "run.fp_nans"};
    for (int k = 0; k < 3; k++)
        if (st_meta(sf, count_keys[k]) && !meta_counts(st_meta(sf, count_keys[k]), m->cfg.layers, rounding, k)) {
            errorf(err, err_len, "--load=%s: metadata \"%s\" is not a list of %d count%s, one per layer", path, count_keys[k],
                   m->cfg.layers, m->cfg.layers == 1 ? "" : "s");
            goto done;
        }
    if (isteps > step || threshold > step) {
        errorf(err, err_len, "--load=%s: its run state counts more steps than the %ld it has done", path, step);
        goto done;
    }
    /* the same words with the same ids, not just as many */
    words = vocab_text(vocab);
    if (vsize != vocab->size || !stored_words || strcmp(stored_words, words) != 0) {
        errorf(err, err_len, "--load=%s: its vocabulary (%ld words) differs from the one the data gives (%d words)", path,
             vsize, vocab->size);
        goto done;
    }
    for (int i = 0; i < m->n_params; i++)
        if (!load_tensor(sf, m->params[i]->name, m->params[i], m->params[i]->data, path, err, err_len)) goto done;
    /* the chosen optimizer's state, buffer by buffer, as its spec names it; a buffer the file lacks
     * (another optimizer's run, a model saved before the buffer existed) starts at zero */
    const OptimState *state;
    int kind, k;
    for (int b = 0; opt && (state = optim_buffer(b, &kind, &k)) != NULL; b++)
        if (optim_state_kept(opt, b) && !load_state(sf, path, m, state, opt->state[b], err, err_len)) goto done;
    rs->next_step = (int)step;
    rs->steps_to_threshold = (int)threshold;
    rs->nan_count = nans;
    rs->interval_loss = interval;
    rs->interval_steps = (int)isteps;
    rs->last_row_loss = last_row;
    memcpy(rs->rounding, rounding, sizeof rounding);
    ok = true;
done:
    mem_free(words);
    return ok;
}

bool dump_state_write(const char *path, const Gpt *m, const Batch *b, const Tensor *logits, const Tensor *loss,
                      double scale, const AttentionMap *heldout, const Options *o, char *err, size_t err_len)
{
    StWriter w;
    st_writer_init(&w);
    char name[ST_MAX_NAME], num[64];
    st_add_meta(&w, "format", FORMAT_DUMP);
    add_config(&w, o);
    snprintf(num, sizeof num, "%.17g", scale);
    /* the fixed multiplier of the scores; "learned" for a parameter per head (the learned s,
     * cosine's tau); "none" for additive scores */
    st_add_meta(&w, "attention_scale", !isnan(scale) ? num : gpt_has_head_scales(&m->cfg) ? "learned" : "none");
    snprintf(num, sizeof num, "%g", GPT_LAYERNORM_EPS);
    st_add_meta(&w, "layernorm_eps", num);
    st_add_meta(&w, "gelu", "tanh");
    snprintf(num, sizeof num, "%.9g", (double)loss->data[0]);
    st_add_meta(&w, "loss", num);
    for (int i = 0; i < m->n_params; i++) {
        snprintf(name, sizeof name, "param.%s", m->params[i]->name);
        st_add_tensor(&w, name, m->params[i]);
    }
    for (int i = 0; i < m->n_params; i++) {
        const Tensor *p = m->params[i];
        int64_t shape[TENSOR_MAX_DIMS];
        for (int d = 0; d < p->ndim; d++) shape[d] = p->shape[d];
        snprintf(name, sizeof name, "grad.%s", p->name);
        st_add(&w, name, ST_F32, p->grad, p->ndim, shape);
    }
    int64_t bt[2] = {b->B, b->T};
    st_add(&w, "batch.tokens", ST_I32, b->tokens, 2, bt);
    st_add(&w, "batch.targets", ST_I32, b->targets, 2, bt);
    st_add(&w, "batch.mask", ST_U8, b->loss_mask, 2, bt);
    st_add_tensor(&w, "logits", logits);
    st_add_tensor(&w, "loss", loss);
    /* what --attention-svg draws of one validation example: its input and P of every head */
    char example[32];
    if (heldout) {
        int64_t n[1] = {heldout->n}, lhnn[4] = {heldout->layers, heldout->heads, heldout->n, heldout->n};
        st_add(&w, "heldout.tokens", ST_I32, heldout->tokens, 1, n);
        st_add(&w, "heldout.attention", ST_F32, heldout->weights, 4, lhnn);
        snprintf(example, sizeof example, "%d", heldout->example);
        st_add_meta(&w, "heldout.example", example);
    }
    bool ok = st_write(&w, path, err, err_len);
    st_writer_free(&w);
    return ok;
}
