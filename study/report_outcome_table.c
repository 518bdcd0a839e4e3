/* report_outcome_table.c - see report_outcome_table.h. Changing a row here after the study has
 * run changes its pre-registration: DESIGN.md must say so (its test fails until the quote
 * matches). */
#include "report_outcome_table.h"

#include "report_rows.h"

#include <string.h>

/* Chance levels: lookup guesses one of n positions per query, Q = 2 queries: the mean of 1/n^2
 * over the lengths (docs/TASKS.md); recall picks the most frequent of the P values it sees
 * (simulated, docs/TASKS.md); reverse and sort must write 6 to 12 symbols of 16 in the right
 * order, which guessing does with probability at most 16^-6. Thresholds: halfway or more from
 * guessing to 1, where the bimodal tasks' runs are either far below or far above. */
const OutcomeTask g_outcome_tasks[] = {
    {"lookup", 0.50, 0.046, "lengths 3–8, 2 queries", OUTCOME_FISHER},
    {"recall", 0.70, 0.337, "4 pairs, 16 values, 1 query", OUTCOME_FISHER},
    {"reverse", 0.50, 0.000, "16 symbols, lengths 6–12", OUTCOME_SIGN_FLIP},
    {"sort", 0.50, 0.000, "16 symbols, lengths 6–12", OUTCOME_SIGN_FLIP},
};
const int g_n_outcome_tasks = (int)(sizeof g_outcome_tasks / sizeof g_outcome_tasks[0]);

const OutcomeTask *outcome_task(const char *task)
{
    for (int i = 0; i < g_n_outcome_tasks; i++)
        if (!strcmp(g_outcome_tasks[i].task, task)) return &g_outcome_tasks[i];
    return NULL;
}

/* At dk = 64 the constant 1/8 is 1/sqrt(dk) itself (the same runs, bit for bit): the constant
 * is contrasted at dk 16 and 256 only. */
const PrimaryContrast g_primary_contrasts[] = {
    {"adamw", 64, {"-", "1"}, {"-", "sqrt"}, "raw q·k against the rule"},
    {"adamw", 64, {"-", "dk"}, {"-", "sqrt"}, "does 1/dₖ over-compress?"},
    {"adamw", 16, {"-", "8"}, {"-", "sqrt"}, "a constant at a smaller dₖ (1/8 = 1/(2√dₖ))"},
    {"adamw", 256, {"-", "8"}, {"-", "sqrt"}, "a constant at a larger dₖ (1/8 = 2/√dₖ)"},
    {"adamw", 64, {"attn=additive", "none"}, {"-", "sqrt"}, "additive scores against dot products"},
};
const int g_n_primary_contrasts = (int)(sizeof g_primary_contrasts / sizeof g_primary_contrasts[0]);

static const char *side_text(const OutcomeSide *s)
{
    static char buf[2][96];
    static int next;
    char *b = buf[next++ % 2];
    if (!strcmp(s->variant, "-")) snprintf(b, 96, "s = %s", scale_label(s->scale, SCALE_FOR_TABLES));
    else if (!strcmp(s->scale, "none")) snprintf(b, 96, "`%s`", s->variant);
    else snprintf(b, 96, "`%s`, s = %s", s->variant, scale_label(s->scale, SCALE_FOR_TABLES));
    return b;
}

void outcome_table_markdown(FILE *f)
{
    fprintf(f, "| task | success: test accuracy ≥ | chance | chance for | the test of its verdicts |\n"
               "|---|---:|---:|---|---|\n");
    for (int i = 0; i < g_n_outcome_tasks; i++) {
        const OutcomeTask *t = &g_outcome_tasks[i];
        fprintf(f, "| %s | %.2f | %.3f | %s | %s |\n", t->task, t->threshold, t->chance, t->chance_note,
                t->test == OUTCOME_FISHER ? "Fisher's exact test on the success counts"
                                          : "sign-flip test on the paired test accuracy");
    }
    fprintf(f, "\n| primary contrast (on every task above) | optimizer | dₖ | a | b |\n|---|---|---:|---|---|\n");
    for (int i = 0; i < g_n_primary_contrasts; i++) {
        const PrimaryContrast *p = &g_primary_contrasts[i];
        fprintf(f, "| %s | %s | %.0f | %s | %s |\n", p->question, p->optim, p->dk, side_text(&p->a), side_text(&p->b));
    }
}
