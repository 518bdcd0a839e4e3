/* tape_dot.c - see tape_dot.h. */
#define _POSIX_C_SOURCE 200809L /* fsync, fileno, getpid */

#include "tape_dot.h"

#include "tape_print.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

/* A tensor node: parameters "p<i>" (m->params[i]), the output of entry k "t<k>", reshape views
 * "v<n>" and any other leaf "x<n>". cluster: the scope run its node is drawn in (-1: none). */
typedef enum NodeKind { NODE_PARAM, NODE_OUTPUT, NODE_VIEW, NODE_LEAF } NodeKind;

typedef struct Node {
    const Tensor *t;
    NodeKind kind;
    int number;
    int cluster;
} Node;

typedef struct Graph {
    const Tape *tp;
    const Gpt *m;
    Node *nodes;
    int n, cap;
    int *cluster_of; /* per entry: its scope run (consecutive entries with one label), or -1 */
    bool *saved;     /* per entry: its output is read by some backward */
    int views, leaves;
} Graph;

static int find_node(const Graph *g, const Tensor *t)
{
    for (int i = 0; i < g->n; i++)
        if (g->nodes[i].t == t) return i;
    return -1;
}

static int add_node(Graph *g, const Tensor *t, NodeKind kind, int number, int cluster)
{
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 64;
        g->nodes = mem_grow(g->nodes, (size_t)g->n * sizeof(Node), (size_t)cap * sizeof(Node));
        g->cap = cap;
    }
    g->nodes[g->n] = (Node){t, kind, number, cluster};
    return g->n++;
}

/* The node of an op's input: found, or added (a view after the node of what it shows). */
static int input_node(Graph *g, const Tensor *t)
{
    int i = find_node(g, t);
    if (i >= 0) return i;
    if (t->view_of) {
        int src = input_node(g, t->view_of);
        return add_node(g, t, NODE_VIEW, g->views++, g->nodes[src].cluster);
    }
    int p = tape_param_of(g->m, t);
    return p >= 0 ? add_node(g, t, NODE_PARAM, p, -1) : add_node(g, t, NODE_LEAF, g->leaves++, -1);
}

static void node_id(const Node *nd, char *buf, size_t len)
{
    static const char prefix[] = {'p', 't', 'v', 'x'};
    snprintf(buf, len, "%c%d", prefix[nd->kind], nd->number);
}

/* s in a DOT string: quotes and backslashes escaped. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
}

static void print_tensor_node(FILE *f, const Graph *g, const Node *nd)
{
    char id[16], shape[64];
    node_id(nd, id, sizeof id);
    tape_shape_text(nd->t, shape, sizeof shape);
    fprintf(f, "    %s [shape=box, label=\"", id);
    if (nd->kind == NODE_PARAM) {
        put_escaped(f, g->m->params[nd->number]->name);
        fprintf(f, "\\n%s\", style=\"filled\", fillcolor=\"%s\"];\n", shape, TAPE_DOT_PARAM_COLOR);
    } else if (nd->kind == NODE_OUTPUT && g->saved[nd->number]) {
        fprintf(f, "%s\", style=\"filled\", fillcolor=\"%s\"];\n", shape, TAPE_DOT_SAVED_COLOR);
    } else {
        fprintf(f, "%s\"%s];\n", shape, nd->kind == NODE_VIEW ? ", style=dashed" : "");
    }
}

static void print_op_node(FILE *f, const Graph *g, int k)
{
    const TapeEntry *e = &g->tp->entries[k];
    char flops[32];
    tape_count_text((double)e->flops, flops, sizeof flops);
    fprintf(f, "    op%d [shape=ellipse, label=\"%d: ", k, k);
    put_escaped(f, e->op);
    fprintf(f, "\\n%s FLOPs\"];\n", flops);
}

/* Every node of the graph, and per entry its scope run and whether a backward reads its output. */
static void collect(Graph *g)
{
    const Tape *tp = g->tp;
    int run = -1;
    for (int k = 0; k < tp->n; k++) {
        const TapeEntry *e = &tp->entries[k];
        const char *prev = k ? tp->entries[k - 1].scope : NULL;
        if (e->scope && (!prev || strcmp(prev, e->scope) != 0)) run++;
        g->cluster_of[k] = e->scope ? run : -1;
        for (int j = 0; j < 3; j++)
            if (e->in[j]) input_node(g, e->in[j]);
        add_node(g, e->out, NODE_OUTPUT, k, g->cluster_of[k]);
        for (int j = 0; j < 4; j++) {
            const Tensor *t = j < 3 ? e->in[j] : e->out;
            int p = t && ((e->reads >> j) & 1) ? tape_producer(tp, t) : -1;
            if (p >= 0) g->saved[p] = true;
        }
    }
}

bool tape_dot_print(FILE *f, const Tape *tp, const Gpt *m)
{
    Graph g = {.tp = tp, .m = m};
    g.cluster_of = mem_alloc(((size_t)tp->n + 1) * sizeof(int));
    g.saved = mem_alloc((size_t)tp->n + 1);
    collect(&g);

    fprintf(f, "// The tape of one training step of ./train (--tape-dot): ops (ellipses, numbered in the order\n"
               "// recorded; the backward pass replays them in reverse) and tensors (boxes: gold = parameter,\n"
               "// blue = read by a backward, dashed = a reshape view). Render: dot -Tsvg FILE > FILE.svg\n");
    fprintf(f, "digraph tape {\n"
               "    graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, nodesep=0.15, ranksep=0.25];\n"
               "    node [fontname=\"Helvetica\", fontsize=9, height=0.3, margin=\"0.06,0.03\"];\n"
               "    edge [arrowsize=0.6];\n"
               "    legend [shape=note, fontsize=9, label=\"one training step, forward from top to bottom; the backward "
               "pass replays the ops in reverse\\nellipse: an op, numbered in the order recorded, with its forward FLOPs "
               "(the backward costs about 2x)\\nbox: a tensor and its shape; gold: a parameter; blue: read by a "
               "backward (kept until it runs);\\ndashed: a reshape view (no op); grey frames: the model part that "
               "recorded the ops\"];\n");
    /* the nodes outside any cluster: parameters and leaves, ops and outputs without a label */
    for (int i = 0; i < g.n; i++)
        if (g.nodes[i].cluster < 0 && g.nodes[i].kind != NODE_OUTPUT) print_tensor_node(f, &g, &g.nodes[i]);
    for (int k = 0; k < tp->n; k++)
        if (g.cluster_of[k] < 0) {
            print_op_node(f, &g, k);
            print_tensor_node(f, &g, &g.nodes[find_node(&g, tp->entries[k].out)]);
        }
    /* each scope run: its ops, their outputs and the views of those */
    int runs = 0;
    for (int k = 0; k < tp->n; k++) runs = g.cluster_of[k] + 1 > runs ? g.cluster_of[k] + 1 : runs;
    for (int c = 0; c < runs; c++) {
        int first = 0;
        while (g.cluster_of[first] != c) first++;
        fprintf(f, "    subgraph cluster_%d {\n        label=\"", c);
        put_escaped(f, tp->entries[first].scope);
        fprintf(f, "\"; style=rounded; color=\"#999999\";\n");
        for (int k = first; k < tp->n && g.cluster_of[k] == c; k++) {
            fprintf(f, "    ");
            print_op_node(f, &g, k);
        }
        for (int i = 0; i < g.n; i++)
            if (g.nodes[i].cluster == c) {
                fprintf(f, "    ");
                print_tensor_node(f, &g, &g.nodes[i]);
            }
        fprintf(f, "    }\n");
    }
    /* the data flow: input -> op -> output, and what a view shows -> the view */
    char from[16], to[16];
    for (int i = 0; i < g.n; i++) {
        if (g.nodes[i].kind != NODE_VIEW) continue;
        node_id(&g.nodes[find_node(&g, g.nodes[i].t->view_of)], from, sizeof from);
        node_id(&g.nodes[i], to, sizeof to);
        fprintf(f, "    %s -> %s [style=dashed, label=\"view\", fontsize=8];\n", from, to);
    }
    for (int k = 0; k < tp->n; k++) {
        const TapeEntry *e = &tp->entries[k];
        for (int j = 0; j < 3; j++) {
            if (!e->in[j]) continue;
            node_id(&g.nodes[find_node(&g, e->in[j])], from, sizeof from);
            fprintf(f, "    %s -> op%d;\n", from, k);
        }
        node_id(&g.nodes[find_node(&g, e->out)], to, sizeof to);
        fprintf(f, "    op%d -> %s;\n", k, to);
    }
    fprintf(f, "}\n");
    mem_free(g.nodes);
    mem_free(g.cluster_of);
    mem_free(g.saved);
    return fflush(f) == 0 && !ferror(f);
}

bool tape_dot_write(const char *path, const Tape *tp, const Gpt *m, char *err, size_t err_len)
{
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (n < 0 || n >= (int)sizeof tmp) return errorf(err, err_len, "--tape-dot=%s: path too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return errorf(err, err_len, "--tape-dot=%s: cannot write %s: %s", path, tmp, strerror(errno));
    bool ok = tape_dot_print(f, tp, m) && fsync(fileno(f)) == 0;
    int saved_errno = ok ? 0 : errno;
    if (fclose(f) != 0 && ok) { /* a deferred write error shows up here */
        ok = false;
        saved_errno = errno;
    }
    if (!ok) {
        remove(tmp);
        return errorf(err, err_len, "--tape-dot=%s: a write failed (%s)", path, strerror(saved_errno));
    }
    if (rename(tmp, path) != 0) {
        saved_errno = errno;
        remove(tmp);
        return errorf(err, err_len, "--tape-dot=%s: cannot rename %s to it: %s", path, tmp, strerror(saved_errno));
    }
    return true;
}
