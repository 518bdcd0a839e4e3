/* fuzz_targets.c - see fuzz_targets.h. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */

#include "fuzz_targets.h"

#include "../run/checkpoint.h"
#include "../run/options.h"
#include "../data/data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An error message must be one non-empty line. */
static FuzzOutcome refused(const char *err, const char *must_name, char *why, size_t why_len)
{
    if (!err[0] || strchr(err, '\n') || (must_name && !strstr(err, must_name))) {
        snprintf(why, why_len, "bad error message: \"%.200s\"", err);
        return FUZZ_BROKEN;
    }
    return FUZZ_REFUSED;
}

FuzzOutcome fuzz_config(const unsigned char *data, size_t n, char *why, size_t why_len)
{
    char *text = malloc(n + 1);
    memcpy(text, data, n);
    text[n] = 0;
    Options o;
    options_defaults(&o);
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    char err[2048] = "";
    bool ok = options_parse_config(&o, "fuzz.cfg", text, n, set, err, sizeof err) && options_validate(&o, err, sizeof err);
    free(text);
    if (!ok) return refused(err, NULL, why, why_len);
    const GptConfig *m = &o.model;
    if (!(m->layers >= 1 && m->layers <= 24 && m->heads >= 1 && o.run.batch >= 1 && o.optim.lr >= 0 && m->dropout >= 0 && m->dropout < 1)) {
        snprintf(why, why_len, "accepted with out-of-range values");
        return FUZZ_BROKEN;
    }
    return FUZZ_ACCEPTED;
}

FuzzOutcome fuzz_tsv(const unsigned char *data, size_t n, char *why, size_t why_len)
{
    DataConfig cfg = {.task = name_find(task_name, "tsv"), .path = "fuzz.tsv", .context = 12, .seed = 1};
    Dataset d;
    char err[1024] = "";
    bool ok = dataset_open_tsv_text(&d, &cfg, (const char *)data, n, err, sizeof err);
    FuzzOutcome out = FUZZ_ACCEPTED;
    if (!ok) {
        out = refused(err, "fuzz.tsv", why, why_len);
    } else {
        bool sane = d.train.n >= 1 && d.val.n >= 1 && dataset_max_input(&d) <= cfg.context;
        for (int k = 0; k < 2 && sane; k++) {
            const ExampleList *l = k ? &d.val : &d.train;
            for (size_t t = 0; t < l->pool_len && sane; t++) sane = l->pool[t] >= TOK_FIRST_WORD && l->pool[t] < d.vocab.size;
        }
        if (!sane) {
            snprintf(why, why_len, "accepted with an example out of range");
            out = FUZZ_BROKEN;
        }
    }
    dataset_free(&d);
    return out;
}

FuzzOutcome fuzz_safetensors_header(const unsigned char *data, size_t n, uint64_t data_size, char *why, size_t why_len)
{
    StFile sf;
    char err[512] = "";
    if (!st_parse_header(&sf, (const char *)data, n, data_size, err, sizeof err)) return refused(err, NULL, why, why_len);
    bool sane = true;
    for (int t = 0; t < sf.n_tensors && sane; t++) sane = sf.tensors[t].begin <= sf.tensors[t].end && sf.tensors[t].end <= data_size;
    st_close(&sf);
    if (!sane) {
        snprintf(why, why_len, "accepted with a tensor outside the data");
        return FUZZ_BROKEN;
    }
    return FUZZ_ACCEPTED;
}

/* ------------------------------------------------------------------ checkpoints */

/* The tiny model the checkpoint target loads into, and the values its seed holds. */
typedef struct Reference {
    bool ready;
    Gpt model, loaded;
    Optimizer opt, loaded_opt;
    bool decay[GPT_MAX_PARAMS];
    Vocab vocab;
} Reference;

static Reference g_ref;

static void reference_init(void)
{
    if (g_ref.ready) return;
    GptConfig cfg = {.vocab = 7, .context = 6, .layers = 1, .dmodel = 8, .heads = 2, .dk = 4, .scale_mode = SCALE_LEARNED,
                     .init_gain = 1};
    gpt_create(&g_ref.model, &cfg);
    gpt_init(&g_ref.model, 5);
    gpt_create(&g_ref.loaded, &cfg);
    OptimConfig oc = {.kind = name_find(optim_name, "adamw")};
    optim_init(&g_ref.opt, &oc, g_ref.model.params, g_ref.decay, g_ref.model.n_params);
    optim_init(&g_ref.loaded_opt, &oc, g_ref.loaded.params, g_ref.decay, g_ref.loaded.n_params);
    vocab_init(&g_ref.vocab);
    for (int i = 0; i < 3; i++) vocab_add(&g_ref.vocab, &"xyz"[i], 1);
    g_ref.ready = true;
}

unsigned char *fuzz_checkpoint_seed(const char *dir, size_t *len)
{
    reference_init();
    Options o;
    options_defaults(&o);
    RunState rs = {.next_step = 12, .steps_to_threshold = 7, .interval_loss = 3.25, .interval_steps = 2};
    char err[512], path[4096];
    snprintf(path, sizeof path, "%s/fuzz-seed.safetensors", dir);
    *len = 0;
    if (!checkpoint_save(path, &g_ref.model, &g_ref.opt, &rs, &o, &g_ref.vocab, err, sizeof err)) return NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    unsigned char *bytes = malloc(1 << 20);
    *len = fread(bytes, 1, 1 << 20, f);
    fclose(f);
    remove(path);
    return bytes;
}

static FuzzOutcome load_checkpoint(const unsigned char *data, size_t n, bool exact, char *why, size_t why_len)
{
    reference_init();
    if (n == 0) return FUZZ_REFUSED; /* fmemopen takes no empty buffer; st_open says "truncated" */
    unsigned char *copy = malloc(n);
    memcpy(copy, data, n);
    FILE *f = fmemopen(copy, n, "rb");
    StFile sf;
    char err[2048] = "";
    FuzzOutcome out;
    if (!f || !checkpoint_open_stream(&sf, f, "fuzz.st", err, sizeof err)) {
        out = f ? refused(err, NULL, why, why_len) : FUZZ_REFUSED;
    } else {
        Options o;
        options_defaults(&o);
        OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
        RunState rs;
        memset(g_ref.loaded.values, 0, g_ref.loaded.n_values * sizeof(real));
        bool ok = checkpoint_apply_config_from(&sf, "fuzz.st", &o, set, err, sizeof err) &&
                  checkpoint_load_from(&sf, "fuzz.st", &g_ref.loaded, &g_ref.loaded_opt, &rs, &g_ref.vocab, err, sizeof err);
        st_close(&sf);
        if (!ok) {
            out = refused(err, NULL, why, why_len);
        } else if (!exact && (find_nonfinite(g_ref.loaded.values, g_ref.loaded.n_values) != SIZE_MAX)) {
            snprintf(why, why_len, "loaded a non-finite value");
            out = FUZZ_BROKEN;
        } else if (exact && (memcmp(g_ref.loaded.values, g_ref.model.values, g_ref.model.n_values * sizeof(real)) || rs.next_step != 12)) {
            snprintf(why, why_len, "loaded, but not what was saved");
            out = FUZZ_BROKEN;
        } else {
            out = FUZZ_ACCEPTED;
        }
    }
    free(copy);
    return out;
}

FuzzOutcome fuzz_checkpoint(const unsigned char *data, size_t n, char *why, size_t why_len)
{
    return load_checkpoint(data, n, true, why, why_len);
}

/* Rewrites the checksum of a (mutated) file so that it matches: what was changed then gets
 * past the checksum to the code behind it. False when the header has no checksum field. */
static bool reseal(unsigned char *file, size_t n)
{
    static const char field[] = "\"checksum\":\"crc32:";
    const size_t flen = sizeof field - 1;
    if (n < 8) return false;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | file[i];
    if (hlen > n - 8) return false;
    unsigned char *digits = NULL;
    for (size_t i = 8; i + flen + 8 <= 8 + hlen && !digits; i++)
        if (!memcmp(file + i, field, flen)) digits = file + i + flen;
    if (!digits) return false;
    memset(digits, '0', 8);
    char hex[9];
    snprintf(hex, sizeof hex, "%08x", (unsigned)crc32_update(0, file, n));
    memcpy(digits, hex, 8);
    return true;
}

FuzzOutcome fuzz_checkpoint_resealed(const unsigned char *data, size_t n, char *why, size_t why_len)
{
    unsigned char *copy = malloc(n ? n : 1);
    memcpy(copy, data, n);
    FuzzOutcome out = reseal(copy, n) ? load_checkpoint(copy, n, false, why, why_len) : FUZZ_REFUSED;
    free(copy);
    return out;
}

void fuzz_or_abort(const char *name, FuzzTarget target, const unsigned char *data, size_t n)
{
    char why[256];
    if (target(data, n, why, sizeof why) == FUZZ_BROKEN) {
        fprintf(stderr, "%s: %s\n", name, why);
        abort();
    }
}
