/* option_needs.h - when an option does something, for the rows of the option table (options.c):
 * an OptNeeds says whether an option does something in a configuration and, when it does not,
 * what it needs, in words generated from the modules' rows. Inside run/ only. */
#ifndef RUN_OPTION_NEEDS_H
#define RUN_OPTION_NEEDS_H

#include "options.h"

/* met(o, name): whether the option does something in configuration o; what it needs is `text`,
 * or what say(name) writes. Given with another value than its default where it does nothing,
 * the option is refused (options_check_given): a silent no-op would mislead an ablation. */
typedef struct OptNeeds {
    bool (*met)(const Options *o, const char *option);
    const char *text;
    void (*say)(const char *option, char *buf, size_t len);
} OptNeeds;

/* The options of the model, the optimizer or an output that matter only in some configurations.
 * (The data options that shape one task, --symbols or --recall-pairs, are not among them: one
 * set of them serves a grid of several tasks, and each task reads its own.) */
extern const OptNeeds NEEDS_SCALED;          /* --scale: a variant whose row is `scaled` */
extern const OptNeeds NEEDS_LEARNED_SCALE;   /* --scale-init: a scaled variant with --scale=learned */
extern const OptNeeds NEEDS_HEAD_MULTIPLIER; /* --scale-param: a learned multiplier per head */
extern const OptNeeds NEEDS_VARIANT_READS;
extern const OptNeeds NEEDS_SCORES_FROM_QK; /* --qk-init, --softmax: not with uniform attention */   /* an option the variant's row reads (--tau-init) */
extern const OptNeeds NEEDS_OPTIMIZER_READS; /* an option the optimizer's row reads (--beta1, --momentum) */
extern const OptNeeds NEEDS_DECODE, NEEDS_FIGURE, NEEDS_HELD_OUT_ATTENTION; /* options of the outputs */
extern const OptNeeds NEEDS_SAMPLING;        /* --top-k: --decode with --temperature > 0 */

/* "copy/reverse/sort": the tasks whose row reads the option, into buf ("" for none). */
void needs_tasks_reading(const char *option, char *buf, size_t len);

#endif
