/* optim_table.c - the table of optimizers (optim.h). A new optimizer: its file,
 * model/optim_<name>.c, and one row here with its extern line. --optim names an optimizer by
 * its row's name; a checkpoint stores that name. */
#include "optim.h"

#include <string.h>

extern const OptimSpec optim_adamw, optim_sgd;

static const OptimSpec *const g_optimizers[] = {
    &optim_adamw,
    &optim_sgd,
};
enum { N_OPTIMIZERS = (int)(sizeof g_optimizers / sizeof g_optimizers[0]) };

const OptimSpec *optim_spec(int kind) { return kind >= 0 && kind < N_OPTIMIZERS ? g_optimizers[kind] : NULL; }


const char *optim_name(int kind, const char **help)
{
    const OptimSpec *s = optim_spec(kind);
    if (s && help) *help = s->help;
    return s ? s->name : NULL;
}

const OptimState *optim_buffer(int b, int *kind, int *k)
{
    for (int i = 0; i < N_OPTIMIZERS; b -= g_optimizers[i++]->n_state)
        if (b >= 0 && b < g_optimizers[i]->n_state) {
            *kind = i;
            *k = b;
            return &g_optimizers[i]->state[b];
        }
    return NULL;
}
