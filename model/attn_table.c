/* attn_table.c - the table of attention variants (attn_spec.h), and what the rest of the
 * program reads from its rows. A new variant: its file, model/attn_<name>.c, and one row here
 * with its extern line. --attn names a variant by its row's name; a checkpoint stores that name. */
#include "attn_spec.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const AttnSpec attn_dot, attn_qknorm, attn_cosine, attn_additive;
extern const AttnSpec attn_uniform;

static const AttnSpec *const g_variants[] = {
    &attn_dot,
    &attn_qknorm,
    &attn_cosine,
    &attn_additive,
    &attn_uniform,
};
enum { N_VARIANTS = (int)(sizeof g_variants / sizeof g_variants[0]) };

const AttnSpec *attn_spec(int kind) { return kind >= 0 && kind < N_VARIANTS ? g_variants[kind] : NULL; }


const char *attn_kind_name(int kind, const char **help)
{
    const AttnSpec *a = attn_spec(kind);
    if (a && help) *help = a->help;
    return a ? a->name : NULL;
}

/* ------------------------------------------------------------------ read from the rows */

const HeadMultiplier *attn_head_multiplier(const GptConfig *c)
{
    const AttnSpec *a = attn_spec(c->attn);
    return a->scaled && c->scale_mode == SCALE_LEARNED ? &attn_learned_s : a->multiplier;
}

const char *attn_multiplier_name(const GptConfig *c)
{
    const HeadMultiplier *m = attn_head_multiplier(c);
    return m ? m->name : attn_spec(c->attn)->scaled ? "s" : NULL;
}

bool gpt_has_head_scales(const GptConfig *c) { return attn_head_multiplier(c) != NULL; }

double gpt_fixed_scale(const GptConfig *c)
{
    bool fixed = attn_spec(c->attn)->scaled && c->scale_mode != SCALE_LEARNED;
    return fixed ? attention_scale(c->scale_mode, c->scale_const, c->dk) : NAN;
}

void gpt_describe_scores(const GptConfig *c, char *buf, size_t len)
{
    const AttnSpec *a = attn_spec(c->attn);
    const HeadMultiplier *m = attn_head_multiplier(c);
    const char *stored = c->scale_param == SCALE_PARAM_LOG ? ", stored as its log" : "";
    int n;
    if (m)
        n = snprintf(buf, len, "%s with a learned %s per head (initially %.*g%s)", a->formula, m->name, m->start_digits,
                     m->start(c), stored);
    else if (a->scaled)
        n = snprintf(buf, len, "%s with s = %.4g", a->formula, gpt_fixed_scale(c));
    else
        n = snprintf(buf, len, "%s, not scaled", a->formula);
    if (n >= 0 && (size_t)n < len && (c->precision != FORMAT_FP32 || c->softmax != SOFTMAX_STABLE))
        snprintf(buf + n, len - (size_t)n, "; attention in %s, %s softmax", format_name(c->precision, NULL),
                 softmax_kind_name(c->softmax, NULL));
}
