/* checkpoint.h - the model, optimizer and run state as safetensors files (docs/FORMAT.md). */
#ifndef CLI_CHECKPOINT_H
#define CLI_CHECKPOINT_H

#include "../data/data.h"
#include "../model/gpt.h"
#include "../model/optim.h"
#include "options.h"

/* Writes parameters ("h.0.attn.wq" ...), Adam moments ("optim.m.<name>", "optim.v.<name>"),
 * the next step and the configuration, atomically. */
bool checkpoint_save(const char *path, const Gpt *m, const Optimizer *opt, int next_step, const Options *o,
                     const Vocab *vocab, char *err, size_t err_len);

/* Applies the configuration stored in a checkpoint to `o`: options the user did not set take
 * the checkpoint's values; options that define the model or the data must not differ. */
bool checkpoint_apply_config(const char *path, Options *o, const bool *set, char *err, size_t err_len);

/* Loads parameters (and, when present, Adam moments) after verifying the checksum and every
 * name, shape and dtype against the model. *next_step is the step to continue from. */
bool checkpoint_load(const char *path, Gpt *m, Optimizer *opt, int *next_step, const Vocab *vocab, char *err,
                     size_t err_len);

/* The first step, for checking against an independent implementation: parameters, batch,
 * logits, loss and every parameter's gradient before clipping. */
bool dump_state_write(const char *path, const Gpt *m, const Batch *b, const Tensor *logits, const Tensor *loss,
                      double scale, const Options *o, char *err, size_t err_len);

#endif
