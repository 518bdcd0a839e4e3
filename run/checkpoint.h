/* checkpoint.h - the model, optimizer and run state as safetensors files (docs/FORMAT.md). */
#ifndef RUN_CHECKPOINT_H
#define RUN_CHECKPOINT_H

#include "../data/data.h"
#include "attention_map.h"
#include "../tensor/safetensors.h"
#include "../model/gpt.h"
#include "../model/optim.h"
#include "options.h"

/* What a resumed run needs, beyond the parameters and the optimizer state, to continue
 * exactly as an uninterrupted run would (its log and summary included). */
typedef struct RunState {
    int next_step;            /* steps completed */
    int steps_to_threshold;   /* -1 while the loss has not reached --loss-threshold */
    long nan_count;
    double interval_loss;     /* the log interval in progress: sum of its losses */
    int interval_steps;       /* and how many */
    double last_row_loss;     /* the loss of the last row logged (NaN: none yet): a resumed run that
                                 logs no row of its own ends with it, as the run it continues did */
    FormatCounts rounding[GPT_MAX_LAYERS]; /* --precision: what rounding did in each layer, all steps so far */
} RunState;

/* Writes parameters ("h.0.attn.wq" ...), the optimizer's state ("optim.<state>.<name>", as its
 * OptimSpec names it: optim.m.<name> and optim.v.<name> for AdamW), the run state and the
 * configuration, atomically. */
bool checkpoint_save(const char *path, const Gpt *m, const Optimizer *opt, const RunState *rs, const Options *o,
                     const Vocab *vocab, char *err, size_t err_len);

/* Before training: whether the checkpoint of this run, once written, would be read back (the
 * reader's limits on the header, the number of tensors and metadata entries). false with a
 * message naming --save. */
bool checkpoint_check_saveable(const char *path, const Gpt *m, const Optimizer *opt, const RunState *rs,
                               const Options *o, const Vocab *vocab, char *err, size_t err_len);

/* Opens a checkpoint and checks its format and its checksum (over the whole file) before
 * anything in it is used; on failure the file is closed. The caller closes it with st_close
 * after the two steps below, so that both read the same, verified file. */
bool checkpoint_open(StFile *sf, const char *path, char *err, size_t err_len);
/* The same from a stream (taken over, closed by st_close); `path` names it in messages. */
bool checkpoint_open_stream(StFile *sf, FILE *f, const char *path, char *err, size_t err_len);

/* Applies the configuration stored in an opened checkpoint to `o`: options the user did not
 * set take the checkpoint's values; options that define the model or the data must not differ.
 * An option the file lacks (newer than the file) counts as stored at its default. */
bool checkpoint_apply_config_from(StFile *sf, const char *path, Options *o, const OptGiven *set, char *err, size_t err_len);
/* Loads parameters (and, when present, the optimizer's state) from an opened checkpoint after checking
 * the vocabulary and every name, shape and value (finite) against the model; fills the run state. */
bool checkpoint_load_from(StFile *sf, const char *path, Gpt *m, Optimizer *opt, RunState *rs, const Vocab *vocab,
                          char *err, size_t err_len);
/* Each of the two from a file: open, apply or load, close. */
bool checkpoint_apply_config(const char *path, Options *o, const OptGiven *set, char *err, size_t err_len);
bool checkpoint_load(const char *path, Gpt *m, Optimizer *opt, RunState *rs, const Vocab *vocab, char *err,
                     size_t err_len);

/* The first step, for checking against an independent implementation: parameters, batch,
 * logits, loss and every parameter's gradient before clipping; and, when heldout is not NULL,
 * the attention weights of one held-out example under the same parameters. */
bool dump_state_write(const char *path, const Gpt *m, const Batch *b, const Tensor *logits, const Tensor *loss,
                      double scale, const AttentionMap *heldout, const Options *o, char *err, size_t err_len);

#endif
