/* safetensors.h - reading and writing the safetensors format.
 *
 *   [8 bytes: header length N, little-endian u64] [N bytes: JSON header] [tensor data]
 *   header = {"__metadata__": {"key": "value", ...},
 *             "name": {"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, end]}, ...}
 * Offsets are relative to the start of the data; values are little-endian. Any numpy or
 * safetensors user can open these files. The reader checks everything it is given (sizes,
 * offsets against the file's length, the JSON's shape) and never reads out of bounds.
 */
#ifndef TENSOR_SAFETENSORS_H
#define TENSOR_SAFETENSORS_H

#include "../tensor/tensor.h"

#include <stdio.h>

typedef enum StDtype { ST_F32, ST_I32, ST_U8 } StDtype;

#define ST_MAX_DIMS 8
#define ST_MAX_NAME 256
#define ST_MAX_HEADER (100u << 20) /* the format's own limit: 100 MB */
#define ST_MAX_TENSORS (1 << 16)    /* a 24-layer checkpoint with optimizer state holds ~1300 */
#define ST_MAX_META 4096            /* keys are checked for duplicates pairwise: keep this small */

typedef struct StTensor {
    char name[ST_MAX_NAME];
    StDtype dtype;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    uint64_t begin, end;       /* byte range within the data section */
    size_t count;              /* number of elements */
} StTensor;

typedef struct StMeta {
    char *key, *value;
} StMeta;

/* ---------------------------------------------------------------- reading */

typedef struct StFile {
    FILE *f;
    char *header;        /* the raw JSON, NUL-terminated */
    uint64_t header_len;
    uint64_t data_start, data_size;
    StTensor *tensors;
    int n_tensors;
    int *index;          /* open-addressing hash table of tensor indices, by name (-1: empty) */
    int index_cap;
    StMeta *meta;
    int n_meta;
} StFile;

/* Opens and validates the header. On failure returns false with a one-line message. */
bool st_open(StFile *sf, const char *path, char *err, size_t err_len);
/* The same from an open stream (closed by st_close, or here on failure); `path` for messages. */
bool st_open_stream(StFile *sf, FILE *f, const char *path, char *err, size_t err_len);
/* The same from bytes in memory (used by the fuzz tests): data is not copied. */
bool st_parse_header(StFile *sf, const char *json, size_t len, uint64_t data_size, char *err, size_t err_len);
void st_close(StFile *sf);
const StTensor *st_find(const StFile *sf, const char *name);
const char *st_meta(const StFile *sf, const char *key); /* NULL when absent */
/* Reads a tensor's values (F32 -> real, or I32/U8 as stored into int/unsigned char). */
bool st_read_real(StFile *sf, const StTensor *t, real *dst, char *err, size_t err_len);
bool st_read_i32(StFile *sf, const StTensor *t, int32_t *dst, char *err, size_t err_len);
bool st_read_u8(StFile *sf, const StTensor *t, unsigned char *dst, char *err, size_t err_len);
/* What a file's checksum covers: the whole file (what st_write writes), or, in files written
 * before that rule, the data section alone. */
typedef enum StChecksumSpan { ST_CHECKSUM_DATA, ST_CHECKSUM_WHOLE_FILE } StChecksumSpan;
/* Checks the metadata's "checksum" against the file: the CRC-32 (the zlib/PNG polynomial) of
 * what `span` says, in the whole file with the checksum's own 8 hex digits read as "0"s. */
bool st_verify_checksum(StFile *sf, StChecksumSpan span, char *err, size_t err_len);

/* ---------------------------------------------------------------- writing */

typedef struct StEntry {
    char name[ST_MAX_NAME];
    StDtype dtype;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    const void *data;          /* real* for F32 (converted on write), int32_t*, unsigned char* */
    size_t count;
} StEntry;

typedef struct StWriter {
    StEntry *entries;
    int n, cap;
    StMeta *meta;
    int n_meta, cap_meta;
} StWriter;

void st_writer_init(StWriter *w);
void st_writer_free(StWriter *w);
void st_add(StWriter *w, const char *name, StDtype dtype, const void *data, int ndim, const int64_t *shape);
void st_add_tensor(StWriter *w, const char *name, const Tensor *t); /* F32 from a tensor's data */
void st_add_meta(StWriter *w, const char *key, const char *value);
/* The length of the header st_write would write for w now. */
uint64_t st_header_length(const StWriter *w);
/* Whether the reader (st_open) would take what st_write would write for w: the number of
 * tensors and metadata entries, the header's length. false with a message. */
bool st_check(const StWriter *w, char *err, size_t err_len);
/* Writes atomically, after st_check: a temporary file in the same directory, flushed to disk
 * (fsync), then renamed over `path`. A crash leaves either the old file or the new one, never a mix.
 * Adds the metadata entry "checksum" = "crc32:xxxxxxxx" (see st_verify_checksum). */
bool st_write(const StWriter *w, const char *path, char *err, size_t err_len);

uint32_t crc32_update(uint32_t crc, const unsigned char *p, size_t n);

/* For tests of crash safety: the next st_write writes `bytes` bytes of its temporary file,
 * flushes them, and kills the process (SIGKILL), as a power cut or `kill -9` would. */
void st_crash_during_next_write(long long bytes);

#endif
