/* attn_spec.h - the attention variants: one row (an AttnSpec) per way of forming scores.
 *
 * Multi-head attention is the same for every variant (attention.c): q, k, v per head (side by
 * side in [B, T, H*dk]); scores S [B, H, T, T]; P = softmax(S) under the causal mask; o = P v,
 * the heads side by side again. A variant says only how S is formed from q and k: its score
 * rule, the multiplier the scores get (the --scale s, or a learned one of its own, such as
 * cosine's temperature tau), its own parameters, and what the rest of the program reads about
 * it (its memory, its name in figures and logs, the options it reads). A new variant is one
 * file, model/attn_<name>.c, defining
 *     const AttnSpec attn_<name> = {.name = "<name>", ...};
 * and one row in the table of model/attn_table.c (with its extern line): --attn=<name>, --help,
 * the model, checkpoints, logs and figures follow.
 */
#ifndef MODEL_ATTN_SPEC_H
#define MODEL_ATTN_SPEC_H

#include "gpt.h"

/* A learned multiplier per head: a parameter [H] (stored as itself, or as its logarithm with
 * --scale-param=log) that multiplies each head's scores. */
typedef struct HeadMultiplier {
    const char *name;       /* as figures and the console write it: "s", "tau" */
    const char *param;      /* its parameter: "scale" names h.<l>.attn.scale (or h.<l>.attn.log_scale) */
    double (*start)(const GptConfig *c); /* where it starts (the same in every head) */
    int start_digits;       /* significant digits of the start, as the console writes it */
    const char *column;     /* its CSV column, l<l>_<column> (one per layer) */
    double (*logged)(double mean, const GptConfig *c); /* the column's value, from the heads' mean */
} HeadMultiplier;

/* The learned s of --scale=learned, which every variant with `scaled` gets (attn_scale.c). */
extern const HeadMultiplier attn_learned_s;

/* A score rule turns the queries and keys of every head into raw scores [B, H, T, T]; the
 * multiplier (s, or the variant's own) is applied after it, by attention.c. q and k are
 * [B, T, H*dk] as the projections wrote them, head h in columns h dk .. h dk + dk - 1 (the
 * helpers below read them per head). A rule stores its intermediate results as the attention
 * path stores them (attention_stored), not its result. Its own parameters are
 * ly->attn_param[...], as its add_params made them. */
typedef Tensor *(*ScoreRule)(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                             AttentionTrace *trace);

enum { ATTN_MAX_READS = 4 };

typedef struct AttnSpec {
    const char *name;       /* as --attn spells it */
    const char *help;       /* one line for --help */
    const char *formula;    /* S as the console and figures write it: "s q.k", "tau cos(q, k)" */
    ScoreRule scores;
    /* --scale applies: S = s rule(q, k), s fixed (1, 1/sqrt dk, 1/dk, 1/c) or learned per head
     * (attn_learned_s). A variant that is not scaled says why, for --scale's message. */
    bool scaled;
    const char *unscaled_why;
    /* Its scores do not depend on q and k (uniform attention): how Wq and Wk start (--qk-init) and
     * which softmax (--softmax) change nothing, and are refused as doing nothing. */
    bool ignores_qk;
    /* A learned multiplier of its own (cosine's tau), S = m_h rule(q, k); NULL: none. A variant
     * has this or `scaled`, not both (the layer has one slot for it, GptLayer.scale). */
    const HeadMultiplier *multiplier;
    /* Its own parameters, made with gpt_add_param into param[0 ..] (ly->attn_param) for layer l,
     * after the layer's attention weights and multiplier; NULL: none. */
    void (*add_params)(Gpt *m, int layer, Tensor **param);
    /* The memory one layer of it needs beyond what every variant needs (run/run.c's check), in
     * bytes, for a batch of B sequences of T positions, with why, for the message when it is too
     * much (`remedy` says what to lower); NULL: nothing more. */
    double (*extra_bytes)(const GptConfig *c, int B, int T, char *why, size_t len);
    const char *remedy;
    /* The options it reads beyond those every variant reads ("tau-init"): given with another
     * variant, they are refused as doing nothing. */
    const char *reads[ATTN_MAX_READS];
} AttnSpec;

/* The table (attn_table.c). */
const AttnSpec *attn_spec(int kind);     /* NULL past the last; name_find(attn_kind_name, "dot") finds a kind */
/* The learned multiplier per head of a configuration: attn_learned_s for a scaled variant with
 * --scale=learned, the variant's own, or NULL. */
const HeadMultiplier *attn_head_multiplier(const GptConfig *c);
/* The name of the multiplier the scores get, for figures: "s" (fixed or learned), the variant's
 * own ("tau"), or NULL when the scores get none (additive). */
const char *attn_multiplier_name(const GptConfig *c);

/* For the variants' rules (attention.c): x as the attention path stores it, rounded to
 * cfg->precision and counted in the trace (x itself in fp32); scores [B, H, T, T] are stored
 * under the causal mask: a hidden score is neither rounded nor counted. */
Tensor *attention_stored(Tape *tp, const GptConfig *cfg, Tensor *x, Mask mask, AttentionTrace *trace);
/* q.k for every pair of positions of every head, [B, H, T, T], from q and k [B, T, H*dk] read in
 * place (op_matmul_groups: no copy). */
Tensor *attention_dot_products(Tape *tp, const GptConfig *cfg, Tensor *q, Tensor *k);
/* x [B, T, H*dk] viewed as [B, T, H, dk] (no copy): one row of dk per example, position and
 * head, for an op over each head's rows (op_l2_normalize). */
Tensor *attention_head_rows(Tape *tp, const GptConfig *cfg, Tensor *x);
/* x [B, T, H*dk] copied to [B, H, T, dk], one dense matrix per (example, head), for a rule that
 * needs its rows in that order: an op that sums over rows (op_layernorm's gain and bias
 * gradients) adds them in row order, so another order would give other bits. */
Tensor *attention_heads_first(Tape *tp, const GptConfig *cfg, Tensor *x);

#endif
