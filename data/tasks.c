/* tasks.c - the table of tasks. A new task is one file that defines its TaskSpec, and one row
 * here (with its TaskKind in data.h). */
#include "data.h"

static const TaskSpec *const g_tasks[] = {
    [TASK_COPY] = &task_copy,
    [TASK_REVERSE] = &task_reverse,
    [TASK_TRANSLATE] = &task_translate,
    [TASK_SORT] = &task_sort,
    [TASK_RECALL] = &task_recall,
    [TASK_TSV] = &task_tsv,
};
enum { N_TASKS = (int)(sizeof g_tasks / sizeof g_tasks[0]) };

const TaskSpec *task_spec(int kind) { return kind >= 0 && kind < N_TASKS ? g_tasks[kind] : NULL; }

const char *task_name(int kind, const char **help)
{
    const TaskSpec *t = task_spec(kind);
    if (t && help) *help = t->help;
    return t ? t->name : NULL;
}
