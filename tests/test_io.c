/* test_io.c - safetensors files, checkpoints, and the option parsers. */
#include "test.h"

#include "../model/attn_spec.h"
#include "../run/checkpoint.h"
#include "../run/options.h"
#include "../tensor/safetensors.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t read_all(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

/* ------------------------------------------------------------------ safetensors */

static void test_safetensors_round_trip(void)
{
    real f[6] = {1.5f, -2.25f, 3e-8f, 1e30f, 0, -0.0f};
    int32_t ints[3] = {7, -1, 2147483647};
    unsigned char bytes[5] = {0, 1, 255, 3, 4};
    int64_t s23[2] = {2, 3}, s3[1] = {3}, s5[1] = {5};
    StWriter w;
    st_writer_init(&w);
    st_add(&w, "h.0.attn.wq", ST_F32, f, 2, s23);
    st_add(&w, "ids", ST_I32, ints, 1, s3);
    st_add(&w, "mask", ST_U8, bytes, 1, s5);
    st_add_meta(&w, "note", "quote \" backslash \\ newline \n tab \t done");
    char err[512];
    const char *path = test_path("round.safetensors");
    bool written = CHECK(st_write(&w, path, err, sizeof err), "write: %s", err);
    st_writer_free(&w);
    if (!written) return; /* nothing below can be checked */

    static unsigned char raw[4096];
    size_t n = read_all(path, raw, sizeof raw);
    if (!CHECK(n > 8 && n < sizeof raw, "%s: read %zu bytes", path, n)) return;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | raw[i];
    CHECK(n == 8 + hlen + 24 + 12 + 5, "file size %zu: 8 + header %llu + 41 data bytes", n, (unsigned long long)hlen);
    CHECK(hlen % 8 == 0 && raw[8] == '{', "header must start with '{' and keep the data 8-byte aligned");
    CHECK(raw[8 + hlen] == 0 && raw[8 + hlen + 1] == 0 && raw[8 + hlen + 2] == 0xc0 && raw[8 + hlen + 3] == 0x3f,
          "1.5f must be stored little-endian as 00 00 c0 3f");

    StFile sf;
    if (!CHECK(st_open(&sf, path, err, sizeof err), "open: %s", err)) return;
    const StTensor *t = st_find(&sf, "h.0.attn.wq");
    real back[6];
    CHECK(t && t->ndim == 2 && t->shape[0] == 2 && t->shape[1] == 3 && st_read_real(&sf, t, back, err, sizeof err),
          "read F32: %s", err);
    CHECK(memcmp(back, f, sizeof f) == 0, "F32 values changed in the round trip");
    int32_t ib[3];
    unsigned char bb[5];
    CHECK(st_read_i32(&sf, st_find(&sf, "ids"), ib, err, sizeof err) && !memcmp(ib, ints, sizeof ints), "I32");
    CHECK(st_read_u8(&sf, st_find(&sf, "mask"), bb, err, sizeof err) && !memcmp(bb, bytes, sizeof bytes), "U8");
    CHECK(!st_read_real(&sf, st_find(&sf, "ids"), back, err, sizeof err) && strstr(err, "is I32"), "dtype mismatch: %s", err);
    const char *note = st_meta(&sf, "note");
    CHECK(note && !strcmp(note, "quote \" backslash \\ newline \n tab \t done"), "metadata escapes");
    CHECK(st_verify_checksum(&sf, ST_CHECKSUM_WHOLE_FILE, err, sizeof err), "stored checksum: %s", err);
    st_close(&sf);
    /* the checksum is the CRC-32 of the whole file with its own 8 digits as zeros */
    char *field = strstr((char *)raw + 8, "\"checksum\":\"crc32:");
    if (!CHECK(field != NULL, "no checksum in the header")) return;
    char *digits = field + 18;
    char stored[9];
    memcpy(stored, digits, 8);
    stored[8] = 0;
    memset(digits, '0', 8);
    char want[9];
    snprintf(want, sizeof want, "%08x", crc32_update(0, raw, n));
    CHECK(!strcmp(stored, want), "checksum %s, the file with zeros gives %s", stored, want);
    /* CRC-32 of "123456789" is the standard check value cbf43926 */
    CHECK(crc32_update(0, (const unsigned char *)"123456789", 9) == 0xcbf43926u, "CRC-32 check value");
}

static void expect_header_error(const char *json, uint64_t data_size, const char *expect)
{
    StFile sf;
    char err[512] = "";
    bool ok = st_parse_header(&sf, json, strlen(json), data_size, err, sizeof err);
    CHECK(!ok && strstr(err, expect), "header %s: want an error with \"%s\", got \"%s\"", json, expect, ok ? "(accepted)" : err);
    if (ok) st_close(&sf);
}

static void test_safetensors_rejects_bad_headers(void)
{
    const char *t = "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}";
    StFile sf;
    char err[256];
    CHECK(st_parse_header(&sf, t, strlen(t), 8, err, sizeof err), "valid header refused: %s", err);
    st_close(&sf);
    expect_header_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},"
                        "\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}", 8, "overlap or leave gaps");
    expect_header_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[4,8]}}", 8, "overlap or leave gaps");
    expect_header_error(t, 7, "outside");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", 8, "need 12");
    expect_header_error("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", 8, "unsupported dtype");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", 8, "lacks");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,0]}}", 8, "outside");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],\"data_offsets\":[0,8]}}", 8, "non-negative integer");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[99999999999],\"data_offsets\":[0,8]}}", 8, "too large");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967295,4294967295,4294967295],\"data_offsets\":[0,8]}}", 8,
                        "too large");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,99999999999999999999999]}}", 8, "too large");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"a\":{}}", 8, "twice");
    expect_header_error("{\"__metadata__\":{\"k\":3}}", 0, "expected '\"'");
    expect_header_error("{\"__metadata__\":{\"k\":\"v\",\"k\":\"w\"}}", 0, "twice");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}} x", 8, "after the JSON");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}", 8, "expected '}'");
    expect_header_error("{\"a\\ud800\":{}}", 8, "surrogate");
    expect_header_error("{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"x\":1}}", 8, "unexpected");
    expect_header_error("[]", 0, "expected '{'");
}

/* A header of n empty U8 tensors named t0 .. t{n-1}, and, if dup, t0 once more at the end. */
static char *many_tensors(int n, bool dup, size_t *len)
{
    size_t cap = (size_t)n * 64 + 128, k = 0;
    char *json = malloc(cap);
    k += (size_t)snprintf(json + k, cap - k, "{");
    for (int i = 0; i < n + dup; i++)
        k += (size_t)snprintf(json + k, cap - k, "%s\"t%d\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}",
                              i ? "," : "", i < n ? i : 0);
    k += (size_t)snprintf(json + k, cap - k, "}");
    *len = k;
    return json;
}

static void test_safetensors_many_tensors(void)
{
    StFile sf;
    char err[256];
    size_t len;
    char *json = many_tensors(60000, false, &len);
    CHECK(st_parse_header(&sf, json, len, 0, err, sizeof err), "60000 tensors refused: %s", err);
    CHECK(sf.n_tensors == 60000 && st_find(&sf, "t59999") && st_find(&sf, "t0") && !st_find(&sf, "t60000"),
          "lookups in a large header");
    st_close(&sf);
    free(json);
    json = many_tensors(60000, true, &len);
    CHECK(!st_parse_header(&sf, json, len, 0, err, sizeof err) && strstr(err, "\"t0\" appears twice"), "duplicate: %s", err);
    free(json);
    json = many_tensors(70000, false, &len);
    CHECK(!st_parse_header(&sf, json, len, 0, err, sizeof err) && strstr(err, "too many tensors"), "limit: %s", err);
    free(json);
}

static void test_safetensors_rejects_bad_files(void)
{
    char err[512];
    StFile sf;
    CHECK(!st_open(&sf, test_path("missing.safetensors"), err, sizeof err) && strstr(err, "cannot open"), "%s", err);
    const char *p = test_write_file("short.safetensors", "\x10\0\0", 3);
    CHECK(!st_open(&sf, p, err, sizeof err) && strstr(err, "truncated"), "short: %s", err);
    p = test_write_file("hlen.safetensors", "\xff\xff\xff\xff\0\0\0\0{}", 10);
    CHECK(!st_open(&sf, p, err, sizeof err) && strstr(err, "does not fit"), "huge header length: %s", err);
    const char body[] = "\x38\0\0\0\0\0\0\0{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}      \1\2\3";
    p = test_write_file("cut.safetensors", body, sizeof body - 1);
    CHECK(!st_open(&sf, p, err, sizeof err) && strstr(err, "outside"), "data cut short: %s", err);
}

/* What the writer writes, the reader reads: the writer refuses (and writes nothing) past the
 * reader's limits, and a header just under the 100 MB limit comes back. */
static void test_safetensors_writer_stays_within_reader_limits(void)
{
    char err[512];
    real x[2] = {1, 2};
    int64_t shape[1] = {2};
    StWriter w;
    st_writer_init(&w);
    st_add(&w, "x", ST_F32, x, 1, shape);
    char key[32];
    for (int i = 0; i < ST_MAX_META; i++) {
        snprintf(key, sizeof key, "k%d", i);
        st_add_meta(&w, key, "v");
    }
    const char *p = test_path("too-many-meta.safetensors");
    remove(p);
    CHECK(!st_check(&w, err, sizeof err) && strstr(err, "metadata entries"), "meta count: %s", err);
    FILE *f = fopen(p, "rb");
    CHECK(!st_write(&w, p, err, sizeof err) && !(f = fopen(p, "rb")), "a refused file was written anyway (%s)", err);
    if (f) fclose(f);
    st_writer_free(&w);

    size_t big = (size_t)ST_MAX_HEADER - 1000; /* a vocabulary this long still fits */
    char *text = malloc(big + 2001);
    if (!CHECK(text != NULL, "out of memory")) return;
    memset(text, 'w', big);
    text[big] = 0;
    st_writer_init(&w);
    st_add(&w, "x", ST_F32, x, 1, shape);
    st_add_meta(&w, "vocab", text);
    CHECK(st_header_length(&w) > big && st_header_length(&w) <= ST_MAX_HEADER, "header length %llu",
          (unsigned long long)st_header_length(&w));
    p = test_path("just-under.safetensors");
    StFile sf;
    if (CHECK(st_write(&w, p, err, sizeof err), "just under the limit: %s", err)) {
        bool opened = CHECK(st_open(&sf, p, err, sizeof err), "written but not read: %s", err);
        if (opened) {
            CHECK(st_meta(&sf, "vocab") && strlen(st_meta(&sf, "vocab")) == big, "the long value changed");
            st_close(&sf);
        }
    }
    remove(p);
    st_writer_free(&w);
    memset(text, 'w', big + 2000); /* now over: refused before anything is written */
    text[big + 2000] = 0;
    st_writer_init(&w);
    st_add(&w, "x", ST_F32, x, 1, shape);
    st_add_meta(&w, "vocab", text);
    p = test_path("over.safetensors");
    CHECK(!st_write(&w, p, err, sizeof err) && strstr(err, "limit of 100 MB") && !(f = fopen(p, "rb")),
          "over the limit: %s", err);
    if (f) fclose(f);
    st_writer_free(&w);
    free(text);
}

/* ------------------------------------------------------------------ checkpoints */

static void test_checkpoint_round_trip_and_corruption(void)
{
    GptConfig cfg = {.vocab = 9, .context = 6, .layers = 1, .dmodel = 8, .heads = 2, .dk = 4, .scale_mode = SCALE_SQRT,
                     .init_gain = 1};
    Gpt a, b;
    gpt_create(&a, &cfg);
    gpt_create(&b, &cfg);
    gpt_init(&a, 1);
    gpt_init(&b, 2);
    bool decay[GPT_MAX_PARAMS] = {false};
    OptimConfig oc = {.kind = name_find(optim_name, "adamw")};
    Optimizer oa, ob;
    optim_init(&oa, &oc, a.params, decay, a.n_params);
    optim_init(&ob, &oc, b.params, decay, b.n_params);
    for (size_t i = 0; i < oa.n_values; i++) {
        oa.state[0][i] = (real)i;
        oa.state[1][i] = (real)(2 * i);
    }
    Options o;
    options_defaults(&o);
    Vocab v;
    vocab_init(&v);
    for (int i = 0; i < 5; i++) vocab_add(&v, &"abcde"[i], 1);
    char err[512];
    char path[4096]; /* a copy: test_path returns a buffer that later calls reuse */
    snprintf(path, sizeof path, "%s", test_path("ckpt.safetensors"));
    RunState saved = {.next_step = 42, .steps_to_threshold = 17, .nan_count = 3, .interval_loss = 12.345678901234567,
                      .interval_steps = 5, .last_row_loss = 0.1 + 0.2, .rounding = {{.overflow = 7, .nan = 8, .underflow = 9}}},
             rs = {0};
    bool saved_ok = CHECK(checkpoint_save(path, &a, &oa, &saved, &o, &v, err, sizeof err), "save: %s", err);
    CHECK(checkpoint_load(path, &b, &ob, &rs, &v, err, sizeof err), "load: %s", err);
    CHECK(rs.next_step == 42 && rs.steps_to_threshold == 17 && rs.nan_count == 3 && rs.interval_steps == 5 &&
              rs.interval_loss == saved.interval_loss && rs.last_row_loss == saved.last_row_loss && rs.rounding[0].overflow == 7 && rs.rounding[0].nan == 8 &&
              rs.rounding[0].underflow == 9,
          "run state changed in the round trip");
    CHECK(memcmp(a.values, b.values, a.n_values * sizeof(real)) == 0, "parameters differ after the round trip");
    CHECK(memcmp(oa.state[0], ob.state[0], oa.n_values * sizeof(real)) == 0 && memcmp(oa.state[1], ob.state[1], oa.n_values * sizeof(real)) == 0,
          "Adam moments differ after the round trip");

    /* one flipped bit in the data: the checksum catches it */
    static unsigned char raw[1 << 16];
    size_t n = saved_ok ? read_all(path, raw, sizeof raw) : 0;
    if (!CHECK(n > 1000 && n < sizeof raw, "%s: read %zu bytes", path, n)) goto done; /* the corruptions need the file */
    raw[n - 7] ^= 0x10;
    const char *bad = test_write_file("flipped.safetensors", raw, n);
    CHECK(!checkpoint_load(bad, &b, &ob, &rs, &v, err, sizeof err) && strstr(err, "checksum mismatch"), "flip: %s", err);
    raw[n - 7] ^= 0x10;
    /* and in the header: a training setting in the metadata, changed in a way that parses */
    char *lr = strstr((char *)raw + 8, "\"config.lr\":\"0.");
    CHECK(lr != NULL, "no config.lr in the header");
    if (lr) {
        lr[15] = lr[15] == '9' ? '8' : (char)(lr[15] + 1); /* a digit of 0.003... */
        bad = test_write_file("header.safetensors", raw, n);
        CHECK(!checkpoint_load(bad, &b, &ob, &rs, &v, err, sizeof err) && strstr(err, "checksum mismatch"), "header: %s", err);
        /* the config is not read before the checksum has passed */
        Options o2;
        options_defaults(&o2);
        OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
        CHECK(!checkpoint_apply_config(bad, &o2, set, err, sizeof err) && strstr(err, "checksum mismatch"), "config: %s", err);
        lr[15] = lr[15] == '8' ? '9' : (char)(lr[15] - 1);
    }
    /* a file of the first format version, whose checksum covers the data section only, is read */
    char *format = strstr((char *)raw + 8, "attention-scale-checkpoint/3");
    char *digits = strstr((char *)raw + 8, "\"checksum\":\"crc32:");
    CHECK(format && digits, "no format or checksum in the header");
    if (format && digits) {
        format[27] = '1';
        uint64_t hlen = 0;
        for (int i = 7; i >= 0; i--) hlen = hlen << 8 | raw[i];
        char hex[9];
        snprintf(hex, sizeof hex, "%08x", crc32_update(0, raw + 8 + hlen, n - 8 - hlen));
        memcpy(digits + 18, hex, 8);
        bad = test_write_file("v1.safetensors", raw, n);
        CHECK(checkpoint_load(bad, &b, &ob, &rs, &v, err, sizeof err), "a /1 file: %s", err);
        raw[n - 7] ^= 0x10;
        bad = test_write_file("v1-flipped.safetensors", raw, n);
        CHECK(!checkpoint_load(bad, &b, &ob, &rs, &v, err, sizeof err) && strstr(err, "checksum mismatch"), "a /1 flip: %s", err);
        raw[n - 7] ^= 0x10;
        n = read_all(path, raw, sizeof raw); /* back to the file as saved */
    }
    /* truncated: the last tensor's bytes are gone */
    bad = test_write_file("truncated.safetensors", raw, n - 100);
    CHECK(!checkpoint_load(bad, &b, &ob, &rs, &v, err, sizeof err) && strstr(err, "outside"), "truncated: %s", err);

    /* a whole, checksummed file whose values are not usable: a NaN weight, a negative second moment */
    real keep = a.values[3];
    a.values[3] = (real)NAN;
    bad = test_path("nan.safetensors");
    CHECK(checkpoint_save(bad, &a, &oa, &saved, &o, &v, err, sizeof err), "save: %s", err);
    CHECK(!checkpoint_load(bad, &b, &ob, &rs, &v, err, sizeof err) && strstr(err, "holds nan at element 3"), "NaN weight: %s", err);
    a.values[3] = keep;
    real keep_v = oa.state[1][5];
    oa.state[1][5] = -1;
    CHECK(checkpoint_save(bad, &a, &oa, &saved, &o, &v, err, sizeof err), "save: %s", err);
    CHECK(!checkpoint_load(bad, &b, &ob, &rs, &v, err, sizeof err) && strstr(err, "optim.v.wte\" holds a negative value at element 5"),
          "negative second moment: %s", err);
    oa.state[1][5] = keep_v;

    /* a model of another shape is refused with the tensor's name */
    GptConfig wide = cfg;
    wide.dmodel = 12;
    Gpt c;
    gpt_create(&c, &wide);
    CHECK(!checkpoint_load(path, &c, NULL, &rs, &v, err, sizeof err) && strstr(err, "\"wte\" has shape [9x8]"),
          "shape mismatch: %s", err);
    /* and so is another vocabulary: the same size with other words, or another size */
    Vocab w2;
    vocab_init(&w2);
    for (int i = 0; i < 5; i++) vocab_add(&w2, &"vwxyz"[i], 1);
    CHECK(!checkpoint_load(path, &b, &ob, &rs, &w2, err, sizeof err) && strstr(err, "vocabulary"), "same size, other words: %s", err);
    vocab_free(&w2);
    vocab_add(&v, "z", 1);
    CHECK(!checkpoint_load(path, &b, &ob, &rs, &v, err, sizeof err) && strstr(err, "vocabulary"), "vocab: %s", err);
    gpt_free(&c);
done:
    vocab_free(&v);
    optim_free(&oa);
    optim_free(&ob);
    gpt_free(&a);
    gpt_free(&b);
}

/* Whether a saved file holds a tensor of this name (its header names it in quotes). */
static bool file_names(const char *path, const char *name)
{
    static unsigned char raw[1 << 16];
    size_t n = read_all(path, raw, sizeof raw - 1);
    raw[n] = 0;
    char quoted[128];
    snprintf(quoted, sizeof quoted, "\"%s\":{", name);
    size_t len = strlen(quoted);
    for (size_t i = 8; i + len <= n; i++)
        if (!memcmp(raw + i, quoted, len)) return true;
    return false;
}

/* A checkpoint keeps the chosen optimizer's state only; resumed with another optimizer, the new
 * one's state starts at zero. */
static void test_checkpoint_keeps_the_chosen_optimizers_state_only(void)
{
    GptConfig cfg = {.vocab = 9, .context = 6, .layers = 1, .dmodel = 8, .heads = 2, .dk = 4, .scale_mode = SCALE_SQRT,
                     .init_gain = 1};
    Gpt m;
    gpt_create(&m, &cfg);
    gpt_init(&m, 1);
    bool decay[GPT_MAX_PARAMS] = {false};
    OptimConfig adamw = {.kind = name_find(optim_name, "adamw")}, sgd = {.kind = name_find(optim_name, "sgd"), .momentum = 0.9};
    Optimizer oa, os;
    optim_init(&oa, &adamw, m.params, decay, m.n_params);
    optim_init(&os, &sgd, m.params, decay, m.n_params);
    CHECK(optim_state_kept(&oa, 0) && optim_state_kept(&oa, 1) && !optim_state_kept(&oa, 2) && !optim_state_kept(&os, 0) &&
              !optim_state_kept(&os, 1) && optim_state_kept(&os, 2),
          "AdamW keeps m and v only, SGD with momentum its momentum only");
    for (size_t i = 0; i < oa.n_values; i++) oa.state[0][i] = oa.state[1][i] = os.state[2][i] = 1;
    Options o;
    options_defaults(&o);
    Vocab v;
    vocab_init(&v);
    for (int i = 0; i < 5; i++) vocab_add(&v, &"abcde"[i], 1);
    char err[512], pa[4096], ps[4096];
    snprintf(pa, sizeof pa, "%s", test_path("adamw.safetensors"));
    snprintf(ps, sizeof ps, "%s", test_path("sgd.safetensors"));
    RunState rs = {0};
    CHECK(checkpoint_save(pa, &m, &oa, &rs, &o, &v, err, sizeof err) && checkpoint_save(ps, &m, &os, &rs, &o, &v, err, sizeof err),
          "save: %s", err);
    CHECK(file_names(pa, "optim.m.wte") && file_names(pa, "optim.v.wte") && !file_names(pa, "optim.momentum.wte"),
          "an AdamW checkpoint holds m and v, and no momentum");
    CHECK(file_names(ps, "optim.momentum.wte") && !file_names(ps, "optim.m.wte") && !file_names(ps, "optim.v.wte"),
          "an SGD checkpoint holds its momentum, and no m or v");
    /* resumed with the other optimizer (made afresh, as a run makes it): its state stays at zero */
    optim_free(&oa);
    optim_free(&os);
    optim_init(&oa, &adamw, m.params, decay, m.n_params);
    optim_init(&os, &sgd, m.params, decay, m.n_params);
    CHECK(checkpoint_load(pa, &m, &os, &rs, &v, err, sizeof err) && checkpoint_load(ps, &m, &oa, &rs, &v, err, sizeof err),
          "load across optimizers: %s", err);
    bool zero = true;
    for (size_t i = 0; i < oa.n_values; i++) zero = zero && os.state[2][i] == 0 && oa.state[0][i] == 0 && oa.state[1][i] == 0;
    CHECK(zero, "the other optimizer's state starts at zero");
    vocab_free(&v);
    optim_free(&oa);
    optim_free(&os);
    gpt_free(&m);
}

/* The run state in the metadata is checked like a flag: a checksummed file whose interval loss
 * is NaN, or which counts more steps than it has done, is refused on load. */
static void test_checkpoint_run_state_is_checked(void)
{
    GptConfig cfg = {.vocab = 9, .context = 6, .layers = 1, .dmodel = 8, .heads = 2, .dk = 4, .scale_mode = SCALE_SQRT,
                     .init_gain = 1};
    Gpt a;
    gpt_create(&a, &cfg);
    gpt_init(&a, 1);
    bool decay[GPT_MAX_PARAMS] = {false};
    OptimConfig oc = {.kind = name_find(optim_name, "adamw")};
    Optimizer opt;
    optim_init(&opt, &oc, a.params, decay, a.n_params);
    Options o;
    options_defaults(&o);
    Vocab v;
    vocab_init(&v);
    for (int i = 0; i < 5; i++) vocab_add(&v, &"abcde"[i], 1);
    struct {
        RunState rs;
        const char *expect; /* NULL: loads */
    } cases[] = {
        {{42, 17, 3, 12.5, 5, 1.5, {{0}}}, NULL},
        {{42, -1, 0, 0, 0, NAN, {{0}}}, NULL}, /* no row logged yet: the last row's loss is nan */
        {{42, 17, 3, 12.5, 5, INFINITY, {{0}}}, NULL},
        {{42, 17, 3, 12.5, 5, -1.0, {{0}}}, "\"run.last_row_loss\" is \"-1\", not a loss"},
        {{42, 17, 3, NAN, 5, 1.5, {{0}}}, "a finite loss"},
        {{42, 17, 3, INFINITY, 5, 1.5, {{0}}}, "a finite loss"},
        {{42, 17, 3, -1.0, 5, 1.5, {{0}}}, "a finite loss"},
        {{42, 17, 3, 1.0, 43, 1.5, {{0}}}, "more steps than the 42"},
        {{42, 43, 3, 1.0, 5, 1.5, {{0}}}, "more steps than the 42"},
        {{42, 17, 3, 1.0, 5, 1.5, {{.overflow = -1}}}, "\"run.fp_overflows\" is not a list of 1 count, one per layer"},
        {{42, 17, -2, 1.0, 5, 1.5, {{0}}}, "run.* entry"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char err[512] = "";
        const char *p = test_path("state.safetensors");
        if (!CHECK(checkpoint_save(p, &a, &opt, &cases[k].rs, &o, &v, err, sizeof err), "save %zu: %s", k, err)) continue;
        RunState back = {0};
        bool ok = checkpoint_load(p, &a, &opt, &back, &v, err, sizeof err);
        if (cases[k].expect)
            CHECK(!ok && strstr(err, cases[k].expect), "case %zu: want \"%s\", got \"%s\"", k, cases[k].expect,
                  ok ? "(loaded)" : err);
        else
            CHECK(ok && back.next_step == 42 && back.interval_loss == cases[k].rs.interval_loss &&
                      (back.last_row_loss == cases[k].rs.last_row_loss || (isnan(back.last_row_loss) && isnan(cases[k].rs.last_row_loss))),
                  "case %zu: %s", k, err);
    }
    vocab_free(&v);
    optim_free(&opt);
    gpt_free(&a);
}

/* ------------------------------------------------------------------ options */

static bool parse(Options *o, char *err, int argc, char **argv)
{
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    bool help;
    options_defaults(o);
    return options_parse_args(o, argc, argv, set, &help, err, 512) && options_validate(o, err, 512);
}

static void expect_args_error(const char *flag, const char *expect)
{
    Options o;
    char err[512] = "";
    char *argv[3] = {"train", (char *)flag, NULL};
    bool ok = parse(&o, err, 2, argv);
    CHECK(!ok && strstr(err, expect), "%s: want an error with \"%s\", got \"%s\"", flag, expect, ok ? "(accepted)" : err);
}

/* A checkpoint's settings without one "config." entry: an option added since format /2 (a file
 * from before it) is read as its default; any other one missing is an error. */
static bool apply_config_lacking(const char *missing, Options *o, char *err, size_t err_len)
{
    Options made;
    options_defaults(o);
    options_defaults(&made);
    made.model.attn = name_find(attn_kind_name, "cosine"); /* so that a default read in its place shows */
    made.optim.lr = 0.125;
    StWriter w;
    st_writer_init(&w);
    st_add_meta(&w, "format", "attention-scale-checkpoint/2");
    for (int i = 0; i < options_count(); i++) {
        if (options_group(i) == GROUP_RUN || !strcmp(options_name(i), missing)) continue;
        char key[96];
        snprintf(key, sizeof key, "config.%s", options_name(i));
        st_add_meta(&w, key, options_format(&made, i));
    }
    char path[4096];
    snprintf(path, sizeof path, "%s", test_path("lacking.safetensors"));
    bool written = st_write(&w, path, err, err_len);
    st_writer_free(&w);
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    return written && checkpoint_apply_config(path, o, set, err, err_len);
}

static void test_checkpoint_config_from_older_files(void)
{
    Options o;
    options_defaults(&o);
    char err[512] = "";
    CHECK(apply_config_lacking("attn", &o, err, sizeof err) && o.model.attn == name_find(attn_kind_name, "dot") && o.optim.lr == 0.125,
          "a file lacking config.attn (older than it): %s; attn %d (want dot), lr %g (want the file's 0.125)",
          err[0] ? err : "loaded", o.model.attn, o.optim.lr);
    CHECK(apply_config_lacking("momentum", &o, err, sizeof err) && o.optim.momentum == 0 && o.model.attn == name_find(attn_kind_name, "cosine"),
          "a file lacking config.momentum: %s", err);
    err[0] = 0;
    CHECK(!apply_config_lacking("lr", &o, err, sizeof err) && strstr(err, "lacks \"config.lr\""),
          "a file lacking config.lr (always written) must be refused, got: %s", err[0] ? err : "(loaded)");
}

static void test_flags_are_checked(void)
{
    Options o;
    char err[512];
    char *good[] = {"train", "--lr=1e-3", "--layers=3", "--scale=8", "--seed=18446744073709551615", "--quiet", "--lr=.5", NULL};
    CHECK(parse(&o, err, 7, good), "good flags refused: %s", err);
    CHECK(o.optim.lr == 0.5 && o.model.layers == 3 && o.model.scale_mode == SCALE_CONST && o.model.scale_const == 8 && o.data.seed == UINT64_MAX && o.run.quiet, "flag values");
    expect_args_error("--lr=1e-3x", "not a finite decimal number");
    expect_args_error("--lr=", "not a finite decimal number");
    expect_args_error("--lr=nan", "not a finite decimal number");
    expect_args_error("--lr=0x10", "not a finite decimal number"); /* strtod would read 16 */
    expect_args_error("--lr=0x1p-4", "not a finite decimal number");
    expect_args_error("--lr=1e400", "not a finite decimal number");
    char *tiny[] = {"train", "--weight-decay=5e-324", NULL}; /* below a double's full precision: still a number */
    CHECK(parse(&o, err, 2, tiny) && o.optim.weight_decay > 0 && o.optim.weight_decay < 1e-323, "--weight-decay=5e-324: %s", err);
    expect_args_error("--layers=abc", "not an integer");
    expect_args_error("--layers=0", "between 1 and 24");
    expect_args_error("--layers=99999999999999999999", "not an integer");
    expect_args_error("--dropout=1", "between");
    expect_args_error("--scale=0", "from 1e-4 to 1e8");
    expect_args_error("--scale=-2", "from 1e-4 to 1e8");
    expect_args_error("--scale=sqrtx", "must be 1, sqrt, dk, learned");
    expect_args_error("--task=sorted", "one of copy|reverse|translate|sort|recall|lookup|tsv");
    expect_args_error("--bogus=1", "--bogus: unknown option (see --help)"); /* nothing near: no guess */
    expect_args_error("--stpes=3", "--stpes: unknown option; did you mean --steps?");   /* two letters swapped */
    expect_args_error("--layer=3", "did you mean --layers?");                           /* one left out */
    expect_args_error("--schale=1", "did you mean --scale?");                           /* one too many */
    expect_args_error("--lr-warmpu=3", "unknown option (see --help)");                 /* three edits from --warmup */
    expect_args_error("--task=lokup", "one of copy|reverse|translate|sort|recall|lookup|tsv; did you mean lookup?"); /* a value */
    expect_args_error("--optim=adam", "did you mean adamw?");
    expect_args_error("--task=banana", "|tsv");                                         /* nothing near: no guess */
    expect_args_error("--pairs=3", "--pairs: unknown option; did you mean --recall-pairs? (see --help)"); /* a part of a name */
    expect_args_error("--show-attn", "did you mean --show-attention?");
    expect_args_error("--lookup=2", "did you mean --lookup-queries?");
    expect_args_error("--ion=2", "--ion: unknown option (see --help)"); /* a part of five names: no guess */
    expect_args_error("--every=2", "did you mean --log-every, --eval-every or --save-every?");
    CHECK(edit_distance("stpes", "steps") == 1 && edit_distance("", "abc") == 3 && edit_distance("kitten", "sitting") == 3 &&
              edit_distance("same", "same") == 0,
          "edit distances: stpes/steps %d, ''/abc %d, kitten/sitting %d", edit_distance("stpes", "steps"), edit_distance("", "abc"),
          edit_distance("kitten", "sitting"));
    expect_args_error("--lr", "missing value");
    expect_args_error("stray", "unexpected argument");
    expect_args_error("--heads=5", "--heads=5 does not divide --dmodel=64");
    expect_args_error("--seed=-1", "non-negative");
    expect_args_error("--steps=+5", "not an integer");
    expect_args_error("--layers= 1", "not an integer");
    expect_args_error("--lr=\t0.1", "not a finite decimal number");
    expect_args_error("--seed=\t5", "not a non-negative integer");
    expect_args_error("--scale=1e-40", "from 1e-4 to 1e8");
    expect_args_error("--data=\xff.tsv", "not valid UTF-8");
}

/* --help, -h and --help=1/true/yes ask for the usage; --help=0 does not; anything else is an error */
static void test_help_flag(void)
{
    const char *yes[] = {"--help", "-h", "--help=1", "--help=true", "--help=yes"};
    const char *no[] = {"--help=0", "--help=no"};
    Options o;
    char err[512] = "";
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    bool help = false;
    for (int k = 0; k < 5; k++) {
        char *argv[] = {"train", (char *)yes[k], NULL};
        options_defaults(&o);
        bool ok = options_parse_args(&o, 2, argv, set, &help, err, sizeof err);
        CHECK(ok && help, "%s: %s", yes[k], ok ? "not taken as help" : err);
    }
    for (int k = 0; k < 2; k++) {
        char *argv[] = {"train", (char *)no[k], NULL};
        options_defaults(&o);
        CHECK(options_parse_args(&o, 2, argv, set, &help, err, sizeof err) && !help, "%s: %s", no[k], err);
    }
    char *argv[] = {"train", "--help=maybe", NULL};
    CHECK(!options_parse_args(&o, 2, argv, set, &help, err, sizeof err) && strstr(err, "expected 0 or 1"), "--help=maybe: %s",
          err);
}

/* --help lists every option once, in the section its row names: a row that names none would be
 * missing from --help. */
static void test_help_sections_cover_every_option(void)
{
    int missing = 0;
    for (int i = 0; i < options_count(); i++)
        if (options_help_section(i) < 0) {
            CHECK(false, "--%s is in no --help section (run/options.c: its row's .section)", options_name(i));
            missing++;
        }
    CHECK(options_count() > 40 && missing == 0, "%d options, %d without a section", options_count(), missing);
}

static void test_config_files(void)
{
    const char *text = "# a comment\n\nlayers = 3   # trailing comment\n  lr=0.01\nscale = dk\n";
    const char *cfg = test_write_file("good.cfg", text, strlen(text));
    char flag[1100];
    snprintf(flag, sizeof flag, "--config=%s", cfg);
    char *argv[] = {"train", "--lr=0.5", flag, NULL}; /* the flag wins over the file, wherever it stands */
    Options o;
    char err[512];
    CHECK(parse(&o, err, 3, argv), "good config refused: %s", err);
    CHECK(o.model.layers == 3 && o.optim.lr == 0.5 && o.model.scale_mode == SCALE_DK, "config values: layers %d lr %g scale %d", o.model.layers, o.optim.lr, o.model.scale_mode);
    struct {
        const char *text, *expect;
    } bad[] = {
        {"layers = 2\nnot a pair\n", "bad.cfg:2: expected \"key = value\""},
        {"colour = red\n", "bad.cfg:1: colour: unknown option (see --help)"},
        {"layres = 2\n", "bad.cfg:1: layres: unknown option; did you mean layers? (see --help)"},
        {"lr = \n", "bad.cfg:1: missing value"},
        {"lr = 1e-3x\n", "bad.cfg:1: lr=1e-3x: not a finite decimal number"},
        {"config = other.cfg\n", "cannot include"},
        {" = 3\n", "missing key"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        const char *p = test_write_file("bad.cfg", bad[k].text, strlen(bad[k].text));
        snprintf(flag, sizeof flag, "--config=%s", p);
        char *av[] = {"train", flag, NULL};
        bool ok = parse(&o, err, 2, av);
        CHECK(!ok && strstr(err, bad[k].expect), "config %zu: want \"%s\", got \"%s\"", k, bad[k].expect, ok ? "(accepted)" : err);
    }
    /* saved by a Windows editor (byte-order mark, CRLF) or an old Mac (CR): read as plain text */
    const char *variants[] = {"\xef\xbb\xbflayers = 3\r\nlr=0.01\r\nscale = dk\r\n", "\xef\xbb\xbflayers = 3\rlr=0.01\rscale = dk",
                              "layers = 3\rlr=0.01\r\rscale = dk\r"};
    for (int k = 0; k < 3; k++) {
        const char *p = test_write_file("crlf.cfg", variants[k], strlen(variants[k]));
        snprintf(flag, sizeof flag, "--config=%s", p);
        char *av[] = {"train", flag, NULL};
        bool ok = parse(&o, err, 2, av);
        CHECK(ok && o.model.layers == 3 && o.optim.lr == 0.01 && o.model.scale_mode == SCALE_DK, "variant %d: %s", k, ok ? "other values" : err);
    }
    char *missing[] = {"train", "--config=/nonexistent/x.cfg", NULL};
    CHECK(!parse(&o, err, 2, missing) && strstr(err, "No such file"), "missing config: %s", err);
}

/* set[] says where a value came from; with --decode an option of training refused as a flag is
 * let through from a config file (written for a training run), and its outputs are dropped. */
static void test_config_file_or_flag(void)
{
    const char *text = "steps = 5\nlr = 0.01\nsave = /nonexistent/x.st\n";
    const char *cfg = test_write_file("train.cfg", text, strlen(text));
    char flag[1100], err[512] = "";
    snprintf(flag, sizeof flag, "--config=%s", cfg);
    char *argv[] = {"train", flag, "--decode", "--lr=0.02", NULL};
    Options o;
    OptGiven set[OPTIONS_MAX] = {GIVEN_NOT};
    bool help;
    options_defaults(&o);
    CHECK(options_parse_args(&o, 4, argv, set, &help, err, sizeof err), "%s", err);
    CHECK(set[options_index("steps")] == GIVEN_IN_CONFIG && set[options_index("lr")] == GIVEN_AS_FLAG &&
              set[options_index("decode")] == GIVEN_AS_FLAG && set[options_index("layers")] == GIVEN_NOT,
          "set[] does not tell the file from a flag");
    CHECK(!options_check_given(&o, set, err, sizeof err) && strstr(err, "--lr=0.02 does nothing here"),
          "--decode --lr (a flag) must be refused: %s", err);
    set[options_index("lr")] = GIVEN_IN_CONFIG;
    err[0] = 0;
    CHECK(options_check_given(&o, set, err, sizeof err), "--decode with a config file's steps and lr refused: %s", err);
    options_decode_ignore_config(&o, set);
    CHECK(o.run.save[0] == 0 && o.optim.steps == 5, "--decode: the file's --save is not dropped (%s), or its steps are (%d)", o.run.save,
          o.optim.steps);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"safetensors: round trip, byte layout, metadata, checksum", test_safetensors_round_trip},
        {"safetensors: bad headers are refused with a message", test_safetensors_rejects_bad_headers},
        {"safetensors: bad files are refused with a message", test_safetensors_rejects_bad_files},
        {"safetensors: large headers, duplicate names, the tensor limit", test_safetensors_many_tensors},
        {"checkpoint: round trip; flipped byte, truncation, shape, vocab", test_checkpoint_round_trip_and_corruption},
        {"checkpoint: the chosen optimizer's state only; another optimizer's starts at zero", test_checkpoint_keeps_the_chosen_optimizers_state_only},
        {"checkpoint: the run state is checked on load (finite loss, step counts)", test_checkpoint_run_state_is_checked},
        {"checkpoint: options newer than a file read as their defaults, others required", test_checkpoint_config_from_older_files},
        {"safetensors: the writer refuses what the reader would refuse", test_safetensors_writer_stays_within_reader_limits},
        {"options: flags are parsed and checked", test_flags_are_checked},
        {"options: config files, and flags override them", test_config_files},
        {"options: a config file's value and a flag's, with --decode", test_config_file_or_flag},
        {"options: --help, --help=1, --help=0", test_help_flag},
        {"options: --help shows every option in a section", test_help_sections_cover_every_option},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
