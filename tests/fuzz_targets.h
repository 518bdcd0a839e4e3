/* fuzz_targets.h - one input to each reader of untrusted input, with the checks of what must
 * hold afterwards. Used by the deterministic fuzz test (test_fuzz.c) and by the libFuzzer
 * entry points (tests/fuzz/, `make fuzz`). */
#ifndef TESTS_FUZZ_TARGETS_H
#define TESTS_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

typedef enum FuzzOutcome {
    FUZZ_ACCEPTED, /* the reader took it, and its invariants hold */
    FUZZ_REFUSED,  /* the reader refused it with a one-line message */
    FUZZ_BROKEN,   /* an invariant failed: `why` says which */
} FuzzOutcome;

FuzzOutcome fuzz_config(const unsigned char *data, size_t n, char *why, size_t why_len);
FuzzOutcome fuzz_tsv(const unsigned char *data, size_t n, char *why, size_t why_len);
/* A header (the JSON alone) for a data section of data_size bytes. */
FuzzOutcome fuzz_safetensors_header(const unsigned char *data, size_t n, uint64_t data_size, char *why, size_t why_len);
/* A whole checkpoint file for the tiny model of fuzz_checkpoint_seed: applying its config and
 * loading it must either fail with a message or give back exactly the seed's values. */
FuzzOutcome fuzz_checkpoint(const unsigned char *data, size_t n, char *why, size_t why_len);
/* The same with the file's checksum rewritten to match (a mutated file then reaches the code
 * behind the checksum: the config, the names, shapes and values); accepted files may hold other
 * values. A file without a checksum field counts as refused. */
FuzzOutcome fuzz_checkpoint_resealed(const unsigned char *data, size_t n, char *why, size_t why_len);

/* For the libFuzzer entry points: runs one target on one input and aborts (a crash libFuzzer
 * reports, keeping the input) if an invariant broke. */
typedef FuzzOutcome (*FuzzTarget)(const unsigned char *data, size_t n, char *why, size_t why_len);
void fuzz_or_abort(const char *name, FuzzTarget target, const unsigned char *data, size_t n);

/* A valid checkpoint of that tiny model (malloc'ed bytes; written once via a scratch file in
 * `dir`). */
unsigned char *fuzz_checkpoint_seed(const char *dir, size_t *len);

#endif
