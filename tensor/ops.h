/* ops.h - every differentiable op of the engine, and the contract an op is written to.
 *
 * Notation: g = d(loss)/d(out), the gradient arriving at the op's output.
 *
 * How to write an op (op_<name>.c; forward and backward side by side, the derivative stated
 * in a comment above the backward):
 *   1. Forward: allocate the output in the step's arena (tensor_new(tp->arena, ...)), compute
 *      it, then `TapeEntry *e = tape_push(tp, name_backward, "name", out, in0, in1, in2);`.
 *      tape_push records nothing (returns NULL) when no input needs a gradient or the tape is
 *      not recording (evaluation); so fill the entry only `if (e)`. Then note what it costs,
 *      for ./train --print-tape: `tape_cost(e, flops, reads, kept_bytes)` (tensor.h: the FLOP
 *      convention, which tensors' values the backward reads, the bytes of its own arrays).
 *      Compute first, push last: the bench's map of a step (profile.h) charges the time up
 *      to tape_push to this op's forward pass.
 *   2. Saved state: anything the backward needs besides the input and output tensors goes in
 *      a small struct of the op's own, e.g.
 *          typedef struct SoftmaxSaved { real scale; Mask mask; } SoftmaxSaved;
 *          SoftmaxSaved *s = tape_save(tp, e, sizeof *s);
 *      and the backward reads `const SoftmaxSaved *s = e->saved;`. Arrays it points to (row
 *      statistics, a copy of the token ids) also come from tp->arena: they live until the
 *      tape is reset at the end of the step.
 *   3. Backward: for each input with requires_grad, get its gradient buffer with
 *      tape_grad(tp, input) (zeroed on first use, possibly a recycled buffer) and ADD to it:
 *      gradients accumulate with +=, never =, because a tensor may feed several ops and each
 *      adds its share. Never write to out->grad or to an input's data. (A backward that
 *      writes every element of an input's gradient may ask tape_grad_whole instead: when it is
 *      the first to reach that input, it writes (=) into an unzeroed buffer, and adds otherwise;
 *      matmul, layernorm, GELU, permute and add do, which spares zeroing most activation gradients.
 *      Two rules keep it right: write one input's gradient whole before asking for another's
 *      (op_matmul(a, a): the second ask then finds a gradient there and adds), and a view is
 *      always of a whole tensor, so writing the view's gradient writes its source's.)
 *   4. Threads: split the loop over outputs (rows, columns, elements) with
 *      `#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)` (tensor/parallel.h;
 *      PARALLEL_MIN_HEAVY for a loop whose element costs a tanh, a libm exp or a rounding).
 *      A sum must be added by one thread in a fixed order: a reduction over rows is split by
 *      columns (parallel_column_blocks), never by rows, and never with `reduction(+)` across
 *      threads. Then the result has the same bits for any thread count (tests check it).
 *      (Integer counts may use reduction(+): integer addition is exact in any order.)
 *   5. Numerics: real_exp is the fast exp of fastmath.h; its precondition is x <= 0 (subtract
 *      the row max first, as softmax and cross-entropy do); it returns 0 below -87 and keeps
 *      NaN. real_tanh is accurate to 1e-7 everywhere. Nothing may hide a NaN: a NaN in must
 *      give a NaN out, so that the NaN forensics can find the op that made it.
 *   6. Test: a finite-difference check in tests/test_grad_ops.c (double precision), and the
 *      op's values against a direct computation in tests/test_engine.c.
 *   7. An op computes; it does not measure. A variant that computes other numbers is an op of
 *      its own (op_softmax_emulated beside op_softmax_scaled, sharing the backward); a caller who
 *      wants to look at a gradient hangs a watch on the tensor (tape_watch_grad, tensor.h)
 *      instead of asking the op for a statistic.
 */
#ifndef TENSOR_OPS_H
#define TENSOR_OPS_H

#include "format.h"
#include "tensor.h"

/* Which operands of a product are used transposed (flags, combined with |). */
typedef enum Transpose { TRANSPOSE_NONE = 0, TRANSPOSE_A = 1, TRANSPOSE_B = 2 } Transpose;

/* Which entries of a softmax row are visible. */
typedef enum Mask {
    MASK_NONE,   /* every column */
    MASK_CAUSAL, /* row r of each R x N matrix (the last two dims) sees columns c <= r + (N - R) */
} Mask;

/* How many leading columns row r of an R x N matrix may see (MASK_CAUSAL: c <= r + N - R). */
static inline int mask_visible(int r, int R, int N, Mask mask)
{
    if (mask == MASK_NONE) return N;
    int v = r + 1 + (N - R);
    return v < 0 ? 0 : (v > N ? N : v);
}

/* out = op(a) . op(b), op = transpose where `transpose` says so. Shapes:
 *   a [..., M, K] (or [..., K, M] with TRANSPOSE_A), b [..., K, N] (or [..., N, K] with TRANSPOSE_B).
 *   Either both have the same leading (batch) dims, or b is 2-D and shared by every batch
 *   item (a weight matrix), in which case a must not be transposed.
 * Backward: d op(a) = g . op(b)^T,  d op(b) = op(a)^T . g. */
Tensor *op_matmul(Tape *tp, Tensor *a, Tensor *b, Transpose transpose);

/* Which operands of op_matmul_groups are stored as groups of columns (flags, combined with |). */
typedef enum Grouped { GROUPED_NONE = 0, GROUPED_A = 1, GROUPED_B = 2, GROUPED_OUT = 4 } Grouped;

/* A batched product over groups of columns: out = op(a) . op(b) for each of N G pairs of
 * matrices, where an operand flagged in `grouped` is a [N, R, G*C] read (or, for out, written)
 * in place as N G matrices [R, C]: matrix (n, g) is columns g C .. g C + C - 1 of its n-th
 * [R, G*C], a row stride of G*C. An operand not flagged is [N, G, R, C], one matrix after
 * another; so out is [N, G, M, Ncols], or [N, M, G*Ncols] with GROUPED_OUT. The sums and their
 * order are op_matmul's on the same matrices copied out (permuted to [N, G, R, C]): the same
 * bits, without the copies. Backward: as op_matmul, each gradient in its operand's layout. */
Tensor *op_matmul_groups(Tape *tp, Tensor *a, Tensor *b, Transpose transpose, int groups, Grouped grouped);

/* out = x . W + b: a matmul with a shared 2-D weight W [K, N] and a bias b [N] (or NULL)
 * added in place, one tensor instead of two. Backward: as op_matmul, and db = g summed
 * over rows. */
Tensor *op_linear(Tape *tp, Tensor *x, Tensor *W, Tensor *b);

/* out = a + b, where b has a's shape or a's trailing dims (a bias, broadcast over rows).
 * Backward: da = g, db = g summed over the broadcast rows. */
Tensor *op_add(Tape *tp, Tensor *a, Tensor *b);

/* out = s * x for a constant s. Backward: dx = s g. */
Tensor *op_scale(Tape *tp, Tensor *x, real s);

/* out[..., h, :, :] = s[h] * x[..., h, :, :] with x [B, H, R, C] and a learnable s [H].
 * Backward: dx = s[h] g,  ds[h] = sum over (b, r, c) of g * x. */
Tensor *op_scale_heads(Tape *tp, Tensor *x, Tensor *s);

/* Softmax over the last dim; masked entries get probability exactly 0.
 * Backward: dx_j = p_j (g_j - sum_i g_i p_i). */
Tensor *op_softmax(Tape *tp, Tensor *x, Mask mask);

/* softmax(s x) in one pass, the same numbers as op_scale followed by op_softmax (s x is
 * rounded the same way) without storing s x. Backward: dx_j = s p_j (g_j - sum_i g_i p_i). */
Tensor *op_softmax_scaled(Tape *tp, Tensor *x, real s, Mask mask);

/* The softmax as a GPU computing in a reduced precision would: the ablation's variants of
 * op_softmax_scaled, an op of their own (exactly what each does and counts: op_softmax_emulated.c). */
typedef struct SoftmaxEmulation {
    real scale;           /* s: the softmax of y = s x */
    Mask mask;
    bool naive;           /* p_j = exp(y_j) / sum_i exp(y_i) as written, without subtracting the
                             row max: exp overflows (to Inf, then Inf/Inf = NaN) where it would */
    NumFormat format;     /* each exp(y_j), their sum and each p_j rounded to this format (the
                             sum added in the working precision, then rounded once) */
    FormatCounts *counts; /* when not NULL: what went wrong, added in the forward: exp values
                             and row sums that overflowed, NaN weights, weights lost to underflow */
} SoftmaxEmulation;
/* softmax(s x) computed as *em says. The exp is libm's and the sum a plain one in column order,
 * so with naive = false and FORMAT_FP32 this is the stable softmax within a few ulps of
 * op_softmax_scaled, not its bits: callers use op_softmax_scaled there. Backward: op_softmax_scaled's
 * (the roundings straight-through, as op_round). */
Tensor *op_softmax_emulated(Tape *tp, Tensor *x, const SoftmaxEmulation *em);

/* x rounded to a reduced-precision format (format.h), element by element (a copy for
 * FORMAT_FP32); what the rounding did is added to *counts (may be NULL). Entries a mask hides
 * (over the last two dims, as in op_softmax) are set to 0 and not counted: a masked score is
 * filled, never computed with ("masked_fill"), so an overflow there is none. Backward: the
 * rounding is treated as the identity (the "straight-through" gradient: dx = g), since its
 * true derivative is 0 almost everywhere; masked entries get no gradient. */
Tensor *op_round(Tape *tp, Tensor *x, NumFormat format, Mask mask, FormatCounts *counts);

/* tanh, element by element. Backward: dx = g (1 - tanh^2 x). */
Tensor *op_tanh(Tape *tp, Tensor *x);

/* exp, element by element, for any x (overflows to Inf past ~88.7 in float). Backward: dx = g exp(x).
 * Used for parameters kept as logarithms (a learned multiplier s = exp(log s)). */
Tensor *op_exp(Tape *tp, Tensor *x);

/* Each row (the last dim) divided by its length: y = x / sqrt(|x|^2 + eps).
 * Backward: with r = sqrt(|x|^2 + eps), dx = (g - y (y . g)) / r. */
Tensor *op_l2_normalize(Tape *tp, Tensor *x, real eps);

/* Every pair of rows added: a [N, R, D] and b [N, C, D] give out [N, R, C, D] with
 * out[n, i, j, :] = a[n, i, :] + b[n, j, :] (the broadcast add of additive attention).
 * Backward: da[n, i] = sum over j of g[n, i, j],  db[n, j] = sum over i of g[n, i, j]. */
Tensor *op_add_pairs(Tape *tp, Tensor *a, Tensor *b);

/* Layer normalisation over the last dim: out = (x - mean) / sqrt(var + eps) * gain + bias. */
Tensor *op_layernorm(Tape *tp, Tensor *x, Tensor *gain, Tensor *bias, real eps);

/* GELU, tanh form: 0.5 x (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3), computed as
 * x sigma(2u) (the same function). Backward: dx = g (sigma + x sigma (1 - sigma) du/dx 2). */
Tensor *op_gelu(Tape *tp, Tensor *x);

/* out[n, :] = table[ids[n], :] for n < rows; out has shape [d0, d1, C] where d0*d1 = rows.
 * Backward: the gradient rows are added ("scattered") into the table rows they came from. */
Tensor *op_embedding(Tape *tp, Tensor *table, const int *ids, int d0, int d1);

/* Inverted dropout: out = x * keep / (1 - p), keep ~ Bernoulli(1 - p) from the tape's
 * dropout key (same seed and step => same mask, whatever the thread count).
 * The identity (x itself) when p == 0 or the tape is not in training mode. */
Tensor *op_dropout(Tape *tp, Tensor *x, real p);

/* Mean cross-entropy of logits [..., V] against integer targets, over the positions where
 * mask[n] != 0 (mask may be NULL: all positions). A fused log-softmax keeps it finite.
 * Output: a scalar. Backward: dlogits[n] = (softmax(logits[n]) - onehot(target[n])) / count. */
Tensor *op_cross_entropy(Tape *tp, Tensor *logits, const int *targets, const unsigned char *mask);

/* A view with another shape and the same data (and gradient) - no copy, no tape entry. */
Tensor *op_reshape(Tape *tp, Tensor *x, int ndim, const int *shape);

/* out = x with its dims reordered: out.shape[i] = x.shape[perm[i]] (a copy).
 * Backward: the inverse permutation of g. (A product over groups of columns needs none:
 * op_matmul_groups reads them in place.) */
Tensor *op_permute(Tape *tp, Tensor *x, int ndim, const int *perm);

#endif
