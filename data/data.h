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

typedef struct Rng Rng;

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

/* ---------------------------------------------------------------- examples (examples.c) */

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

enum { DATA_PATH_LEN = 1024 }; /* room for a corpus's file name, its NUL included */

typedef struct DataConfig {
    int task;           /* the task: its row in data/tasks.c */
    char path[DATA_PATH_LEN]; /* a corpus task (tsv): the file */
    int symbols;        /* copy/reverse/sort: alphabet size */
    int min_len, max_len; /* copy/reverse/sort: source length range */
    int recall_pairs;   /* recall: key-value pairs per example (at most recall_keys) */
    int recall_keys, recall_values; /* recall: sizes of the key and of the value alphabet */
    int recall_queries; /* recall: keys asked for (distinct, at most recall_pairs) */
    int lookup_queries; /* lookup: source symbols asked for, each answered by its position */
    int val_size;       /* synthetic tasks: validation examples */
    int test_size;      /* synthetic tasks: test examples, held out like the validation set but
                           used only for the final report (0: none) */
    int context;        /* longest input the model takes: BOS + source + SEP + target */
    uint64_t seed;      /* the run's seed: the held-out sets and the batches here; the model's
                           initialisation and dropout are drawn from it too */
} DataConfig;

typedef struct Dataset Dataset;

enum { TASK_MAX_READS = 6 };

/* A task: one file (task_<name>.c) defines its TaskSpec, tasks.c lists it in a table.
 * A synthetic task makes its examples from random numbers: validation examples first (a fixed
 * list), training examples on the fly. A corpus task reads them from a file instead. */
typedef struct TaskSpec {
    const char *name;   /* as --task spells it */
    const char *help;   /* one line for --help */
    /* the data options it reads ("symbols"), which --help names it beside; NULL-ended */
    const char *reads[TASK_MAX_READS];
    /* Checks the settings it reads together (beyond each option's range); NULL: nothing to check.
     * false with a one-line message in err. */
    bool (*validate)(const DataConfig *c, char *err, size_t err_len);
    /* synthetic tasks: */
    void (*add_words)(Vocab *v, const DataConfig *c);          /* its words, after the special tokens */
    /* the shortest and the longest source it makes, and the longest target */
    void (*lengths)(const DataConfig *c, int *min_src, int *max_src, int *max_tgt);
    double (*distinct_sources)(const DataConfig *c);           /* how many different sources it can make */
    /* one example; src and tgt have room for max_src and max_tgt tokens */
    void (*sample)(Rng *r, const DataConfig *c, int *src, int *src_len, int *tgt, int *tgt_len);
    /* Whether a source given to --decode (word ids, n of them) has the task's form; false with what
     * is wrong in err. NULL: any words of the vocabulary. */
    bool (*check_source)(const DataConfig *c, const int *src, int n, char *err, size_t err_len);
    /* a corpus task: reads c->path into the vocabulary, d->train, d->val and the lengths */
    bool (*load)(Dataset *d, char *err, size_t err_len);
} TaskSpec;

/* The longest source or target any task makes: the held-out set's buffers (dataset.c) hold it. */
enum { TASK_MAX_SOURCE = 64 };

/* The --symbols alphabet, A, B, C ... for up to 26 symbols, else s0, s1, s2 ...: the words of
 * copy, reverse, sort and lookup (task_copy.c). */
void task_symbol_words(Vocab *v, const DataConfig *c);

/* The table (tasks.c). */
const TaskSpec *task_spec(int kind);    /* NULL past the last; name_find(task_name, "copy") finds a kind */
/* Its name as --task spells it and a line of help; NULL past the last. */
const char *task_name(int kind, const char **help);
/* The task of a corpus given by --data: the first corpus task of the table (tsv). */
int task_of_corpus(void);

struct Dataset {
    DataConfig cfg;
    const TaskSpec *task;
    Vocab vocab;
    ExampleList val;
    ExampleList test;       /* synthetic tasks with test_size > 0: the test set */
    ExampleList train;      /* a corpus only: synthetic tasks generate training data */
    uint64_t *held_out_keys; /* synthetic tasks: the held-out sources (validation and test) as a
                                set of their hashes: held_out_cap slots, 0 for an empty one */
    size_t held_out_cap;
    int n_held_out;          /* how many */
    int min_src, max_src;   /* shortest and longest source of any example (a corpus: of its pairs) */
    int max_tgt;            /* longest target any example can have */
    int max_pair;           /* longest source + target of one example */
    long skipped;           /* TSV lines dropped as duplicates */
};

/* Builds the vocabulary and the validation set (and, for a TSV file, the training set).
 * On bad input (unreadable or malformed file, sentences that do not fit the context...)
 * returns false with a one-line message in err. */
bool dataset_open(Dataset *d, const DataConfig *cfg, char *err, size_t err_len);
void dataset_free(Dataset *d);
/* A TSV corpus from text in memory (cfg->path names it in messages): what the fuzz tests feed. */
bool dataset_open_tsv_text(Dataset *d, const DataConfig *cfg, const char *text, size_t size, char *err, size_t err_len);
/* Longest model input an example needs: BOS + source + SEP + target (EOS is only a target). */
int dataset_max_input(const Dataset *d);

/* A TSV corpus from text in memory (d->cfg.path names it in messages); d's vocabulary must
 * hold the special tokens already (see dataset_open). What task_tsv's load does with a file. */
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
/* Whether a source is one of the held-out sets' (then a training batch never draws it); when
 * probes is not NULL, *probes grows by the slots of the set looked at (for the tests). */
bool dataset_held_out(const Dataset *d, const int *src, int n, long *probes);
/* The held-out sets: validation (evaluations during training, and the choice of settings such
 * as the learning rate) and test (reported once, at the end, by a run that asks for one). */
typedef enum Split { SPLIT_VAL, SPLIT_TEST } Split;
const ExampleList *dataset_split(const Dataset *d, Split s);
/* Examples first .. first+B-1 of a split (rows past the end repeat the last example; `rows`
 * tells how many are real). */
int dataset_eval_batch(const Dataset *d, Split s, int first, Batch *b);

/* Writes the words of tokens[0..n) separated by spaces into buf (truncated to buf_len). */
void vocab_format(const Vocab *v, const int *tokens, int n, char *buf, size_t buf_len);

#endif
