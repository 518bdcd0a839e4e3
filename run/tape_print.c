/* tape_print.c - see tape_print.h. */
#include "tape_print.h"

#include <string.h>

/* ------------------------------------------------------------------ shared helpers */

const Tensor *tape_source(const Tensor *t)
{
    while (t->view_of) t = t->view_of;
    return t;
}

int tape_param_of(const Gpt *m, const Tensor *t)
{
    t = tape_source(t);
    for (int i = 0; i < m->n_params; i++)
        if (m->params[i] == t) return i;
    return -1;
}

int tape_producer(const Tape *tp, const Tensor *t)
{
    t = tape_source(t);
    for (int k = 0; k < tp->n; k++)
        if (tp->entries[k].out == t) return k;
    return -1;
}

static size_t tensor_bytes(const Tensor *t) { return t->size * sizeof(real); }

/* The tensor of entry e that bit j of TapeEntry.reads names (0..2: the inputs, 3: the output). */
static const Tensor *read_tensor(const TapeEntry *e, int j) { return j < 3 ? e->in[j] : e->out; }

size_t tape_entry_saved_bytes(const Tape *tp, int k)
{
    const TapeEntry *e = &tp->entries[k];
    size_t bytes = e->kept_bytes;
    for (int j = 0; j < 4; j++) {
        const Tensor *t = read_tensor(e, j);
        if (((e->reads >> j) & 1) && t && tape_producer(tp, t) >= 0) bytes += tensor_bytes(t);
    }
    return bytes;
}

TapeTotals tape_totals(const Tape *tp, const Gpt *m)
{
    TapeTotals tot = {.ops = tp->n};
    /* an activation several backwards read (the LayerNorm output feeding q, k and v) is kept
     * once: its producer is marked, and counted the first time */
    bool *kept = mem_alloc((size_t)tp->n + 1);
    bool *param_seen = mem_alloc((size_t)m->n_params + 1);
    for (int k = 0; k < tp->n; k++) {
        const TapeEntry *e = &tp->entries[k];
        tot.flops += e->flops;
        tot.saved_bytes += e->kept_bytes;
        for (int j = 0; j < 4; j++) {
            const Tensor *t = read_tensor(e, j);
            int p = t && ((e->reads >> j) & 1) ? tape_producer(tp, t) : -1;
            if (p >= 0 && !kept[p]) {
                kept[p] = true;
                tot.saved_bytes += tensor_bytes(tp->entries[p].out);
            }
        }
        for (int j = 0; j < 3; j++) {
            int i = e->in[j] ? tape_param_of(m, e->in[j]) : -1;
            if (i >= 0 && !param_seen[i]) {
                param_seen[i] = true;
                tot.param_tensors++;
                tot.param_values += m->params[i]->size;
            }
        }
    }
    mem_free(kept);
    mem_free(param_seen);
    return tot;
}

void tape_shape_text(const Tensor *t, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = 0;
    for (int d = 0; d < t->ndim && n < len; d++) n += (size_t)snprintf(buf + n, len - n, "%s%d", d ? "x" : "", t->shape[d]);
}

void tape_count_text(double n, char *buf, size_t len)
{
    static const char *const suffix[] = {"", "k", "M", "G", "T", "P"};
    int s = 0;
    while (n >= 999.5 && s < 5) {
        n /= 1000;
        s++;
    }
    snprintf(buf, len, s ? "%.3g%s" : "%.0f%s", n, suffix[s]);
}

void tape_bytes_text(double n, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (n >= 1023.5 && u < 4) {
        n /= 1024;
        u++;
    }
    snprintf(buf, len, u ? "%.3g %s" : "%.0f %s", n, unit[u]);
}

/* ------------------------------------------------------------------ the table */

/* The inputs of entry k: parameters by name and shape, activations by shape; a '*' on each
 * one whose values the backward reads. */
static void inputs_text(const Tape *tp, const Gpt *m, int k, char *buf, size_t len)
{
    const TapeEntry *e = &tp->entries[k];
    size_t n = 0;
    buf[0] = 0;
    for (int j = 0; j < 3 && n < len; j++) {
        const Tensor *t = e->in[j];
        if (!t) continue;
        char shape[64];
        tape_shape_text(t, shape, sizeof shape);
        int p = tape_param_of(m, t);
        n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s%s%s", n ? ", " : "", p >= 0 ? m->params[p]->name : "",
                              p >= 0 ? " " : "", shape, (e->reads >> j) & 1 ? "*" : "", t->view_of ? " (view)" : "");
    }
}

typedef struct Row {
    char index[16], op[48], scope[64], inputs[256], output[64], flops[32], saved[32];
} Row;

static void row_of(const Tape *tp, const Gpt *m, int k, Row *r)
{
    const TapeEntry *e = &tp->entries[k];
    snprintf(r->index, sizeof r->index, "%d", k);
    snprintf(r->op, sizeof r->op, "%s", e->op);
    snprintf(r->scope, sizeof r->scope, "%s", e->scope ? e->scope : "-");
    inputs_text(tp, m, k, r->inputs, sizeof r->inputs);
    tape_shape_text(e->out, r->output, sizeof r->output - 1);
    if (e->reads & TAPE_READS_OUT) strcat(r->output, "*");
    tape_count_text((double)e->flops, r->flops, sizeof r->flops);
    size_t saved = tape_entry_saved_bytes(tp, k);
    if (saved) tape_bytes_text((double)saved, r->saved, sizeof r->saved);
    else snprintf(r->saved, sizeof r->saved, "-");
}

/* Column widths: the longest cell of each column, the header's included. */
typedef struct Widths {
    int index, op, scope, inputs, output, flops, saved;
} Widths;

static int widest(int w, const char *s) { return (int)strlen(s) > w ? (int)strlen(s) : w; }

static void print_row(FILE *f, const Widths *w, const Row *r)
{
    fprintf(f, "%*s  %-*s  %-*s  %-*s  %-*s  %*s  %*s\n", w->index, r->index, w->op, r->op, w->scope, r->scope, w->inputs,
            r->inputs, w->output, r->output, w->flops, r->flops, w->saved, r->saved);
}

bool tape_print(FILE *f, const Tape *tp, const Gpt *m, int step, int B, int T)
{
    TapeTotals tot = tape_totals(tp, m);
    static const Row header = {"#", "op", "scope", "inputs", "output", "FLOPs", "saved"};
    Widths w = {0};
    Row r;
    for (int k = -1; k < tp->n; k++) {
        if (k >= 0) row_of(tp, m, k, &r);
        const Row *x = k >= 0 ? &r : &header;
        w = (Widths){widest(w.index, x->index), widest(w.op, x->op),         widest(w.scope, x->scope),
                     widest(w.inputs, x->inputs), widest(w.output, x->output), widest(w.flops, x->flops),
                     widest(w.saved, x->saved)};
    }
    fprintf(f, "The tape of step %d (a batch of %d x %d tokens): %d ops, in the order the forward pass recorded them.\n"
               "The backward pass replays them from the bottom row up: each op adds its share of d(loss)/d(input)\n"
               "into its inputs' gradients. FLOPs: the forward's (a multiply-add counts 2; the backward costs about\n"
               "2x as much). A shape marked * is read by the op's backward; \"saved\" is what that backward keeps\n"
               "alive: those tensors (parameters aside, they stay anyway) and the op's own arrays. A reshape is\n"
               "no op: it makes a view of the same memory (marked so), and the tape does not record it.\n\n",
            step + 1, B, T, tot.ops);
    print_row(f, &w, &header);
    for (int k = 0; k < tp->n; k++) {
        row_of(tp, m, k, &r);
        print_row(f, &w, &r);
    }
    char flops[32], bytes[32];
    tape_count_text((double)tot.flops, flops, sizeof flops);
    tape_bytes_text((double)tot.saved_bytes, bytes, sizeof bytes);
    fprintf(f, "\ntotal: %d ops; forward %llu FLOPs (%s; the backward about twice that)\n", tot.ops,
            (unsigned long long)tot.flops, flops);
    fprintf(f, "saved for the backward: %zu bytes (%s; an activation several ops read counted once)\n", tot.saved_bytes,
            bytes);
    fprintf(f, "parameters: %zu values in %d tensors read by the tape (the model has %zu in %d)\n", tot.param_values,
            tot.param_tensors, m->n_values, m->n_params);
    return fflush(f) == 0 && !ferror(f);
}
