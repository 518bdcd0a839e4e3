/* tape_dot.h - ./train --tape-dot=FILE: the graph of one training step, in Graphviz's DOT.
 *
 * Nodes are the ops (ellipses, numbered as in --print-tape) and the tensors (boxes with their
 * shape): parameters filled gold, activations the backward reads filled blue, the others white;
 * a reshape view is a dashed box. Edges are the data flow of the forward pass; each run of ops
 * with one scope label ("layer 0 queries") is a cluster. Render with `dot -Tsvg FILE > FILE.svg`.
 */
#ifndef RUN_TAPE_DOT_H
#define RUN_TAPE_DOT_H

#include "../model/gpt.h"

#include <stdio.h>

/* The fill colours, for the tests. */
#define TAPE_DOT_PARAM_COLOR "#f6c85f"
#define TAPE_DOT_SAVED_COLOR "#a8d0f0"

/* The graph of tp (whose parameters are m's) to f; false when a write failed. */
bool tape_dot_print(FILE *f, const Tape *tp, const Gpt *m);
/* The same into the file at path, replaced atomically (a temporary file, then a rename);
 * false with a one-line message in err. */
bool tape_dot_write(const char *path, const Tape *tp, const Gpt *m, char *err, size_t err_len);

#endif
