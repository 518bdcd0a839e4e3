/* ops.h - every differentiable op of the engine.
 *
 * Each op computes its output in the tape's arena and, when an input needs a gradient,
 * records itself on the tape. Its backward function sits next to it in the same file.
 * Notation below: g = d(loss)/d(out), the gradient arriving at the op's output.
 */
#ifndef TENSOR_OPS_H
#define TENSOR_OPS_H

#include "tensor.h"

/* out = op(a) . op(b), op = transpose when the flag is set. Shapes:
 *   a [..., M, K] (or [..., K, M] with trans_a), b [..., K, N] (or [..., N, K] with trans_b).
 *   Either both have the same leading (batch) dims, or b is 2-D and shared by every batch
 *   item (a weight matrix), in which case a must not be transposed.
 * Backward: d op(a) = g . op(b)^T,  d op(b) = op(a)^T . g. */
Tensor *op_matmul(Tape *tp, Tensor *a, Tensor *b, bool trans_a, bool trans_b);

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

/* Softmax over the last dim. With `causal`, row r of each R x N matrix (the last two dims)
 * sees only columns c <= r + (N - R); the others get probability exactly 0.
 * Backward: dx_j = p_j (g_j - sum_i g_i p_i). */
Tensor *op_softmax(Tape *tp, Tensor *x, bool causal);

/* softmax(s x) in one pass, the same numbers as op_scale followed by op_softmax (s x is
 * rounded the same way) without storing s x. Backward: dx_j = s p_j (g_j - sum_i g_i p_i). */
Tensor *op_softmax_scaled(Tape *tp, Tensor *x, real s, bool causal);

/* Layer normalisation over the last dim: out = (x - mean) / sqrt(var + eps) * gain + bias. */
Tensor *op_layernorm(Tape *tp, Tensor *x, Tensor *gain, Tensor *bias, real eps);

/* GELU, tanh form: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). */
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
 * Backward: the inverse permutation of g. Used to split and merge attention heads. */
Tensor *op_permute(Tape *tp, Tensor *x, int ndim, const int *perm);

#endif
