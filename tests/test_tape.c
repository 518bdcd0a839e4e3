/* test_tape.c - the tape of one training step made visible (./train --print-tape, --tape-dot):
 * its totals against the formulas of the architecture, one table row per entry, a backward
 * that replays exactly those entries, and a DOT graph that a reader can trust. */
#include "test.h"

#include "../model/attn_spec.h"
#include "../tensor/rng.h"
#include "../model/gpt.h"
#include "../model/optim.h"
#include "../model/train_step.h"
#include "../run/tape_dot.h"
#include "../run/tape_print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { B = 3, T = 6, V = 9, MAX_ENTRIES = 1024 };

/* A model, its optimizer and tape, and a batch of random tokens. */
typedef struct Rig {
    Gpt model;
    Optimizer opt;
    bool decay[GPT_MAX_PARAMS];
    Arena acts;
    Tape tape;
    Trainer trainer;
    int tokens[B * T], targets[B * T];
} Rig;

static void rig_open(Rig *g, const GptConfig *base)
{
    GptConfig cfg = *base;
    cfg.vocab = V;
    cfg.context = T;
    gpt_create(&g->model, &cfg);
    gpt_init(&g->model, 3);
    gpt_decay_flags(&g->model, g->decay);
    OptimConfig oc = {.kind = name_find(optim_name, "sgd"), .lr = 0.1, .min_lr = 0.1, .steps = 10};
    optim_init(&g->opt, &oc, g->model.params, g->decay, g->model.n_params);
    arena_init(&g->acts, 1 << 16);
    tape_init(&g->tape, &g->acts);
    g->trainer = (Trainer){.model = &g->model, .opt = &g->opt, .tape = &g->tape, .seed = 7};
    Rng r = rng_stream(11, 0);
    for (int i = 0; i < B * T; i++) {
        g->tokens[i] = (int)(rng_uniform(&r) * V);
        g->targets[i] = (int)(rng_uniform(&r) * V);
    }
}

static void rig_close(Rig *g)
{
    tape_free(&g->tape);
    arena_free(&g->acts);
    optim_free(&g->opt);
    gpt_free(&g->model);
}

/* What the hooks of one step saw. */
typedef struct Seen {
    Rig *rig;
    TapeTotals totals;
    int entries;
    BackwardFn original[MAX_ENTRIES];
    int visits[MAX_ENTRIES];  /* the entries whose backward ran, in the order they ran */
    int n_visits;
    int unlabelled;           /* entries without a scope label */
    const char *scopes[MAX_ENTRIES];
    const char *what;         /* when set, before_update also writes the table and the graph and checks them */
} Seen;

static Seen *g_seen;

static void check_written(const Seen *s, const Tape *tp, int step);

/* Every backward goes through here: noted, then run. */
static void noting_backward(Tape *tp, TapeEntry *e)
{
    int k = (int)(e - tp->entries);
    if (g_seen->n_visits < MAX_ENTRIES) g_seen->visits[g_seen->n_visits++] = k;
    g_seen->original[k](tp, e);
}

/* After the forward pass, before the backward: every entry's backward is wrapped. */
static bool wrap_backwards(void *ctx, int step, Tensor *loss)
{
    (void)step, (void)loss;
    Seen *s = ctx;
    Tape *tp = s->rig->trainer.tape;
    CHECK(tp->n <= MAX_ENTRIES, "%d entries", tp->n);
    for (int k = 0; k < tp->n && k < MAX_ENTRIES; k++) {
        s->original[k] = tp->entries[k].backward;
        tp->entries[k].backward = noting_backward;
    }
    return true;
}

/* Before the update, with the tape still valid: what ./train --print-tape and --tape-dot see. */
static void look(void *ctx, int step, const StepResult *res, Tensor *logits, Tensor *loss)
{
    (void)res, (void)logits, (void)loss;
    Seen *s = ctx;
    Tape *tp = s->rig->trainer.tape;
    s->totals = tape_totals(tp, &s->rig->model);
    s->entries = tp->n;
    for (int k = 0; k < tp->n && k < MAX_ENTRIES; k++) {
        s->scopes[k] = tp->entries[k].scope;
        s->unlabelled += tp->entries[k].scope == NULL;
    }
    if (s->what) check_written(s, tp, step);
}

/* One training step of rig g, seen by the hooks. */
static void step_seen(Rig *g, Seen *s)
{
    memset(s, 0, sizeof *s);
    s->rig = g;
    g_seen = s;
    StepHooks hooks = {.ctx = s, .after_forward = wrap_backwards, .before_update = look};
    StepBatch b = {g->tokens, g->targets, NULL, B, T};
    train_step(&g->trainer, &b, 0, &hooks);
}

/* The parameters of the architecture in gpt.h: embeddings, per layer LN1, q k v, o, LN2 and the
 * MLP (hidden 4C), the final LN and the head, written out from the formula. */
static size_t parameter_formula(const GptConfig *c)
{
    size_t C = (size_t)c->dmodel, HD = (size_t)c->heads * c->dk, F = 4 * C, L = (size_t)c->layers;
    size_t layer = 2 * C + 3 * (C * HD + HD) + (HD * C + C) + 2 * C + (C * F + F) + (F * C + C);
    return (size_t)V * C + (size_t)T * C + L * layer + 2 * C + C * V;
}

/* The forward FLOPs of one step of dot attention with a fixed scale s != 1, no dropout, by the
 * convention of tensor.h, op by op: N = B T rows, a causal softmax over T (T + 1) / 2 entries
 * per (batch, head). */
static uint64_t flop_formula(const GptConfig *c)
{
    uint64_t N = B * T, C = (uint64_t)c->dmodel, H = (uint64_t)c->heads, dk = (uint64_t)c->dk, HD = H * dk, F = 4 * C;
    uint64_t layernorm = 8 * N * C + 5 * N;
    uint64_t layer = layernorm                                    /* LN1 */
                     + 3 * (2 * N * C * HD + N * HD)              /* q, k, v = a W + b */
                     + 2 * B * H * T * T * dk                     /* q k^T */
                     + 6 * B * H * (uint64_t)(T * (T + 1) / 2)    /* softmax(s S), causal */
                     + 2 * B * H * T * T * dk                     /* P v */
                     + 2 * N * HD * C + N * C                     /* o Wo + bo */
                     + N * C                                      /* residual */
                     + layernorm                                  /* LN2 */
                     + 2 * N * C * F + N * F + 9 * N * F          /* GELU(h W1 + b1) */
                     + 2 * N * F * C + N * C                      /* W2 + b2 */
                     + N * C;                                     /* residual */
    return N * C                                          /* wte[tok] + wpe[pos] */
           + (uint64_t)c->layers * layer + layernorm      /* the blocks, LNf */
           + 2 * N * C * V                                /* the head */
           + 4 * N * V + 3 * N;                           /* cross-entropy */
}

/* The bytes the backward reads, by hand: per layer the LN1 input and output, q, k, v and the
 * merged heads o (each B T H dk), P, the LN2 input and output, the MLP's hidden layer before and
 * after GELU, two rows of LayerNorm statistics per row; then LNf's input, output and statistics,
 * the logits with lse and the target per row, and the two copies of the token and position ids. */
static size_t saved_formula(const GptConfig *c)
{
    size_t N = B * T, C = (size_t)c->dmodel, HD = (size_t)c->heads * c->dk, F = 4 * C;
    size_t layer = 4 * N * C + 4 * N * HD + (size_t)B * c->heads * T * T + 2 * N * F + 2 * 2 * N;
    size_t reals = (size_t)c->layers * layer + 2 * N * C + 2 * N + N * V + N;
    return reals * sizeof(real) + 3 * N * sizeof(int);
}

static const GptConfig g_dot = {.layers = 2, .dmodel = 16, .heads = 2, .dk = 8, .scale_mode = SCALE_SQRT, .init_gain = 1};

static void test_totals_match_the_formulas(void)
{
    for (int layers = 1; layers <= 2; layers++) {
        GptConfig c = g_dot;
        c.layers = layers;
        Rig g;
        rig_open(&g, &c);
        Seen s;
        step_seen(&g, &s);
        int ops = 6 + 14 * layers; /* 2 embeddings + add, 14 per block, LNf, head, loss */
        CHECK(s.totals.ops == ops && s.entries == ops, "%d layers: %d ops, want %d", layers, s.totals.ops, ops);
        CHECK(s.totals.flops == flop_formula(&c), "%d layers: %llu FLOPs, the formula says %llu", layers,
              (unsigned long long)s.totals.flops, (unsigned long long)flop_formula(&c));
        CHECK(s.totals.param_values == parameter_formula(&c) && s.totals.param_tensors == g.model.n_params,
              "%d layers: the tape reads %zu parameter values in %d tensors; the formula says %zu in %d", layers,
              s.totals.param_values, s.totals.param_tensors, parameter_formula(&c), g.model.n_params);
        CHECK(s.totals.saved_bytes == saved_formula(&c), "%d layers: %zu bytes saved, the formula says %zu", layers,
              s.totals.saved_bytes, saved_formula(&c));
        rig_close(&g);
    }
}

static void test_backward_replays_every_entry_in_reverse(void)
{
    Rig g;
    rig_open(&g, &g_dot);
    Seen s;
    step_seen(&g, &s);
    bool reverse = s.n_visits == s.entries;
    for (int i = 0; i < s.n_visits && reverse; i++) reverse = s.visits[i] == s.entries - 1 - i;
    CHECK(s.entries > 0 && reverse, "%d entries recorded, %d backwards ran (first %d, last %d); want each once, last to first",
          s.entries, s.n_visits, s.n_visits ? s.visits[0] : -1, s.n_visits ? s.visits[s.n_visits - 1] : -1);
    rig_close(&g);
}

/* The whole text of a file (NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = mem_alloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    return s;
}

/* The table: one row per entry, numbered in order, naming the entry's op and scope; the totals
 * line says the tape's FLOPs and parameters. */
static void check_table(const char *text, const Tape *tp, const Seen *s, const char *what)
{
    int rows = 0;
    bool in_order = true;
    char *copy = mem_alloc(strlen(text) + 1);
    strcpy(copy, text);
    for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
        char *end;
        long k = strtol(line, &end, 10);
        if (end == line || *end != ' ') continue; /* not a row */
        char op[64] = "";
        sscanf(end, "%63s", op);
        bool ok = k == rows && k < tp->n && !strncmp(op, tp->entries[k].op, strlen(op)) &&
                  strstr(line, tp->entries[k].scope ? tp->entries[k].scope : " - ");
        if (!ok && in_order) CHECK(false, "%s: row %d reads \"%s\"", what, rows, line);
        in_order &= ok;
        rows++;
    }
    mem_free(copy);
    CHECK(rows == tp->n, "%s: %d rows for %d entries", what, rows, tp->n);
    char want[128];
    snprintf(want, sizeof want, "forward %llu FLOPs", (unsigned long long)s->totals.flops);
    CHECK(strstr(text, want) != NULL, "%s: no \"%s\" in the totals", what, want);
    snprintf(want, sizeof want, "parameters: %zu values in %d tensors", s->totals.param_values, s->totals.param_tensors);
    CHECK(strstr(text, want) != NULL, "%s: no \"%s\" in the totals", what, want);
}

/* Whether the text of a DOT node statement `id [` appears. */
static bool declared(const char *dot, const char *id)
{
    char want[40];
    snprintf(want, sizeof want, "    %s [", id);
    for (const char *p = strstr(dot, want); p; p = strstr(p + 1, want))
        if (p == dot || p[-1] == '\n' || p[-1] == ' ') return true;
    return false;
}

/* The graph: braces balance outside strings, every edge joins declared nodes, one op node per
 * entry, and every parameter a node of its name filled with the parameter colour. */
static void check_dot(const char *dot, const Tape *tp, const Gpt *m, const char *what)
{
    int depth = 0, min_depth = 0;
    bool in_string = false;
    for (const char *p = dot; *p; p++) {
        if (*p == '\\' && in_string && p[1]) p++;
        else if (*p == '"') in_string = !in_string;
        else if (!in_string && *p == '{') depth++;
        else if (!in_string && *p == '}' && --depth < min_depth) min_depth = depth;
    }
    CHECK(!strncmp(dot, "//", 2) && strstr(dot, "digraph tape {") && depth == 0 && min_depth == 0 && !in_string,
          "%s: braces %d (lowest %d), an open string: %d", what, depth, min_depth, in_string);
    int edges = 0, bad = 0;
    for (const char *p = strstr(dot, " -> "); p; p = strstr(p + 4, " -> ")) {
        const char *a = p;
        while (a > dot && a[-1] != ' ') a--;
        char from[32] = "", to[32] = "";
        snprintf(from, sizeof from, "%.*s", (int)(p - a), a);
        sscanf(p + 4, "%31[a-z0-9]", to);
        if (!declared(dot, from) || !declared(dot, to)) {
            if (!bad) CHECK(false, "%s: the edge %s -> %s joins an undeclared node", what, from, to);
            bad++;
        }
        edges++;
    }
    int want_edges = 0;
    for (int k = 0; k < tp->n; k++) {
        char id[16];
        snprintf(id, sizeof id, "op%d", k);
        CHECK(declared(dot, id), "%s: no node for entry %d", what, k);
        want_edges += 1 + (tp->entries[k].in[0] != NULL) + (tp->entries[k].in[1] != NULL) + (tp->entries[k].in[2] != NULL);
    }
    CHECK(edges >= want_edges && bad == 0, "%s: %d edges, want at least %d (inputs and outputs)", what, edges, want_edges);
    for (int i = 0; i < m->n_params; i++) {
        char want[128];
        snprintf(want, sizeof want, "label=\"%s\\n", m->params[i]->name);
        const char *node = strstr(dot, want);
        const char *eol = node ? strchr(node, '\n') : NULL;
        const char *fill = node ? strstr(node, "fillcolor=\"" TAPE_DOT_PARAM_COLOR "\"") : NULL;
        CHECK(node && eol && fill && fill < eol, "%s: parameter %s is %s", what, m->params[i]->name,
              node ? "not filled with the parameter colour" : "not in the graph");
    }
}

/* The table and the graph of the step seen by s, written to files and read back. */
static void check_written(const Seen *s, const Tape *tp, int step)
{
    char table_path[4096], dot_path[4096];
    snprintf(table_path, sizeof table_path, "%s", test_path("tape.txt"));
    snprintf(dot_path, sizeof dot_path, "%s", test_path("tape.dot"));
    FILE *f = fopen(table_path, "w"), *d = fopen(dot_path, "w");
    bool written = f && d && tape_print(f, tp, &s->rig->model, step, B, T) && tape_dot_print(d, tp, &s->rig->model);
    if (f) fclose(f);
    if (d) fclose(d);
    CHECK(written, "%s: the table or the graph was not written", s->what);
    char *text = slurp(table_path), *dot = slurp(dot_path);
    CHECK(text && dot, "%s: cannot read back %s or %s", s->what, table_path, dot_path);
    if (text) check_table(text, tp, s, s->what);
    if (dot) check_dot(dot, tp, &s->rig->model, s->what);
    mem_free(text);
    mem_free(dot);
}

/* Every kind of attention, reduced precision, dropout, a learned (log) scale: the table has a
 * row per entry and the graph is sound; every parameter is read by the tape. */
static void test_table_and_graph_of_every_variant(void)
{
    GptConfig variants[6];
    for (int i = 0; i < 6; i++) variants[i] = g_dot;
    variants[1].attn = name_find(attn_kind_name, "qknorm");
    variants[2].attn = name_find(attn_kind_name, "cosine"), variants[2].tau_init = 10, variants[2].scale_param = SCALE_PARAM_LOG;
    variants[3].attn = name_find(attn_kind_name, "additive");
    variants[4].scale_mode = SCALE_LEARNED, variants[4].scale_init = SCALE_SQRT, variants[4].precision = FORMAT_FP16;
    variants[5].dropout = 0.1, variants[5].attn_dropout = 0.1, variants[5].precision = FORMAT_BF16;
    static const char *const names[6] = {"dot", "qknorm", "cosine (log tau)", "additive", "learned scale, fp16",
                                          "dropout, bf16"};
    for (int v = 0; v < 6; v++) {
        Rig g;
        rig_open(&g, &variants[v]);
        Seen s;
        memset(&s, 0, sizeof s);
        s.rig = &g;
        s.what = names[v];
        g_seen = &s;
        StepHooks hooks = {.ctx = &s, .before_update = look};
        StepBatch b = {g.tokens, g.targets, NULL, B, T};
        train_step(&g.trainer, &b, 0, &hooks);
        CHECK(s.entries > 0 && s.totals.param_values == g.model.n_values && s.totals.param_tensors == g.model.n_params,
              "%s: the tape reads %zu of %zu parameter values", names[v], s.totals.param_values, g.model.n_values);
        rig_close(&g);
    }
}

/* The labels: every entry of a step has one, the model's part (not the op's name). */
static void test_every_entry_is_labelled(void)
{
    Rig g;
    rig_open(&g, &g_dot);
    Seen s;
    step_seen(&g, &s);
    int n = s.entries;
    CHECK(n > 3 && s.unlabelled == 0, "%d of %d entries of the step have no label", s.unlabelled, n);
    CHECK(n > 3 && s.scopes[3] && !strcmp(s.scopes[3], "layer 0 layernorm 1") && s.scopes[n - 2] &&
              !strcmp(s.scopes[n - 2], "logits") && s.scopes[n - 1] && !strcmp(s.scopes[n - 1], "loss"),
          "entry 3 is labelled \"%s\", the head \"%s\", the loss \"%s\"", n > 3 && s.scopes[3] ? s.scopes[3] : "-",
          n > 3 && s.scopes[n - 2] ? s.scopes[n - 2] : "-", n > 3 && s.scopes[n - 1] ? s.scopes[n - 1] : "-");
    rig_close(&g);
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"tape: ops, FLOPs, parameters and saved bytes equal the architecture's formulas", test_totals_match_the_formulas},
        {"tape: the backward runs every recorded entry once, last to first", test_backward_replays_every_entry_in_reverse},
        {"tape: a table row per entry and a sound graph, for every attention variant", test_table_and_graph_of_every_variant},
        {"tape: every entry of the step carries its model part's label", test_every_entry_is_labelled},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
