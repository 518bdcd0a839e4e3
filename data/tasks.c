/* tasks.c - the table of tasks (data.h). A new task: its file, data/task_<name>.c, and one row
 * here with its extern line. --task names a task by its row's name; a checkpoint stores that
 * name. */
#include "data.h"

#include <assert.h>
#include <string.h>

extern const TaskSpec task_copy, task_reverse, task_translate, task_sort, task_recall, task_tsv;
extern const TaskSpec task_lookup;

static const TaskSpec *const g_tasks[] = {
    &task_copy,
    &task_reverse,
    &task_translate,
    &task_sort,
    &task_recall,
    &task_lookup,
    &task_tsv,
};
enum { N_TASKS = (int)(sizeof g_tasks / sizeof g_tasks[0]) };

const TaskSpec *task_spec(int kind) { return kind >= 0 && kind < N_TASKS ? g_tasks[kind] : NULL; }


const char *task_name(int kind, const char **help)
{
    const TaskSpec *t = task_spec(kind);
    if (t && help) *help = t->help;
    return t ? t->name : NULL;
}

int task_of_corpus(void)
{
    for (int i = 0; i < N_TASKS; i++)
        if (g_tasks[i]->load) return i;
    assert(!"no corpus task in the table");
    return -1;
}
