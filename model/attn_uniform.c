/* attn_uniform.c - uniform attention, the control: S = 0 for every pair, so after the causal
 * softmax query i weighs each of its i + 1 visible keys by 1 / (i + 1), whatever q and k hold.
 * What a task needs beyond an average of its past shows here: a task that uniform attention
 * solves does not test focus (docs/TASKS.md's calibration gate). Wq and Wk get a zero gradient
 * (they still decay under AdamW's weight decay). */
#include "attn_spec.h"

/* 0 q.k^T: the scores' shape and the tape's path of every variant, with no information */
static Tensor *uniform_scores(Tape *tp, const GptLayer *ly, const GptConfig *cfg, Tensor *q, Tensor *k,
                              AttentionTrace *trace)
{
    (void)ly, (void)trace;
    return op_scale(tp, attention_dot_products(tp, cfg, q, k), 0);
}

const AttnSpec attn_uniform = {
    .name = "uniform",
    .help = "S = 0: every visible key weighs the same (a control that cannot focus; no --scale)",
    .formula = "0",
    .scores = uniform_scores,
    .unscaled_why = "uniform attention has no scores to scale",
    .ignores_qk = true,
};
