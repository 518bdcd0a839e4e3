/* test_fuzz.c - deterministic fuzzing of every reader of untrusted input: config files, TSV
 * corpora, safetensors headers and whole checkpoint files.
 *
 * Each target starts from valid seeds and feeds thousands of mutated and truncated copies
 * (bit flips, special bytes, insertions, deletions, duplicated and spliced chunks, big and
 * negative numbers) made by a seeded generator: the same inputs on every run. Under
 * `make asan` this runs with AddressSanitizer and UBSan, so any out-of-bounds access or
 * undefined behaviour fails the test; a hang would time out the suite. Every input must be
 * either accepted with its invariants holding, or refused with a one-line message.
 *
 *   test_fuzz [filter]        FUZZ_ITERATIONS (environment) sets the inputs per target
 *   test_fuzz --write-seeds=DIR   writes the seeds, the starting corpus of `make fuzz`
 */
#include "fuzz_targets.h"
#include "test.h"

#include "../tensor/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_INPUT = 1 << 16 };

static long g_iterations = 20000;
static long g_inputs_tried;

/* ------------------------------------------------------------------ mutation */

static const unsigned char g_special[] = {0, 1, 0x7f, 0x80, 0xc3, 0xff, '\t', '\n', '\r', ' ', '"', '\\', '{', '}',
                                          '[', ']', ',', ':', '=', '#', '-', '+', '.', 'e', '0', '9'};
static const char *const g_numbers[] = {"0", "-1", "99999999999999999999", "1e308", "nan", "inf", "-0", "2147483648",
                                        "4294967296", "18446744073709551616", "1e-40", "0x10"};

/* Copies seed into out and applies 1 to 8 random edits; returns the new length. */
static size_t mutate(Rng *r, const unsigned char *seed, size_t n, const unsigned char *other, size_t n_other,
                     unsigned char *out)
{
    size_t len = n < MAX_INPUT ? n : MAX_INPUT;
    memcpy(out, seed, len);
    int edits = 1 + (int)rng_below(r, 8);
    for (int e = 0; e < edits; e++) {
        size_t at = len ? rng_below(r, (uint32_t)len) : 0;
        switch (rng_below(r, 9)) {
        case 0: /* flip a bit */
            if (len) out[at] ^= (unsigned char)(1u << rng_below(r, 8));
            break;
        case 1: /* a special byte */
            if (len) out[at] = g_special[rng_below(r, sizeof g_special)];
            break;
        case 2: /* insert a byte */
            if (len < MAX_INPUT) {
                memmove(out + at + 1, out + at, len - at);
                out[at] = rng_below(r, 2) ? g_special[rng_below(r, sizeof g_special)] : (unsigned char)rng_below(r, 256);
                len++;
            }
            break;
        case 3: { /* delete a few bytes */
            size_t k = 1 + rng_below(r, 8);
            if (at + k > len) k = len - at;
            memmove(out + at, out + at + k, len - at - k);
            len -= k;
            break;
        }
        case 4: { /* duplicate a chunk */
            size_t k = 1 + rng_below(r, 64);
            if (at + k > len) k = len - at;
            if (len + k <= MAX_INPUT) {
                memmove(out + at + k, out + at, len - at);
                len += k;
            }
            break;
        }
        case 5: /* truncate */
            len = at;
            break;
        case 6: /* splice: the tail of another seed */
            if (n_other) {
                size_t from = rng_below(r, (uint32_t)n_other), k = n_other - from;
                if (at + k > MAX_INPUT) k = MAX_INPUT - at;
                memcpy(out + at, other + from, k);
                len = at + k;
            }
            break;
        case 7: { /* a number where there was a digit */
            const char *num = g_numbers[rng_below(r, sizeof g_numbers / sizeof g_numbers[0])];
            size_t k = strlen(num);
            if (len + k <= MAX_INPUT) {
                memmove(out + at + k, out + at, len - at);
                memcpy(out + at, num, k);
                len += k;
            }
            break;
        }
        case 8: /* an 8-byte little-endian integer: huge, negative or zero (header lengths) */
            if (len >= 8) {
                uint64_t v = rng_below(r, 3) == 0 ? 0 : rng_below(r, 2) ? UINT64_MAX - rng_below(r, 1000) : rng_next(r) >> rng_below(r, 64);
                size_t p = rng_below(r, 4) == 0 ? 0 : (at + 8 <= len ? at : len - 8);
                for (int i = 0; i < 8; i++) out[p + i] = (unsigned char)(v >> (8 * i));
            }
            break;
        }
    }
    return len;
}

/* ------------------------------------------------------------------ seeds */

static const char *const g_config_seeds[3] = {
    "# copy\ntask = copy\nsymbols = 10\nmin-len = 3\nmax-len = 8\nlayers = 2\ndmodel = 64\nheads = 4\nscale = sqrt\n",
    "task = translate\nlr = 3e-3\nwarmup = 50\nsteps = 1200  # comment\neval-every = 300\nseed = 18446744073709551615\n",
    "scale = 8\ndk = 32\nattn-dropout = 0.1\ndropout = 0.05\noptim = sgd\nclip = 0\nnan = continue\nquiet = 1\n",
};

static const char *const g_tsv_seeds[3] = {
    "the cat sleeps\tle chat dort\na dog runs\tun chien court\nthe dog sleeps\tle chien dort\nmy cat\tmon chat\n",
    "x y\tz\r\nx\ty y\n\n  \nq r s\tt u v\nq\tw\nr\tx\n",
    "\xc3\xa9t\xc3\xa9\tsummer\nhiver\twinter\nprintemps\tspring\nautomne\tfall\n",
};


/* Feeds `count` mutations of the seeds to a target; every outcome must be ACCEPTED or
 * REFUSED, and both must occur (a target that accepts or refuses everything tests nothing). */
static void fuzz_loop(const char *what, FuzzTarget target, uint64_t seed, const unsigned char *const *seeds,
                      const size_t *lens, int n_seeds, long count)
{
    Rng r = rng_stream(seed, 0);
    static unsigned char buf[MAX_INPUT];
    long accepted = 0, refused = 0;
    for (long i = 0; i < count; i++) {
        int k = (int)(i % n_seeds), other = (int)((i + 1) % n_seeds);
        size_t len = i < n_seeds ? (lens[k] < MAX_INPUT ? lens[k] : MAX_INPUT)
                                 : mutate(&r, seeds[k], lens[k], seeds[other], lens[other], buf);
        if (i < n_seeds) memcpy(buf, seeds[k], len); /* the seeds themselves first */
        char why[256];
        FuzzOutcome out = target(buf, len, why, sizeof why);
        g_inputs_tried++;
        if (!CHECK(out != FUZZ_BROKEN, "%s: input %ld: %s", what, i, why)) return;
        accepted += out == FUZZ_ACCEPTED;
        refused += out == FUZZ_REFUSED;
    }
    CHECK(accepted > 0 && refused > 0, "%s: %ld accepted, %ld refused", what, accepted, refused);
}

/* fuzz_loop with text seeds (3 of them). */
static void fuzz_text_loop(const char *what, FuzzTarget target, uint64_t seed, const char *const texts[3])
{
    const unsigned char *seeds[3];
    size_t lens[3];
    for (int i = 0; i < 3; i++) {
        seeds[i] = (const unsigned char *)texts[i];
        lens[i] = strlen(texts[i]);
    }
    fuzz_loop(what, target, seed, seeds, lens, 3, g_iterations);
}

static void test_fuzz_config_files(void) { fuzz_text_loop("config", fuzz_config, 101, g_config_seeds); }

static void test_fuzz_tsv_corpora(void) { fuzz_text_loop("tsv", fuzz_tsv, 102, g_tsv_seeds); }

static uint64_t g_header_data_size; /* for the header target's adapter below */

static FuzzOutcome header_target(const unsigned char *data, size_t n, char *why, size_t why_len)
{
    return fuzz_safetensors_header(data, n, g_header_data_size, why, why_len);
}

static void test_fuzz_safetensors_headers(void)
{
    size_t len;
    unsigned char *file = fuzz_checkpoint_seed(test_path(""), &len);
    if (!CHECK(file && len > 8, "no seed checkpoint")) return;
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | file[i];
    g_header_data_size = len - 8 - hlen;
    const unsigned char *seeds[1] = {file + 8};
    size_t lens[1] = {(size_t)hlen};
    fuzz_loop("header", header_target, 103, seeds, lens, 1, g_iterations);
    free(file);
}

/* Mutations of a whole checkpoint file, read as the program reads them. */
static void fuzz_checkpoint_loop(const char *what, FuzzTarget target, uint64_t seed)
{
    size_t len;
    unsigned char *file = fuzz_checkpoint_seed(test_path(""), &len);
    if (!CHECK(file && len > 8, "no seed checkpoint")) return;
    const unsigned char *seeds[1] = {file};
    size_t lens[1] = {len};
    fuzz_loop(what, target, seed, seeds, lens, 1, g_iterations / 3);
    free(file);
}

/* Whole files: the config applied, the model loaded. */
static void test_fuzz_checkpoint_files(void) { fuzz_checkpoint_loop("checkpoint", fuzz_checkpoint, 104); }

/* The same, with each mutated file's checksum rewritten to match: the mutations then reach the
 * config, the tensor names, shapes and values behind the checksum. */
static void test_fuzz_resealed_checkpoint_files(void)
{
    fuzz_checkpoint_loop("resealed checkpoint", fuzz_checkpoint_resealed, 105);
}

static void test_report_inputs(void)
{
    printf("    %ld inputs tried\n", g_inputs_tried);
    CHECK(g_inputs_tried >= g_iterations, "only %ld inputs", g_inputs_tried);
}

/* The seeds as files: the starting corpus of the libFuzzer targets (`make fuzz`). */
static int write_seeds(const char *dir)
{
    char path[4096];
    for (size_t i = 0; i < sizeof g_config_seeds / sizeof g_config_seeds[0]; i++) {
        snprintf(path, sizeof path, "%s/config/seed%zu", dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || fputs(g_config_seeds[i], f) < 0) return 1;
        fclose(f);
    }
    for (size_t i = 0; i < sizeof g_tsv_seeds / sizeof g_tsv_seeds[0]; i++) {
        snprintf(path, sizeof path, "%s/tsv/seed%zu", dir, i);
        FILE *f = fopen(path, "wb");
        if (!f || fputs(g_tsv_seeds[i], f) < 0) return 1;
        fclose(f);
    }
    size_t len;
    unsigned char *file = fuzz_checkpoint_seed(dir, &len);
    snprintf(path, sizeof path, "%s/checkpoint/seed0", dir);
    FILE *f = fopen(path, "wb");
    if (!file || !f || fwrite(file, 1, len, f) != len) return 1;
    fclose(f);
    free(file);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strncmp(argv[1], "--write-seeds=", 14)) return write_seeds(argv[1] + 14);
    const char *n = getenv("FUZZ_ITERATIONS");
    if (n && atol(n) > 0) g_iterations = atol(n);
    static const TestCase tests[] = {
        {"fuzz: config files", test_fuzz_config_files},
        {"fuzz: TSV corpora", test_fuzz_tsv_corpora},
        {"fuzz: safetensors headers", test_fuzz_safetensors_headers},
        {"fuzz: whole checkpoint files", test_fuzz_checkpoint_files},
        {"fuzz: checkpoint files past the checksum", test_fuzz_resealed_checkpoint_files},
        {"fuzz: inputs tried", test_report_inputs},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
