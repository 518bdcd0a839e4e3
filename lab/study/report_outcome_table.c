/* report_outcome_table.c - see report_outcome_table.h. Changing a row here after the study has
 * run changes its pre-registration: DESIGN.md must say so (its test fails until the quote
 * matches). */
#include "report_outcome_table.h"

#include "report_rows.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

/* Chance levels: lookup guesses one of n positions per query, Q = 2 queries: the mean of 1/n^2
 * over the lengths (docs/TASKS.md); recall picks the most frequent of the P values it sees
 * (simulated, docs/TASKS.md); reverse must write 6 to 14 symbols of 16 in the right order, which
 * guessing does with probability at most 16^-6. sort is not in the second study: uniform
 * attention solves it (docs/TASKS.md, the gate), so it cannot test a claim about focus. Thresholds: halfway or more from
 * guessing to 1, where the bimodal tasks' runs are either far below or far above. Sweep seeds:
 * 5 per rate on the bimodal tasks (lookup, recall: a run learns or it does not, so the mean of 3
 * is one of 4 values), 3 on reverse (DESIGN.md's amendment of 2026-12-07). */
const OutcomeTask g_outcome_tasks[] = {
    {"lookup", "--task=lookup --lookup-queries=2 --min-len=3 --max-len=8 --steps=1000", 0.50, 0.046,
     "lengths 3–8, 2 queries", OUTCOME_FISHER, 5},
    {"recall", "--task=recall --steps=3000 --weight-decay=0", 0.70, 0.337, "4 pairs, 16 values, 1 query",
     OUTCOME_FISHER, 5},
    {"reverse", "--task=reverse --symbols=16 --min-len=6 --max-len=14 --steps=1000", 0.50, 0.000,
     "16 symbols, lengths 6–14", OUTCOME_SIGN_FLIP, 3},
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

/* Beside the primaries: s = 1 and 1/dk where the constant is contrasted (is the rule's lead
 * the same at other dk?), and the articles' premise of unit-variance q and k (--qk-init=unit)
 * for 1/dk against 1/sqrt(dk), the first study's evidence on claim 5. */
const StudyCell g_secondary_cells[] = {
    {"adamw", 16, {"-", "1"}},
    {"adamw", 16, {"-", "dk"}},
    {"adamw", 256, {"-", "1"}},
    {"adamw", 256, {"-", "dk"}},
    {"adamw", 64, {"qk-init=unit", "sqrt"}},
    {"adamw", 64, {"qk-init=unit", "dk"}},
};
const int g_n_secondary_cells = (int)(sizeof g_secondary_cells / sizeof g_secondary_cells[0]);

static const char *side_text(const OutcomeSide *s)
{
    static char buf[2][96];
    static int next;
    char *b = buf[next++ % 2];
    if (!strcmp(s->variant, "-")) snprintf(b, 96, "s = %s", scale_label(s->scale, SCALE_MARKDOWN));
    else if (scale_is_none(s->scale)) snprintf(b, 96, "`%s`", s->variant);
    else snprintf(b, 96, "`%s`, s = %s", s->variant, scale_label(s->scale, SCALE_MARKDOWN));
    return b;
}

void outcome_table_markdown(FILE *f)
{
    fprintf(f, "| task | ./train flags (the budget) | success: test accuracy ≥ | chance | chance for | the test of its verdicts | "
               "sweep seeds per rate |\n|---|---|---:|---:|---|---|---:|\n");
    for (int i = 0; i < g_n_outcome_tasks; i++) {
        const OutcomeTask *t = &g_outcome_tasks[i];
        fprintf(f, "| %s | `%s` | %.2f | %.3f | %s | %s | %d |\n", t->task, t->flags, t->threshold, t->chance, t->chance_note,
                t->test == OUTCOME_FISHER ? "Fisher's exact test on the success counts"
                                          : "sign-flip test on the paired test accuracy",
                t->sweep_seeds);
    }
    fprintf(f, "\n| primary contrast (on every task above) | optimizer | dₖ | a | b |\n|---|---|---:|---|---|\n");
    for (int i = 0; i < g_n_primary_contrasts; i++) {
        const PrimaryContrast *p = &g_primary_contrasts[i];
        fprintf(f, "| %s | %s | %.0f | %s | %s |\n", p->question, p->optim, p->dk, side_text(&p->a), side_text(&p->b));
    }
    fprintf(f, "\n| secondary cell (on every task above, against 1/√dₖ of its variant) | optimizer | dₖ |\n|---|---|---:|\n");
    for (int i = 0; i < g_n_secondary_cells; i++) {
        const StudyCell *c = &g_secondary_cells[i];
        fprintf(f, "| %s | %s | %.0f |\n", side_text(&c->side), c->optim, c->dk);
    }
}

/* Appends a cell to the list unless it is there already (each (optim, dk, side) once). */
static void add_cell(StudyCell *cells, bool *primary, int *n, const char *optim, double dk, OutcomeSide side, bool is_primary)
{
    for (int j = 0; j < *n; j++) {
        const StudyCell *c = &cells[j];
        if (!strcmp(c->optim, optim) && c->dk == dk && !strcmp(c->side.variant, side.variant) &&
            !strcmp(c->side.scale, side.scale))
            return;
    }
    assert(*n < MAX_STUDY_CELLS);
    primary[*n] = is_primary;
    cells[(*n)++] = (StudyCell){optim, dk, side};
}

int outcome_study_cells(StudyCell cells[MAX_STUDY_CELLS], bool primary[MAX_STUDY_CELLS])
{
    int n = 0;
    for (int i = 0; i < g_n_primary_contrasts; i++) {
        const PrimaryContrast *p = &g_primary_contrasts[i];
        add_cell(cells, primary, &n, p->optim, p->dk, p->a, true);
        add_cell(cells, primary, &n, p->optim, p->dk, p->b, true);
    }
    for (int i = 0; i < g_n_secondary_cells; i++)
        add_cell(cells, primary, &n, g_secondary_cells[i].optim, g_secondary_cells[i].dk, g_secondary_cells[i].side, false);
    return n;
}

void outcome_design_tsv(FILE *f)
{
    StudyCell cells[MAX_STUDY_CELLS];
    bool primary[MAX_STUDY_CELLS];
    int n = outcome_study_cells(cells, primary);
    fprintf(f, "task\trole\toptim\tscale\tdk\tvariant\tflags\tthreshold\tchance\ttest\tsweep_seeds\n");
    for (int t = 0; t < g_n_outcome_tasks; t++)
        for (int i = 0; i < n; i++) {
            const OutcomeTask *task = &g_outcome_tasks[t];
            const StudyCell *c = &cells[i];
            fprintf(f, "%s\t%s\t%s\t%s\t%.0f\t%s\t%s\t%.2f\t%.3f\t%s\t%d\n", task->task, primary[i] ? "primary" : "secondary",
                    c->optim, c->side.scale, c->dk, c->side.variant, task->flags, task->threshold, task->chance,
                    task->test == OUTCOME_FISHER ? "fisher" : "sign-flip", task->sweep_seeds);
        }
}
