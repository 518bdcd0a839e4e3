/* tensor.h - the autograd engine's data types: the scalar, the tensor, the arena and the tape.
 *
 * Everything in tensor/ is generic: nothing here knows about transformers.
 *
 *   real      the scalar type: float, or double when built with -DREAL_DOUBLE
 *             (the gradient-check tests use double so finite differences are clean).
 *             real_exp is the fast exp for x <= 0; real_exp_full, libm's exp for any x
 *             (it overflows to Inf past ~88.7 in float, ~709.8 in double).
 *   Arena     a bump allocator: memory is taken once and handed out by moving a pointer;
 *             arena_reset() gives it all back at the end of a training step.
 *   Tensor    up to 4 dimensions, row-major, `data` and `grad` (NULL until a gradient arrives).
 *   Tape      the list of ops run in the forward pass; tape_backward() replays it in reverse.
 */
#ifndef TENSOR_TENSOR_H
#define TENSOR_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "fastmath.h"
#include "profile.h"

#include <math.h>

#ifdef REAL_DOUBLE
typedef double real;
static inline real real_exp(real x) { return exp(x); } /* callers pass x <= 0 */
static inline real real_exp_full(real x) { return exp(x); }
static inline real real_log(real x) { return log(x); }
static inline real real_tanh(real x) { return tanh(x); }
static inline real real_sqrt(real x) { return sqrt(x); }
#else
typedef float real;
static inline real real_exp(real x) { return exp_nonpositive(x); } /* callers pass x <= 0 */
static inline real real_exp_full(real x) { return expf(x); } /* libm's: any x, not vectorised */
static inline real real_log(real x) { return logf(x); }
static inline real real_tanh(real x) { return tanh_fast(x); }
static inline real real_sqrt(real x) { return sqrtf(x); }
#endif

/* ---------------------------------------------------------------- arena */

typedef struct ArenaBlock ArenaBlock;

typedef struct Arena {
    char *base;           /* the main block */
    size_t cap;           /* its size in bytes */
    size_t used;          /* bytes handed out from it since the last reset */
    size_t wanted;        /* bytes requested since the last reset (main block + overflow) */
    size_t peak;          /* largest `wanted` seen: what one step needs */
    ArenaBlock *overflow; /* blocks taken when the main block was full (first step only) */
} Arena;

void arena_init(Arena *a, size_t cap);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t bytes);   /* 64-byte aligned, uninitialised */
void *arena_calloc(Arena *a, size_t bytes);  /* 64-byte aligned, zeroed */
/* Give everything back. If the step overflowed the main block, the main block is replaced by
 * one big enough for the whole step, so from the next step on nothing is allocated. */
void arena_reset(Arena *a);

/* ---------------------------------------------------------------- tensor */

#define TENSOR_MAX_DIMS 4

typedef struct Tensor {
    int ndim;
    int shape[TENSOR_MAX_DIMS];
    size_t size;         /* product of the shape */
    real *data;
    real *grad;          /* d(loss)/d(data), same layout; NULL until needed */
    bool requires_grad;  /* a gradient must flow to this tensor */
    bool grad_pooled;    /* grad came from the tape's pool and goes back to it */
    struct Tensor *view_of; /* a reshape view: shares data and gradient with this tensor */
    const char *name;    /* for error messages: "h.0.attn.wq", "matmul", ... */
} Tensor;

/* A tensor whose data lives in the arena (uninitialised). shape has ndim entries, each >= 1. */
Tensor *tensor_new(Arena *a, int ndim, const int *shape, const char *name);
Tensor *tensor_new2(Arena *a, int d0, int d1, const char *name);
Tensor *tensor_new3(Arena *a, int d0, int d1, int d2, const char *name);
Tensor *tensor_new4(Arena *a, int d0, int d1, int d2, int d3, const char *name);
/* Rows = product of all dims but the last; cols = the last dim. */
size_t tensor_rows(const Tensor *t);
int tensor_cols(const Tensor *t);
bool tensor_same_shape(const Tensor *a, const Tensor *b);
/* Index of the first NaN or infinity in x[0..n), or SIZE_MAX when all are finite. */
size_t find_nonfinite(const real *x, size_t n);

/* ---------------------------------------------------------------- tape */

typedef struct Tape Tape;
typedef struct TapeEntry TapeEntry;
typedef void (*BackwardFn)(Tape *tp, TapeEntry *e);
/* A caller's look at a tensor's finished gradient t->grad (tape_watch_grad). */
typedef void (*GradWatchFn)(const Tensor *t, void *ctx);

/* Which of an entry's tensors its backward reads the values of (TapeEntry.reads). */
enum { TAPE_READS_IN0 = 1, TAPE_READS_IN1 = 2, TAPE_READS_IN2 = 4, TAPE_READS_OUT = 8 };

/* One recorded op: the backward function, the tensors it connects and what it saved. */
struct TapeEntry {
    BackwardFn backward;
    const char *op;           /* "matmul", "softmax", ... */
    Tensor *out;
    Tensor *in[3];
    void *saved;              /* what the backward needs beyond the tensors: the op's own typed
                                 struct (e.g. SoftmaxSaved), from tape_save; NULL if nothing */
    /* For looking at the tape (./train --print-tape), never read by the backward: */
    const char *scope;        /* tp->scope when recorded: the caller's label of this part */
    uint64_t flops;           /* the forward's floating-point operations (convention: tape_cost) */
    size_t kept_bytes;        /* arrays made for the backward beyond the tensors (row statistics,
                                 a copy of the ids): bytes */
    unsigned reads;           /* TAPE_READS_* of the tensors whose values the backward reads */
    /* A caller's, never the op's: shown out's finished gradient before the backward runs
     * (tape_watch_grad); NULL when nobody watches. */
    GradWatchFn watch;
    void *watch_ctx;
};

/* Gradient buffers of one size, free for reuse (see tape_grad). */
typedef struct GradFreeList {
    size_t bytes;
    void *head;               /* a free block holds the pointer to the next one */
} GradFreeList;

#define TAPE_GRAD_SIZES 64

struct Tape {
    Arena *arena;             /* activations and their gradients; reset every step */
    TapeEntry *entries;
    int n, cap;
    GradFreeList free_grads[TAPE_GRAD_SIZES];
    int n_sizes;
    bool keep_grads;          /* true: backward keeps every gradient (NaN forensics, tests) */
    bool grad_enabled;        /* false: ops record nothing (evaluation) */
    bool training;            /* false: dropout is the identity */
    uint64_t dropout_key;     /* set per step; each dropout call derives its own key from it */
    uint32_t dropout_calls;
    const char *scope;        /* when set, recorded outputs are named after it ("layer 0 queries"),
                                 and entries remember it (TapeEntry.scope): the caller's label,
                                 a string that lives as long as the tape's entries */
    Profile *profile;         /* when set, each op's forward and backward is charged to its kind
                                 (profile.h); NULL: nothing is timed */
};

void tape_init(Tape *tp, Arena *arena);
void tape_free(Tape *tp);
/* Record an op if grad is enabled and an input needs a gradient; sets out->requires_grad.
 * Returns the entry to fill with saved values, or NULL when nothing is recorded. */
TapeEntry *tape_push(Tape *tp, BackwardFn fn, const char *op, Tensor *out,
                     Tensor *in0, Tensor *in1, Tensor *in2);
/* What an op costs, noted on its entry (e may be NULL: nothing was recorded). The FLOP
 * convention: one multiply-add of a product is 2 (a matmul is 2 M N K), every other add,
 * multiply, compare, division, exp, tanh, sqrt or rounding is 1; copies (embedding, permute)
 * are 0. Each op states its count where it calls this; the backward costs about twice the
 * forward (two products per product). `reads` and `kept_bytes` say what the backward keeps
 * alive: the values of which tensors (TAPE_READS_*), and the bytes of the op's own arrays. */
static inline void tape_cost(TapeEntry *e, uint64_t flops, unsigned reads, size_t kept_bytes)
{
    if (!e) return;
    e->flops = flops;
    e->reads = reads;
    e->kept_bytes = kept_bytes;
}
/* Room for what an op keeps for its backward pass (zeroed, in the step's arena), hung on the
 * entry: `SoftmaxSaved *s = tape_save(tp, e, sizeof *s);`. The backward reads it as e->saved. */
void *tape_save(Tape *tp, TapeEntry *e, size_t bytes);
/* The gradient buffer of t, zeroed on first use. For tensors of the step it comes from a pool
 * in the arena: once the op that produced t has run its backward, nothing reads t's gradient
 * again, and tape_backward gives the buffer back for the next gradient of the same size. So
 * only a few layers' gradients are alive at a time, not the whole network's. */
real *tape_grad(Tape *tp, Tensor *t);
/* The same, for a backward pass that writes every element of t's gradient: when it is the first
 * to reach t, *first is set and the buffer comes uninitialised - write (=) instead of adding
 * (+=), which saves zeroing a buffer only to add to zeros. Otherwise as tape_grad. */
real *tape_grad_whole(Tape *tp, Tensor *t, bool *first);
/* Lets a caller see t's gradient once it is complete, without an entry or a pass of its own:
 * fn(t, ctx) is hung on the entry that produced t, and the backward pass calls it just before
 * that entry's backward runs - when every op that consumed t has added its share to t->grad
 * and the buffer is not yet back in the pool. Once per backward pass that reaches t (also in
 * tape_backward_find_nonfinite's replay); never when no gradient reaches t. The tape is
 * otherwise unchanged: the same entries, costs and numbers. t must be an op's output (not a
 * reshape view or a parameter), watched once. Returns false, and hangs nothing, when t was not
 * recorded (the tape is not recording, or nothing t depends on needs a gradient). */
bool tape_watch_grad(Tape *tp, const Tensor *t, GradWatchFn fn, void *ctx);
/* d(loss)/d(loss) = 1, then every entry's backward in reverse order. loss must have size 1. */
void tape_backward(Tape *tp, Tensor *loss);
/* The same from any output: its gradient is seeded with `seed_grad` (out->size values). */
void tape_backward_from(Tape *tp, Tensor *out, const real *seed_grad);
/* Forget the ops and free the activations (the arena), keeping the memory for the next step. */
void tape_reset(Tape *tp);
/* NaN forensics, forward: the first entry (in forward order) whose output holds a NaN or an
 * Inf, and the element; -1 when there is none. */
int tape_first_nonfinite_output(const Tape *tp, size_t *element);
/* NaN forensics, backward: tape_backward(loss) again, keeping every gradient, noting the first
 * op whose backward wrote a NaN or an Inf into one of its inputs' gradients (entries[entry],
 * its input in[input], at `element`). Every gradient must be zero beforehand. Returns the entry
 * or -1. */
typedef struct TapeFinding {
    int entry, input;
    size_t element;
} TapeFinding;
int tape_backward_find_nonfinite(Tape *tp, Tensor *loss, TapeFinding *found);

#endif
