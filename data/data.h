/* data.h - the toy tasks, a user's TSV corpus, and batches.
 *
 * Every example is a pair (source, target) of token sequences, laid out for a decoder as
 *     BOS source SEP target EOS PAD PAD ...
 * The model reads position t and predicts position t+1; the loss covers the target and EOS.
 *
 * Synthetic tasks are generated from the seed: the validation set first (a fixed list), then
 * training examples on the fly, a function of (seed, step), rejecting any example whose
 * source is in the validation set. So train and validation never overlap, and a resumed run
 * sees exactly the batches an uninterrupted one would.
 */
#ifndef DATA_DATA_H
#define DATA_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { TOK_PAD = 0, TOK_BOS = 1, TOK_SEP = 2, TOK_EOS = 3, TOK_FIRST_WORD = 4 };

typedef enum TaskKind { TASK_COPY, TASK_REVERSE, TASK_TRANSLATE, TASK_TSV } TaskKind;

/* ---------------------------------------------------------------- vocabulary */

typedef struct Vocab {
    int size;
    char **words;       /* words[id]; ids 0..3 are <pad> <bos> <sep> <eos> */
    int *table;         /* open-addressing hash table of ids, for lookups by word */
    int table_cap;
    int cap;
} Vocab;

void vocab_init(Vocab *v);
void vocab_free(Vocab *v);
int vocab_add(Vocab *v, const char *word, size_t len); /* the id of word, added if new */
int vocab_find(const Vocab *v, const char *word, size_t len); /* -1 when absent */

/* ---------------------------------------------------------------- examples */

typedef struct Example {
    int src_len, tgt_len;
    const int *src, *tgt;
} Example;

/* A growable list of examples whose tokens live in one pool. */
typedef struct ExampleList {
    int n, cap;
    int *src_off, *src_len, *tgt_off, *tgt_len;
    int *pool;
    size_t pool_len, pool_cap;
} ExampleList;

void example_list_free(ExampleList *l);
void example_list_push(ExampleList *l, const int *src, int src_len, const int *tgt, int tgt_len);
Example example_list_get(const ExampleList *l, int i);

/* ---------------------------------------------------------------- tasks */

typedef struct DataConfig {
    TaskKind task;
    const char *path;   /* TASK_TSV: the corpus */
    int symbols;        /* copy/reverse: alphabet size */
    int min_len, max_len; /* copy/reverse: source length range */
    int val_size;       /* synthetic tasks: validation examples */
    int context;        /* longest input the model takes: BOS + source + SEP + target */
    uint64_t seed;
} DataConfig;

typedef struct Dataset {
    DataConfig cfg;
    Vocab vocab;
    ExampleList val;
    ExampleList train;      /* TASK_TSV only: synthetic tasks generate training data */
    uint64_t *val_hashes;   /* sorted hashes of the validation sources */
    int max_src, max_tgt;   /* longest source and target any example can have */
    int max_pair;           /* longest source + target of one example */
    long skipped;           /* TSV lines dropped as duplicates */
} Dataset;

/* Builds the vocabulary and the validation set (and, for a TSV file, the training set).
 * On bad input (unreadable or malformed file, sentences that do not fit the context...)
 * returns false with a one-line message in err. */
bool dataset_open(Dataset *d, const DataConfig *cfg, char *err, size_t err_len);
void dataset_free(Dataset *d);
/* A TSV corpus from text in memory (cfg->path names it in messages): what the fuzz tests feed. */
bool dataset_open_tsv_text(Dataset *d, const DataConfig *cfg, const char *text, size_t size, char *err, size_t err_len);
/* Longest model input an example needs: BOS + source + SEP + target (EOS is only a target). */
int dataset_max_input(const Dataset *d);

/* Generators of the synthetic tasks: fill src/tgt (room for max_src/max_tgt), return lengths. */
typedef struct Rng Rng;
void copy_sample(Rng *r, int symbols, int min_len, int max_len, bool reverse, int *src, int *src_len,
                 int *tgt, int *tgt_len);
void translate_vocab(Vocab *v);
void translate_sample(Rng *r, int *src, int *src_len, int *tgt, int *tgt_len);
enum { TRANSLATE_MAX_WORDS = 10 };

bool tsv_load(Dataset *d, char *err, size_t err_len);
/* The same from text in memory (d->cfg.path names it in messages); d's vocabulary must hold
 * the special tokens already (see dataset_open). */
bool tsv_parse(Dataset *d, const char *text, size_t size, char *err, size_t err_len);

/* ---------------------------------------------------------------- batches */

typedef struct Batch {
    int B, T;
    int *tokens;                /* [B, T] model input */
    int *targets;               /* [B, T] the next token (PAD past the end) */
    unsigned char *loss_mask;   /* [B, T] 1 where the target is part of the answer (target or EOS) */
    unsigned char *valid;       /* [B, T] 1 where the input is a real token (not padding) */
    Example *examples;          /* [B] the pairs in the batch */
    int *scratch;               /* [B, T] room for generated sources and targets */
} Batch;

void batch_alloc(Batch *b, int B, int T);
void batch_free(Batch *b);
/* Lay out one example as row `row` of the batch. */
void batch_set_row(Batch *b, int row, const Example *ex);
/* The training batch of a step: a pure function of (seed, step). */
void dataset_train_batch(const Dataset *d, int step, Batch *b);
/* Validation examples first .. first+B-1 (rows past the end repeat the last example; `rows`
 * tells how many are real). */
int dataset_val_batch(const Dataset *d, int first, Batch *b);

/* Writes the words of tokens[0..n) separated by spaces into buf (truncated to buf_len). */
void vocab_format(const Vocab *v, const int *tokens, int n, char *buf, size_t buf_len);

#endif
