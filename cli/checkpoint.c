/* checkpoint.c - saving and loading runs; see docs/FORMAT.md for the layout. */
#include "checkpoint.h"

#include "../tensor/safetensors.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FORMAT_CHECKPOINT "attention-scale-checkpoint/1"
#define FORMAT_DUMP "attention-scale-dump/1"

static bool fail(char *err, size_t err_len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return false;
}

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

bool checkpoint_save(const char *path, const Gpt *m, const Optimizer *opt, int next_step, const Options *o,
                     const Vocab *vocab, char *err, size_t err_len)
{
    StWriter w;
    st_writer_init(&w);
    char num[32], name[ST_MAX_NAME];
    st_add_meta(&w, "format", FORMAT_CHECKPOINT);
    snprintf(num, sizeof num, "%d", next_step);
    st_add_meta(&w, "step", num);
    snprintf(num, sizeof num, "%d", vocab->size);
    st_add_meta(&w, "vocab_size", num);
    char *words = vocab_text(vocab);
    st_add_meta(&w, "vocab", words);
    mem_free(words);
    add_config(&w, o);
    for (int i = 0; i < m->n_params; i++) st_add_tensor(&w, m->params[i]->name, m->params[i]);
    size_t off = 0;
    for (int i = 0; i < m->n_params && opt; i++) {
        const Tensor *p = m->params[i];
        int64_t shape[TENSOR_MAX_DIMS];
        for (int d = 0; d < p->ndim; d++) shape[d] = p->shape[d];
        snprintf(name, sizeof name, "optim.m.%s", p->name);
        st_add(&w, name, ST_F32, opt->m + off, p->ndim, shape);
        snprintf(name, sizeof name, "optim.v.%s", p->name);
        st_add(&w, name, ST_F32, opt->v + off, p->ndim, shape);
        off += p->size;
    }
    bool ok = st_write(&w, path, err, err_len);
    st_writer_free(&w);
    return ok;
}

bool checkpoint_apply_config(const char *path, Options *o, const bool *set, char *err, size_t err_len)
{
    StFile sf;
    if (!st_open(&sf, path, err, err_len)) return false;
    bool ok = true;
    const char *format = st_meta(&sf, "format");
    if (!format || strcmp(format, FORMAT_CHECKPOINT) != 0) {
        ok = fail(err, err_len, "--load=%s: not a checkpoint of this program (metadata \"format\" is %s)", path,
                  format ? format : "missing");
        goto done;
    }
    for (int i = 0; i < options_count() && ok; i++) {
        if (options_group(i) == GROUP_RUN) continue;
        char key[96], where[OPT_TEXT_LEN + 128];
        snprintf(key, sizeof key, "config.%s", options_name(i));
        const char *value = st_meta(&sf, key);
        if (!value) {
            ok = fail(err, err_len, "--load=%s: metadata lacks \"%s\"", path, key);
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
        /* given explicitly: fine for training options, must agree for the model and data */
        OptGroup g = options_group(i);
        char mine[OPT_TEXT_LEN + 32];
        snprintf(mine, sizeof mine, "%s", options_format(o, i));
        if ((g == GROUP_MODEL || g == GROUP_DATA) && strcmp(mine, options_format(&stored, i)) != 0)
            ok = fail(err, err_len, "--%s=%s, but the checkpoint %s was made with %s", options_name(i), mine, path,
                      options_format(&stored, i));
    }
done:
    st_close(&sf);
    return ok;
}

/* Reads tensor `name` into dst after checking its shape against t's. */
static bool load_tensor(StFile *sf, const char *name, const Tensor *t, real *dst, const char *path, char *err,
                        size_t err_len)
{
    const StTensor *st = st_find(sf, name);
    if (!st) return fail(err, err_len, "--load=%s: tensor \"%s\" is missing", path, name);
    bool same = st->ndim == t->ndim;
    for (int d = 0; same && d < t->ndim; d++) same = st->shape[d] == t->shape[d];
    if (!same) {
        char want[64] = "", have[64] = "";
        for (int d = 0; d < t->ndim; d++) snprintf(want + strlen(want), sizeof want - strlen(want), "%s%d", d ? "x" : "", t->shape[d]);
        for (int d = 0; d < st->ndim && d < 8; d++)
            snprintf(have + strlen(have), sizeof have - strlen(have), "%s%lld", d ? "x" : "", (long long)st->shape[d]);
        return fail(err, err_len, "--load=%s: tensor \"%s\" has shape [%s], the model needs [%s]", path, name,
                    st->ndim ? have : "scalar", want);
    }
    char inner[256];
    if (!st_read_real(sf, st, dst, inner, sizeof inner)) return fail(err, err_len, "--load=%s: %s", path, inner);
    return true;
}

bool checkpoint_load(const char *path, Gpt *m, Optimizer *opt, int *next_step, const Vocab *vocab, char *err,
                     size_t err_len)
{
    StFile sf;
    char inner[256];
    if (!st_open(&sf, path, err, err_len)) return false;
    bool ok = false;
    const char *checksum = st_meta(&sf, "checksum"), *step = st_meta(&sf, "step"), *vsize = st_meta(&sf, "vocab_size");
    uint32_t crc;
    char *end;
    if (!checksum || !step || !vsize) {
        fail(err, err_len, "--load=%s: metadata lacks checksum, step or vocab_size", path);
        goto done;
    }
    if (!st_data_crc32(&sf, &crc, inner, sizeof inner)) {
        fail(err, err_len, "--load=%s: %s", path, inner);
        goto done;
    }
    char want[32];
    snprintf(want, sizeof want, "crc32:%08x", crc);
    if (strcmp(want, checksum) != 0) {
        fail(err, err_len, "--load=%s: checksum mismatch (stored %s, data has %s): the file is corrupted", path, checksum, want);
        goto done;
    }
    long s = strtol(step, &end, 10);
    if (!*step || *end || s < 0 || s > 100000000) {
        fail(err, err_len, "--load=%s: bad step \"%.32s\"", path, step);
        goto done;
    }
    long vs = strtol(vsize, &end, 10);
    if (*end || vs != vocab->size) {
        fail(err, err_len, "--load=%s: vocabulary of %s words, the data gives %d", path, vsize, vocab->size);
        goto done;
    }
    for (int i = 0; i < m->n_params; i++)
        if (!load_tensor(&sf, m->params[i]->name, m->params[i], m->params[i]->data, path, err, err_len)) goto done;
    /* a model-only file (no optimizer state) resumes with fresh Adam moments */
    if (opt) {
        char name[ST_MAX_NAME];
        snprintf(name, sizeof name, "optim.m.%s", m->params[0]->name);
        bool has_state = st_find(&sf, name) != NULL;
        size_t off = 0;
        for (int i = 0; i < m->n_params && has_state; i++) {
            const Tensor *p = m->params[i];
            snprintf(name, sizeof name, "optim.m.%s", p->name);
            if (!load_tensor(&sf, name, p, opt->m + off, path, err, err_len)) goto done;
            snprintf(name, sizeof name, "optim.v.%s", p->name);
            if (!load_tensor(&sf, name, p, opt->v + off, path, err, err_len)) goto done;
            off += p->size;
        }
    }
    *next_step = (int)s;
    ok = true;
done:
    st_close(&sf);
    return ok;
}

bool dump_state_write(const char *path, const Gpt *m, const Batch *b, const Tensor *logits, const Tensor *loss,
                      double scale, const Options *o, char *err, size_t err_len)
{
    StWriter w;
    st_writer_init(&w);
    char name[ST_MAX_NAME], num[64];
    st_add_meta(&w, "format", FORMAT_DUMP);
    add_config(&w, o);
    snprintf(num, sizeof num, "%.17g", scale);
    st_add_meta(&w, "attention_scale", m->cfg.scale_mode == SCALE_LEARNED ? "learned (see h.*.attn.scale)" : num);
    st_add_meta(&w, "layernorm_eps", "1e-5");
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
    bool ok = st_write(&w, path, err, err_len);
    st_writer_free(&w);
    return ok;
}
