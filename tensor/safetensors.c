/* safetensors.c - a strict reader and an atomic writer for safetensors files.
 *
 * The reader treats the file as hostile: every length is bounded, every offset is checked
 * against the data actually present, and the JSON header must have exactly the expected
 * shape. Any problem is a one-line error, never an out-of-bounds read.
 */
#define _POSIX_C_SOURCE 200809L /* fsync, fileno, getpid, open */

#include "safetensors.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#define CHECKSUM_FIELD "\"checksum\":\"crc32:" /* as written; a quote inside a JSON string is escaped,
                                               so this text cannot occur anywhere else */

static const char *dtype_name(StDtype d) { return d == ST_F32 ? "F32" : d == ST_I32 ? "I32" : "U8"; }
static size_t dtype_size(StDtype d) { return d == ST_U8 ? 1 : 4; }

/* ------------------------------------------------------------------ CRC-32 */

uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n)
{
    /* Reflected CRC-32, polynomial 0xEDB88320 (zlib's crc32, Python's zlib.crc32). */
    static uint32_t table[256];
    static bool ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = true;
    }
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* ------------------------------------------------------------------ JSON header parsing */

typedef struct Json {
    const char *p, *end;
    char *err;
    size_t err_len;
    char *scratch; /* room for the longest string: the header's length */
} Json;

static void skip_ws(Json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) j->p++;
}

static bool expect(Json *j, char c)
{
    skip_ws(j);
    if (j->p >= j->end || *j->p != c) return errorf(j->err, j->err_len, "checkpoint header: expected '%c'", c);
    j->p++;
    return true;
}

static bool peek(Json *j, char c)
{
    skip_ws(j);
    return j->p < j->end && *j->p == c;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool read_hex4(Json *j, unsigned *v)
{
    if (j->end - j->p < 4) return errorf(j->err, j->err_len, "checkpoint header: bad \\u escape");
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(j->p[i]);
        if (d < 0) return errorf(j->err, j->err_len, "checkpoint header: bad \\u escape");
        *v = *v * 16 + (unsigned)d;
    }
    j->p += 4;
    return true;
}

/* A JSON string into j->scratch (NUL-terminated, escapes decoded); its length in *len. */
static bool parse_string(Json *j, size_t *len)
{
    if (!expect(j, '"')) return false;
    size_t n = 0;
    char *out = j->scratch;
    for (;;) {
        if (j->p >= j->end) return errorf(j->err, j->err_len, "checkpoint header: unterminated string");
        unsigned char c = (unsigned char)*j->p++;
        if (c == '"') break;
        if (c < 0x20) return errorf(j->err, j->err_len, "checkpoint header: control character in a string");
        if (c != '\\') {
            out[n++] = (char)c;
            continue;
        }
        if (j->p >= j->end) return errorf(j->err, j->err_len, "checkpoint header: unterminated string");
        char e = *j->p++;
        const char *simple = "\"\\/bfnrt", *value = "\"\\/\b\f\n\r\t";
        const char *at = strchr(simple, e);
        if (at && e) {
            out[n++] = value[at - simple];
            continue;
        }
        if (e != 'u') return errorf(j->err, j->err_len, "checkpoint header: bad escape \\%c", e);
        unsigned cp;
        if (!read_hex4(j, &cp)) return false;
        if (cp >= 0xd800 && cp <= 0xdbff) { /* a surrogate pair */
            unsigned lo;
            if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u')
                return errorf(j->err, j->err_len, "checkpoint header: lone surrogate in a string");
            j->p += 2;
            if (!read_hex4(j, &lo)) return false;
            if (lo < 0xdc00 || lo > 0xdfff) return errorf(j->err, j->err_len, "checkpoint header: bad surrogate pair");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            return errorf(j->err, j->err_len, "checkpoint header: lone surrogate in a string");
        }
        if (cp == 0) return errorf(j->err, j->err_len, "checkpoint header: NUL in a string");
        /* UTF-8: at most 4 bytes, and the escape itself took at least 6, so it fits in scratch */
        if (cp < 0x80) out[n++] = (char)cp;
        else if (cp < 0x800) {
            out[n++] = (char)(0xc0 | cp >> 6);
            out[n++] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out[n++] = (char)(0xe0 | cp >> 12);
            out[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
            out[n++] = (char)(0x80 | (cp & 0x3f));
        } else {
            out[n++] = (char)(0xf0 | cp >> 18);
            out[n++] = (char)(0x80 | (cp >> 12 & 0x3f));
            out[n++] = (char)(0x80 | (cp >> 6 & 0x3f));
            out[n++] = (char)(0x80 | (cp & 0x3f));
        }
    }
    out[n] = 0;
    *len = n;
    return true;
}

/* A non-negative integer (no sign, fraction or exponent) that fits in 64 bits. */
static bool parse_uint(Json *j, uint64_t *v)
{
    skip_ws(j);
    if (j->p >= j->end || *j->p < '0' || *j->p > '9')
        return errorf(j->err, j->err_len, "checkpoint header: expected a non-negative integer");
    if (*j->p == '0' && j->end - j->p > 1 && j->p[1] >= '0' && j->p[1] <= '9')
        return errorf(j->err, j->err_len, "checkpoint header: number with a leading zero");
    uint64_t x = 0;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        unsigned d = (unsigned)(*j->p++ - '0');
        if (x > (UINT64_MAX - d) / 10) return errorf(j->err, j->err_len, "checkpoint header: number too large");
        x = x * 10 + d;
    }
    if (j->p < j->end && (*j->p == '.' || *j->p == 'e' || *j->p == 'E'))
        return errorf(j->err, j->err_len, "checkpoint header: expected an integer");
    *v = x;
    return true;
}

static char *copy_string(const char *s, size_t n)
{
    char *c = mem_alloc(n + 1);
    memcpy(c, s, n);
    c[n] = 0;
    return c;
}

static bool parse_metadata(Json *j, StFile *sf)
{
    if (!expect(j, '{')) return false;
    if (peek(j, '}')) return expect(j, '}');
    int cap = 0;
    for (;;) {
        size_t klen, vlen;
        if (!parse_string(j, &klen)) return false;
        if (sf->n_meta == ST_MAX_META) return errorf(j->err, j->err_len, "checkpoint header: too many metadata entries");
        if (sf->n_meta == cap) {
            cap = cap ? 2 * cap : 16;
            sf->meta = mem_grow(sf->meta, (size_t)sf->n_meta * sizeof(StMeta), (size_t)cap * sizeof(StMeta));
        }
        StMeta *m = &sf->meta[sf->n_meta];
        m->key = copy_string(j->scratch, klen);
        m->value = NULL;
        sf->n_meta++;
        for (int i = 0; i < sf->n_meta - 1; i++)
            if (!strcmp(sf->meta[i].key, m->key))
                return errorf(j->err, j->err_len, "checkpoint header: metadata key \"%.64s\" appears twice", m->key);
        if (!expect(j, ':')) return false;
        if (!parse_string(j, &vlen)) return false;
        m->value = copy_string(j->scratch, vlen);
        if (peek(j, ',')) {
            j->p++;
            continue;
        }
        return expect(j, '}');
    }
}

static bool parse_dtype(Json *j, StDtype *d)
{
    size_t n;
    if (!parse_string(j, &n)) return false;
    if (!strcmp(j->scratch, "F32")) *d = ST_F32;
    else if (!strcmp(j->scratch, "I32")) *d = ST_I32;
    else if (!strcmp(j->scratch, "U8")) *d = ST_U8;
    else return errorf(j->err, j->err_len, "checkpoint header: unsupported dtype \"%.16s\"", j->scratch);
    return true;
}

static bool parse_tensor(Json *j, StTensor *t, uint64_t data_size)
{
    bool has_dtype = false, has_shape = false, has_offsets = false;
    if (!expect(j, '{')) return false;
    for (;;) {
        size_t n;
        if (!parse_string(j, &n)) return false;
        if (!expect(j, ':')) return false;
        if (!strcmp(j->scratch, "dtype") && !has_dtype) {
            if (!parse_dtype(j, &t->dtype)) return false;
            has_dtype = true;
        } else if (!strcmp(j->scratch, "shape") && !has_shape) {
            if (!expect(j, '[')) return false;
            t->ndim = 0;
            if (!peek(j, ']')) {
                for (;;) {
                    uint64_t v;
                    if (t->ndim == ST_MAX_DIMS) return errorf(j->err, j->err_len, "checkpoint header: more than %d dims", ST_MAX_DIMS);
                    if (!parse_uint(j, &v)) return false;
                    if (v > INT32_MAX) return errorf(j->err, j->err_len, "checkpoint header: dimension too large");
                    t->shape[t->ndim++] = (int64_t)v;
                    if (peek(j, ',')) { j->p++; continue; }
                    break;
                }
            }
            if (!expect(j, ']')) return false;
            has_shape = true;
        } else if (!strcmp(j->scratch, "data_offsets") && !has_offsets) {
            if (!expect(j, '[') || !parse_uint(j, &t->begin) || !expect(j, ',') || !parse_uint(j, &t->end) ||
                !expect(j, ']'))
                return false;
            has_offsets = true;
        } else {
            return errorf(j->err, j->err_len, "checkpoint header: unexpected or repeated key \"%.32s\" in tensor \"%.64s\"",
                        j->scratch, t->name);
        }
        if (peek(j, ',')) { j->p++; continue; }
        if (!expect(j, '}')) return false;
        break;
    }
    if (!has_dtype || !has_shape || !has_offsets)
        return errorf(j->err, j->err_len, "checkpoint header: tensor \"%.64s\" lacks dtype, shape or data_offsets", t->name);
    /* element count and byte size, with overflow checks */
    size_t count = 1, bytes;
    for (int d = 0; d < t->ndim; d++)
        if (!size_mul(count, (size_t)t->shape[d], &count))
            return errorf(j->err, j->err_len, "checkpoint: tensor \"%.64s\" is impossibly large", t->name);
    if (!size_mul(count, dtype_size(t->dtype), &bytes))
        return errorf(j->err, j->err_len, "checkpoint: tensor \"%.64s\" is impossibly large", t->name);
    t->count = count;
    if (t->begin > t->end || t->end > data_size)
        return errorf(j->err, j->err_len, "checkpoint: tensor \"%.64s\" has offsets [%llu, %llu] outside the %llu data bytes",
                    t->name, (unsigned long long)t->begin, (unsigned long long)t->end, (unsigned long long)data_size);
    if (t->end - t->begin != bytes)
        return errorf(j->err, j->err_len, "checkpoint: tensor \"%.64s\" has %llu bytes, its shape and dtype need %zu",
                    t->name, (unsigned long long)(t->end - t->begin), bytes);
    return true;
}

/* ------------------------------------------------------------------ the name index */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot holding tensor `name`, or the empty slot where it would go. */
static int *index_slot(const StFile *sf, const char *name)
{
    size_t mask = (size_t)sf->index_cap - 1, i = name_hash(name) & mask;
    while (sf->index[i] >= 0 && strcmp(sf->tensors[sf->index[i]].name, name) != 0) i = (i + 1) & mask;
    return &sf->index[i];
}

/* Adds tensor k to the index (growing it to keep it at most half full); false if its name is
 * already there. */
static bool index_add(StFile *sf, int k)
{
    if (2 * (k + 1) > sf->index_cap) {
        int cap = sf->index_cap ? 2 * sf->index_cap : 256;
        mem_free(sf->index);
        sf->index = mem_alloc((size_t)cap * sizeof(int));
        sf->index_cap = cap;
        for (int i = 0; i < cap; i++) sf->index[i] = -1;
        for (int i = 0; i < k; i++) *index_slot(sf, sf->tensors[i].name) = i;
    }
    int *slot = index_slot(sf, sf->tensors[k].name);
    if (*slot >= 0) return false;
    *slot = k;
    return true;
}

static int cmp_begin(const void *a, const void *b)
{
    const StTensor *x = *(StTensor *const *)a, *y = *(StTensor *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end; /* empty tensors first */
}

/* The format's rule: the tensors' byte ranges cover the data section exactly, without gaps or
 * overlaps (empty tensors aside). A header whose offsets were damaged breaks it. */
static bool tiles_data(const StFile *sf)
{
    if (sf->n_tensors == 0) return sf->data_size == 0;
    StTensor **order = mem_alloc((size_t)sf->n_tensors * sizeof *order);
    for (int i = 0; i < sf->n_tensors; i++) order[i] = &sf->tensors[i];
    qsort(order, (size_t)sf->n_tensors, sizeof *order, cmp_begin);
    uint64_t at = 0;
    bool ok = true;
    for (int i = 0; i < sf->n_tensors && ok; i++) {
        if (order[i]->begin == order[i]->end) continue; /* an empty tensor takes no room */
        ok = order[i]->begin == at;
        at = order[i]->end;
    }
    mem_free(order);
    return ok && at == sf->data_size;
}

bool st_parse_header(StFile *sf, const char *json, size_t len, uint64_t data_size, char *err, size_t err_len)
{
    memset(sf, 0, sizeof *sf);
    sf->data_size = data_size;
    Json j = {json, json + len, err, err_len, mem_alloc(len + 1)};
    bool ok = false;
    int cap = 0;
    if (!expect(&j, '{')) goto done;
    if (peek(&j, '}')) {
        j.p++;
    } else {
        for (;;) {
            size_t n;
            if (!parse_string(&j, &n)) goto done;
            if (!expect(&j, ':')) goto done;
            if (!strcmp(j.scratch, "__metadata__")) {
                if (sf->meta || sf->n_meta) {
                    errorf(err, err_len, "checkpoint header: __metadata__ appears twice");
                    goto done;
                }
                if (!parse_metadata(&j, sf)) goto done;
            } else {
                if (n >= ST_MAX_NAME) {
                    errorf(err, err_len, "checkpoint header: tensor name longer than %d bytes", ST_MAX_NAME - 1);
                    goto done;
                }
                if (sf->n_tensors == ST_MAX_TENSORS) {
                    errorf(err, err_len, "checkpoint header: too many tensors");
                    goto done;
                }
                if (sf->n_tensors == cap) {
                    cap = cap ? 2 * cap : 64;
                    sf->tensors = mem_grow(sf->tensors, (size_t)sf->n_tensors * sizeof(StTensor),
                                           (size_t)cap * sizeof(StTensor));
                }
                StTensor *t = &sf->tensors[sf->n_tensors];
                memset(t, 0, sizeof *t);
                memcpy(t->name, j.scratch, n + 1);
                if (!index_add(sf, sf->n_tensors)) {
                    errorf(err, err_len, "checkpoint header: tensor \"%.64s\" appears twice", t->name);
                    goto done;
                }
                sf->n_tensors++; /* counted before parsing, so that st_close frees what was indexed */
                if (!parse_tensor(&j, t, data_size)) goto done;
            }
            if (peek(&j, ',')) { j.p++; continue; }
            if (!expect(&j, '}')) goto done;
            break;
        }
    }
    skip_ws(&j);
    if (j.p != j.end) {
        errorf(err, err_len, "checkpoint header: unexpected bytes after the JSON object");
        goto done;
    }
    if (!tiles_data(sf)) {
        errorf(err, err_len, "checkpoint header: the tensors' byte ranges overlap or leave gaps in the data");
        goto done;
    }
    ok = true;
done:
    mem_free(j.scratch);
    if (!ok) st_close(sf);
    return ok;
}

/* ------------------------------------------------------------------ reading files */

bool st_open(StFile *sf, const char *path, char *err, size_t err_len)
{
    memset(sf, 0, sizeof *sf);
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why);
    if (!f) return errorf(err, err_len, "cannot open checkpoint %s: %s", path, why);
    return st_open_stream(sf, f, path, err, err_len);
}

bool st_open_stream(StFile *sf, FILE *f, const char *path, char *err, size_t err_len)
{
    memset(sf, 0, sizeof *sf);
    unsigned char len8[8];
    long size;
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return errorf(err, err_len, "cannot read checkpoint %s: not a regular file", path);
    }
    if (size < 8 || fread(len8, 1, 8, f) != 8) {
        fclose(f);
        return errorf(err, err_len, "checkpoint %s: truncated (%ld bytes, no header)", path, size);
    }
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | len8[i];
    if (hlen > (uint64_t)size - 8) {
        fclose(f);
        return errorf(err, err_len, "checkpoint %s: header length %llu does not fit the %ld-byte file (not a safetensors file?)",
                      path, (unsigned long long)hlen, size);
    }
    if (hlen > ST_MAX_HEADER) {
        fclose(f);
        return errorf(err, err_len, "checkpoint %s: a header of %llu bytes, more than the format's limit of %u MB", path,
                      (unsigned long long)hlen, ST_MAX_HEADER >> 20);
    }
    char *json = mem_alloc((size_t)hlen + 1); /* zeroed: a NUL-terminated string */
    if (fread(json, 1, (size_t)hlen, f) != hlen) {
        mem_free(json);
        fclose(f);
        return errorf(err, err_len, "checkpoint %s: truncated header", path);
    }
    char inner[256];
    bool ok = st_parse_header(sf, json, (size_t)hlen, (uint64_t)size - 8 - hlen, inner, sizeof inner);
    if (!ok) {
        mem_free(json);
        fclose(f);
        return errorf(err, err_len, "%s: %s", path, inner);
    }
    sf->f = f;
    sf->header = json;
    sf->header_len = hlen;
    sf->data_start = 8 + hlen;
    return true;
}

void st_close(StFile *sf)
{
    if (sf->f) fclose(sf->f);
    for (int i = 0; i < sf->n_meta; i++) {
        mem_free(sf->meta[i].key);
        mem_free(sf->meta[i].value);
    }
    mem_free(sf->meta);
    mem_free(sf->tensors);
    mem_free(sf->index);
    mem_free(sf->header);
    memset(sf, 0, sizeof *sf);
}

const StTensor *st_find(const StFile *sf, const char *name)
{
    if (!sf->index_cap) return NULL;
    int k = *index_slot(sf, name);
    return k >= 0 ? &sf->tensors[k] : NULL;
}

const char *st_meta(const StFile *sf, const char *key)
{
    for (int i = 0; i < sf->n_meta; i++)
        if (sf->meta[i].key && !strcmp(sf->meta[i].key, key)) return sf->meta[i].value;
    return NULL;
}

/* Streams a tensor's bytes through `consume` in chunks. */
static bool read_bytes(StFile *sf, const StTensor *t, StDtype want, void (*consume)(const unsigned char *, size_t, size_t, void *),
                       void *dst, char *err, size_t err_len)
{
    if (t->dtype != want)
        return errorf(err, err_len, "checkpoint: tensor \"%.64s\" is %s, expected %s", t->name, dtype_name(t->dtype), dtype_name(want));
    if (fseek(sf->f, (long)(sf->data_start + t->begin), SEEK_SET) != 0)
        return errorf(err, err_len, "checkpoint: cannot seek to tensor \"%.64s\"", t->name);
    unsigned char buf[1 << 14];
    size_t esize = dtype_size(t->dtype), total = t->count * esize, done = 0;
    while (done < total) {
        size_t want_bytes = total - done < sizeof buf ? total - done : sizeof buf;
        if (fread(buf, 1, want_bytes, sf->f) != want_bytes)
            return errorf(err, err_len, "checkpoint: truncated data in tensor \"%.64s\"", t->name);
        consume(buf, want_bytes, done / esize, dst);
        done += want_bytes;
    }
    return true;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void consume_f32(const unsigned char *b, size_t n, size_t first, void *dst)
{
    real *out = (real *)dst + first;
    for (size_t i = 0; i < n / 4; i++) {
        uint32_t u = le32(b + 4 * i);
        float f;
        memcpy(&f, &u, 4);
        out[i] = (real)f;
    }
}

static void consume_i32(const unsigned char *b, size_t n, size_t first, void *dst)
{
    int32_t *out = (int32_t *)dst + first;
    for (size_t i = 0; i < n / 4; i++) out[i] = (int32_t)le32(b + 4 * i);
}

static void consume_u8(const unsigned char *b, size_t n, size_t first, void *dst)
{
    memcpy((unsigned char *)dst + first, b, n);
}

bool st_read_real(StFile *sf, const StTensor *t, real *dst, char *err, size_t err_len)
{
    return read_bytes(sf, t, ST_F32, consume_f32, dst, err, err_len);
}

bool st_read_i32(StFile *sf, const StTensor *t, int32_t *dst, char *err, size_t err_len)
{
    return read_bytes(sf, t, ST_I32, consume_i32, dst, err, err_len);
}

bool st_read_u8(StFile *sf, const StTensor *t, unsigned char *dst, char *err, size_t err_len)
{
    return read_bytes(sf, t, ST_U8, consume_u8, dst, err, err_len);
}

bool st_verify_checksum(StFile *sf, StChecksumSpan span, char *err, size_t err_len)
{
    const char *stored = st_meta(sf, "checksum");
    if (!stored) return errorf(err, err_len, "checkpoint: metadata lacks the checksum");
    char *at = sf->header ? strstr(sf->header, CHECKSUM_FIELD) : NULL;
    if (!at || strstr(at + 1, CHECKSUM_FIELD) || strlen(stored) != 14)
        return errorf(err, err_len, "checkpoint: the checksum field is malformed");
    uint32_t c = 0;
    if (span == ST_CHECKSUM_WHOLE_FILE) { /* the length and the header, with the checksum's own digits as "0"s */
        char *digits = at + sizeof CHECKSUM_FIELD - 1, saved[8];
        memcpy(saved, digits, 8);
        memset(digits, '0', 8);
        unsigned char len8[8];
        for (int i = 0; i < 8; i++) len8[i] = (unsigned char)(sf->header_len >> (8 * i));
        c = crc32_update(c, len8, 8);
        c = crc32_update(c, (const unsigned char *)sf->header, (size_t)sf->header_len);
        memcpy(digits, saved, 8);
    }
    if (fseek(sf->f, (long)sf->data_start, SEEK_SET) != 0) return errorf(err, err_len, "checkpoint: cannot seek");
    unsigned char buf[1 << 16];
    uint64_t left = sf->data_size;
    while (left > 0) {
        size_t n = left < sizeof buf ? (size_t)left : sizeof buf;
        if (fread(buf, 1, n, sf->f) != n) return errorf(err, err_len, "checkpoint: truncated data");
        c = crc32_update(c, buf, n);
        left -= n;
    }
    char want[16];
    snprintf(want, sizeof want, "crc32:%08x", c);
    if (strcmp(want, stored) != 0)
        return errorf(err, err_len, "checksum mismatch (stored %s, the file gives %s): the file is corrupted", stored, want);
    return true;
}

/* ------------------------------------------------------------------ writing */

void st_writer_init(StWriter *w) { memset(w, 0, sizeof *w); }

void st_writer_free(StWriter *w)
{
    for (int i = 0; i < w->n_meta; i++) {
        mem_free(w->meta[i].key);
        mem_free(w->meta[i].value);
    }
    mem_free(w->meta);
    mem_free(w->entries);
    memset(w, 0, sizeof *w);
}

void st_add(StWriter *w, const char *name, StDtype dtype, const void *data, int ndim, const int64_t *shape)
{
    if (w->n == w->cap) {
        int cap = w->cap ? 2 * w->cap : 64;
        w->entries = mem_grow(w->entries, (size_t)w->n * sizeof(StEntry), (size_t)cap * sizeof(StEntry));
        w->cap = cap;
    }
    StEntry *e = &w->entries[w->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->dtype = dtype;
    e->ndim = ndim;
    e->count = 1;
    for (int d = 0; d < ndim; d++) {
        e->shape[d] = shape[d];
        e->count *= (size_t)shape[d];
    }
    e->data = data;
}

void st_add_tensor(StWriter *w, const char *name, const Tensor *t)
{
    int64_t shape[TENSOR_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) shape[d] = t->shape[d];
    st_add(w, name, ST_F32, t->data, t->ndim, shape);
}

void st_add_meta(StWriter *w, const char *key, const char *value)
{
    if (w->n_meta == w->cap_meta) {
        int cap = w->cap_meta ? 2 * w->cap_meta : 32;
        StMeta *m = mem_alloc((size_t)cap * sizeof *m);
        if (w->n_meta) memcpy(m, w->meta, (size_t)w->n_meta * sizeof *m);
        mem_free(w->meta);
        w->meta = m;
        w->cap_meta = cap;
    }
    w->meta[w->n_meta].key = copy_string(key, strlen(key));
    w->meta[w->n_meta].value = copy_string(value, strlen(value));
    w->n_meta++;
}

/* A growing text buffer for the header. */
typedef struct Text {
    char *s;
    size_t n, cap;
} Text;

static void text_add(Text *t, const char *s, size_t n)
{
    if (t->n + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->n + n + 1) cap *= 2;
        char *c = mem_alloc(cap);
        if (t->n) memcpy(c, t->s, t->n);
        mem_free(t->s);
        t->s = c;
        t->cap = cap;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
    t->s[t->n] = 0;
}

static void text_printf(Text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    text_add(t, buf, (size_t)(n < (int)sizeof buf ? n : (int)sizeof buf - 1));
}

/* Length of the well-formed UTF-8 sequence starting at p (0 if it is not one). */
static int utf8_length(const unsigned char *p)
{
    int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 && *p >= 0xc2 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0;
    return n;
}

/* A JSON string: quotes, backslashes and control characters escaped; a byte that is not
 * part of valid UTF-8 (JSON must be UTF-8) becomes U+FFFD. */
static void text_json_string(Text *t, const char *s)
{
    text_add(t, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = utf8_length(p);
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            text_add(t, e, 2);
        } else if (*p < 0x20) {
            text_printf(t, "\\u%04x", *p);
        } else if (n == 0) {
            text_add(t, "\\ufffd", 6);
            n = 1;
        } else {
            text_add(t, (const char *)p, (size_t)n);
        }
        p += n ? n : 1;
    }
    text_add(t, "\"", 1);
}

/* Calls `sink` with the little-endian bytes of every entry, in order, in chunks. */
static bool emit_data(const StWriter *w, bool (*sink)(const unsigned char *, size_t, void *), void *ctx)
{
    unsigned char buf[1 << 15];
    for (int i = 0; i < w->n; i++) {
        const StEntry *e = &w->entries[i];
        if (e->dtype == ST_U8) {
            if (e->count && !sink(e->data, e->count, ctx)) return false;
            continue;
        }
        size_t k = 0;
        for (size_t j = 0; j < e->count; j++) {
            uint32_t u;
            if (e->dtype == ST_F32) {
                float f = (float)((const real *)e->data)[j];
                memcpy(&u, &f, 4);
            } else {
                u = (uint32_t)((const int32_t *)e->data)[j];
            }
            buf[k++] = (unsigned char)u;
            buf[k++] = (unsigned char)(u >> 8);
            buf[k++] = (unsigned char)(u >> 16);
            buf[k++] = (unsigned char)(u >> 24);
            if (k == sizeof buf) {
                if (!sink(buf, k, ctx)) return false;
                k = 0;
            }
        }
        if (k && !sink(buf, k, ctx)) return false;
    }
    return true;
}

static bool sink_crc(const unsigned char *p, size_t n, void *ctx)
{
    *(uint32_t *)ctx = crc32_update(*(uint32_t *)ctx, p, n);
    return true;
}

static long long g_crash_after = -1; /* st_crash_during_next_write */

void st_crash_during_next_write(long long bytes) { g_crash_after = bytes; }

static bool sink_file(const unsigned char *p, size_t n, void *ctx)
{
    if (g_crash_after >= 0 && (long long)n >= g_crash_after) { /* the simulated crash */
        fwrite(p, 1, (size_t)g_crash_after, ctx);
        fflush(ctx);
        raise(SIGKILL);
    }
    if (g_crash_after >= 0) g_crash_after -= (long long)n;
    return fwrite(p, 1, n, ctx) == n;
}

/* The header of w's file, padded with spaces to a multiple of 8, checksum digits "00000000". */
static Text build_header(const StWriter *w)
{
    Text h = {0};
    text_add(&h, "{\"__metadata__\":{", 17);
    for (int i = 0; i < w->n_meta; i++) {
        text_json_string(&h, w->meta[i].key);
        text_add(&h, ":", 1);
        text_json_string(&h, w->meta[i].value);
        text_add(&h, ",", 1);
    }
    text_add(&h, CHECKSUM_FIELD "00000000\"}", sizeof CHECKSUM_FIELD - 1 + 10); /* filled in below */
    uint64_t off = 0;
    for (int i = 0; i < w->n; i++) {
        const StEntry *e = &w->entries[i];
        text_add(&h, ",", 1);
        text_json_string(&h, e->name);
        text_printf(&h, ":{\"dtype\":\"%s\",\"shape\":[", dtype_name(e->dtype));
        for (int d = 0; d < e->ndim; d++) text_printf(&h, "%s%lld", d ? "," : "", (long long)e->shape[d]);
        uint64_t bytes = (uint64_t)e->count * dtype_size(e->dtype);
        text_printf(&h, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + bytes));
        off += bytes;
    }
    text_add(&h, "}", 1);
    while (h.n % 8) text_add(&h, " ", 1); /* the data starts 8-byte aligned */
    return h;
}

uint64_t st_header_length(const StWriter *w)
{
    Text h = build_header(w);
    mem_free(h.s);
    return h.n;
}

bool st_check(const StWriter *w, char *err, size_t err_len)
{
    /* what the reader refuses, the writer must not write */
    if (w->n > ST_MAX_TENSORS) return errorf(err, err_len, "%d tensors: more than the reader's %d", w->n, ST_MAX_TENSORS);
    if (w->n_meta + 1 > ST_MAX_META)
        return errorf(err, err_len, "%d metadata entries: more than the reader's %d", w->n_meta + 1, ST_MAX_META);
    uint64_t n = st_header_length(w);
    if (n > ST_MAX_HEADER)
        return errorf(err, err_len, "its header would be %.1f MB, more than the format's limit of %u MB (a vocabulary of "
                      "that size cannot be saved)", n / 1048576.0, ST_MAX_HEADER >> 20);
    return true;
}

bool st_write(const StWriter *w, const char *path, char *err, size_t err_len)
{
    char why[256];
    if (!st_check(w, why, sizeof why)) return errorf(err, err_len, "cannot write %s: %s", path, why);
    Text h = build_header(w);

    /* The checksum covers the whole file (length, header, data) with its own 8 digits as "0"s:
     * a corrupted header (an offset, a setting in the metadata) is caught as well as the data. */
    unsigned char len8[8];
    for (int i = 0; i < 8; i++) len8[i] = (unsigned char)((uint64_t)h.n >> (8 * i));
    uint32_t crc = crc32_update(0, len8, 8);
    crc = crc32_update(crc, (const unsigned char *)h.s, h.n);
    emit_data(w, sink_crc, &crc);
    char digits[9];
    snprintf(digits, sizeof digits, "%08x", crc);
    memcpy(strstr(h.s, CHECKSUM_FIELD) + sizeof CHECKSUM_FIELD - 1, digits, 8);

    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || n >= (int)sizeof tmp) {
        mem_free(h.s);
        return errorf(err, err_len, "checkpoint path too long: %s", path);
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        mem_free(h.s);
        return errorf(err, err_len, "cannot write %s: %s", tmp, strerror(errno));
    }
    bool ok = sink_file(len8, 8, f) && sink_file((const unsigned char *)h.s, h.n, f) && emit_data(w, sink_file, f);
    ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
    int saved_errno = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) { /* a deferred write error shows up here */
        ok = false;
        saved_errno = errno;
    }
    mem_free(h.s);
    if (!ok) {
        remove(tmp);
        return errorf(err, err_len, "cannot write %s: %s (the previous file is untouched)", path, strerror(saved_errno));
    }
    if (rename(tmp, path) != 0) {
        saved_errno = errno;
        remove(tmp);
        return errorf(err, err_len, "cannot rename %s to %s: %s", tmp, path, strerror(saved_errno));
    }
    /* make the rename itself durable: sync the directory entry. Best effort: the new file is
     * whole and in place already, and some file systems cannot sync a directory. */
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *(slash == dir ? slash + 1 : slash) = 0;
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
    return true;
}
