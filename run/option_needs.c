/* option_needs.c - what the option table learns from the modules' rows: when an option does
 * something (the attention variants' and optimizers' rows list what they read and how their
 * scores are scaled), what it needs then, in words, and which tasks read a data option. */
#include "option_needs.h"

#include "../model/attn_spec.h"

#include <stdio.h>
#include <string.h>

/* "a", "a or b", "a, b or c" */
static void join_or(char *buf, size_t len, const char *const *names, int n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n; i++) appendf(buf, len, &used, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ", names[i]);
}

/* The attention variants whose row passes `has` (for `option`), as "a, b or c". */
static void variants_where(bool (*has)(const AttnSpec *a, const char *option), const char *option, char *buf, size_t len)
{
    const char *names[64];
    int n = 0;
    for (int k = 0; attn_spec(k) && n < 64; k++)
        if (has(attn_spec(k), option)) names[n++] = attn_spec(k)->name;
    join_or(buf, len, names, n);
}

static bool is_scaled(const AttnSpec *a, const char *option) { (void)option; return a->scaled; }
static bool has_own_multiplier(const AttnSpec *a, const char *option) { (void)option; return a->multiplier != NULL; }
/* Whether name is in list[0 .. n), which ends early at a NULL. */
static bool listed(const char *const *list, int n, const char *name)
{
    for (int k = 0; k < n && list[k]; k++)
        if (!strcmp(list[k], name)) return true;
    return false;
}

static bool reads(const AttnSpec *a, const char *option) { return listed(a->reads, ATTN_MAX_READS, option); }

/* --scale: the variants it applies to, and why the others are not scaled */
static bool scaled(const Options *o, const char *option) { return is_scaled(attn_spec(o->model.attn), option); }
static void say_scaled(const char *option, char *buf, size_t len)
{
    char which[512];
    variants_where(is_scaled, option, which, sizeof which);
    size_t used = 0;
    buf[0] = 0;
    appendf(buf, len, &used, "--attn=%s", which);
    for (int k = 0, n = 0; attn_spec(k); k++)
        if (!attn_spec(k)->scaled) appendf(buf, len, &used, "%s%s", n++ ? "; " : " (", attn_spec(k)->unscaled_why);
    if (strchr(buf, '(')) appendf(buf, len, &used, ")");
}

/* --scale-init: a learned s, which only the scaled variants have */
static bool learned_scale(const Options *o, const char *option)
{
    return scaled(o, option) && o->model.scale_mode == SCALE_LEARNED;
}
static void say_learned_scale(const char *option, char *buf, size_t len)
{
    char which[512];
    variants_where(is_scaled, option, which, sizeof which);
    snprintf(buf, len, "--scale=learned (with --attn=%s)", which);
}

/* --scale-param: a learned multiplier, the learned s or a variant's own */
static bool head_multiplier(const Options *o, const char *option)
{
    (void)option;
    return attn_head_multiplier(&o->model) != NULL;
}
static void say_head_multiplier(const char *option, char *buf, size_t len)
{
    char which[512];
    variants_where(has_own_multiplier, option, which, sizeof which);
    snprintf(buf, len, "--scale=learned or --attn=%s", which);
}

/* --qk-init, --softmax: scores made from q and k (every variant but those that ignore them) */
static bool reads_qk(const AttnSpec *a, const char *option) { (void)option; return !a->ignores_qk; }
static bool scores_from_qk(const Options *o, const char *option) { return reads_qk(attn_spec(o->model.attn), option); }
static void say_scores_from_qk(const char *option, char *buf, size_t len)
{
    char which[512];
    variants_where(reads_qk, option, which, sizeof which);
    size_t used = 0;
    buf[0] = 0;
    appendf(buf, len, &used, "--attn=%s", which);
    for (int k = 0, n = 0; attn_spec(k); k++)
        if (attn_spec(k)->ignores_qk) appendf(buf, len, &used, "%s%s", n++ ? ", " : " (not ", attn_spec(k)->name);
    if (strchr(buf, '(')) appendf(buf, len, &used, ": its scores do not depend on q and k)");
}

/* an option that some variants read (their row's `reads`) */
static bool variant_reads(const Options *o, const char *option) { return reads(attn_spec(o->model.attn), option); }
static void say_variant_reads(const char *option, char *buf, size_t len)
{
    char which[512];
    variants_where(reads, option, which, sizeof which);
    snprintf(buf, len, "--attn=%s", which);
}

/* a hyper-parameter: an option some optimizers read (their row's `reads`) */
static bool optimizer_reads(const Options *o, const char *option)
{
    return listed(optim_spec(o->optim.kind)->reads, OPTIM_MAX_READS, option);
}
static void say_optimizer_reads(const char *option, char *buf, size_t len)
{
    const char *names[64], *name;
    int n = 0;
    for (int kind = 0; (name = optim_name(kind, NULL)) != NULL && n < 64; kind++)
        if (listed(optim_spec(kind)->reads, OPTIM_MAX_READS, option)) names[n++] = name;
    char which[512];
    join_or(which, sizeof which, names, n);
    snprintf(buf, len, "--optim=%s", which);
}

/* options of the run's outputs */
static bool decoding(const Options *o, const char *option) { (void)option; return o->run.decode; }
static bool sampling(const Options *o, const char *option) { (void)option; return o->run.decode && o->run.temperature > 0; }
static bool drawn(const Options *o, const char *option) { (void)option; return o->run.attention_svg[0] != 0; }
static bool held_out_attention(const Options *o, const char *option)
{
    (void)option;
    return o->run.attention_svg[0] || o->run.dump_state[0];
}

const OptNeeds NEEDS_SCALED = {scaled, NULL, say_scaled};
const OptNeeds NEEDS_LEARNED_SCALE = {learned_scale, NULL, say_learned_scale};
const OptNeeds NEEDS_HEAD_MULTIPLIER = {head_multiplier, NULL, say_head_multiplier};
const OptNeeds NEEDS_VARIANT_READS = {variant_reads, NULL, say_variant_reads};
const OptNeeds NEEDS_SCORES_FROM_QK = {scores_from_qk, NULL, say_scores_from_qk};
const OptNeeds NEEDS_OPTIMIZER_READS = {optimizer_reads, NULL, say_optimizer_reads};
const OptNeeds NEEDS_DECODE = {decoding, "--decode", NULL};
const OptNeeds NEEDS_SAMPLING = {sampling, "--decode with --temperature > 0 (greedy decoding takes the most likely token)", NULL};
const OptNeeds NEEDS_FIGURE = {drawn, "--attention-svg=FILE", NULL};
const OptNeeds NEEDS_HELD_OUT_ATTENTION = {held_out_attention, "--attention-svg=FILE or --dump-state=FILE", NULL};

void needs_tasks_reading(const char *option, char *buf, size_t len)
{
    size_t used = 0;
    const TaskSpec *t;
    for (int kind = 0, n = 0; (t = task_spec(kind)) != NULL; kind++)
        if (listed(t->reads, TASK_MAX_READS, option)) appendf(buf, len, &used, "%s%s", n++ ? "/" : "", t->name);
}

bool options_task_ignores(const Options *o, const char *option)
{
    bool shapes_a_task = false;
    const TaskSpec *t;
    for (int kind = 0; (t = task_spec(kind)) != NULL; kind++) shapes_a_task |= listed(t->reads, TASK_MAX_READS, option);
    return shapes_a_task && !listed(task_spec(o->data.task)->reads, TASK_MAX_READS, option);
}
