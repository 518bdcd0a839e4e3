/* forensics.c - see forensics.h. */
#include "forensics.h"

#include "exit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *nan_mode_name(int mode, const char **help)
{
    static NameTable names = {
        [NAN_STOP] = {"stop", "exit 3, naming the step, the tensor and the op"},
        [NAN_CONTINUE] = {"continue", "count it, skip the update, go on"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), mode, help);
}

typedef enum ParamPart { PARAM_VALUES, PARAM_GRADIENTS } ParamPart;

/* "; <what> <name> holds <value> at element <k>" for the first parameter whose values (or
 * gradients) are not all finite; "" when all are. */
static void describe_param(const Gpt *m, ParamPart part, const char *what, char *out, size_t len)
{
    out[0] = 0;
    for (int i = 0; i < m->n_params; i++) {
        const Tensor *p = m->params[i];
        const real *x = part == PARAM_GRADIENTS ? p->grad : p->data;
        size_t k = find_nonfinite(x, p->size);
        if (k != SIZE_MAX) {
            snprintf(out, len, "; %s %s holds %g at element %zu", what, p->name, (double)x[k], k);
            return;
        }
    }
}

/* A non-finite value: exit 3 (--nan=stop), or count it and warn (the first ten times). */
static void report(const Forensics *f, int step, const char *msg)
{
    (*f->nan_count)++;
    if (f->mode == NAN_STOP) {
        fprintf(stderr, "error: step %d: %s\n", step + 1, msg);
        fprintf(stderr, "(stopped: --nan=stop; --nan=continue counts these and skips the update)\n");
        exit(EXIT_NONFINITE);
    }
    if (!f->quiet && *f->nan_count <= 10) fprintf(stderr, "warning: step %d: %s (update skipped)\n", step + 1, msg);
}

bool forensics_check_loss(const Forensics *f, int step, const Tape *tp, const Gpt *m, const Tensor *loss)
{
    if (isfinite(loss->data[0])) return true;
    char msg[1024], where[512] = "", cause[256];
    size_t k;
    int e = tape_first_nonfinite_output(tp, &k);
    if (e >= 0) {
        const TapeEntry *te = &tp->entries[e];
        snprintf(where, sizeof where, "; first non-finite value: %g in %s (op %s, element %zu)",
                 (double)te->out->data[k], te->out->name, te->op, k);
    }
    describe_param(m, PARAM_VALUES, "parameter", cause, sizeof cause);
    snprintf(msg, sizeof msg, "loss is %g%s%s", (double)loss->data[0], where, cause);
    report(f, step, msg);
    return false;
}

bool forensics_check_gradients(const Forensics *f, int step, Tape *tp, Gpt *m, Tensor *loss)
{
    if (find_nonfinite(m->grads, m->n_values) == SIZE_MAX) return true;
    char msg[1024], where[512] = "", which[256];
    describe_param(m, PARAM_GRADIENTS, "gradient of", which, sizeof which);
    /* The backward pass gave its intermediate gradients back as it went; to find the op that
     * made the first non-finite one, run it again op by op (same inputs: the same numbers). */
    memset(m->grads, 0, m->n_values * sizeof(real));
    TapeFinding found;
    if (tape_backward_find_nonfinite(tp, loss, &found) >= 0) {
        const TapeEntry *te = &tp->entries[found.entry];
        const Tensor *in = te->in[found.input];
        snprintf(where, sizeof where, "; first made by the backward of op %s (output %s): %g in the gradient of %s, element %zu",
                 te->op, te->out->name, (double)in->grad[found.element], in->name, found.element);
    }
    snprintf(msg, sizeof msg, "non-finite gradient%s%s", which, where);
    report(f, step, msg);
    return false;
}

void forensics_update_refused(const Forensics *f, int step, const Gpt *m, int bad, double grad_norm, double lr)
{
    char msg[512];
    snprintf(msg, sizeof msg, "the update would make %s (or its optimizer state) non-finite (gradient norm %g, lr %g)",
             m->params[bad]->name, grad_norm, lr);
    report(f, step, msg);
}
