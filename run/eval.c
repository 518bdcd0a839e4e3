/* eval.c - held-out loss and exact-match accuracy (teacher-forced, see eval.h), and greedy
 * decoding for the printed examples, for --decode (decode_sources) and as the tests' reference;
 * sampling (sampler_draw) for --decode --temperature. */
#include "eval.h"

#include "../tensor/base.h"
#include "../tensor/progress.h"

#include <assert.h>
#include <math.h>
#include <string.h>

void evaluator_init(Evaluator *e, int B, int T)
{
    batch_alloc(&e->batch, B, T);
    e->decode = mem_alloc((size_t)B * (T + 1) * sizeof(int)); /* + 1: the final EOS */
    e->length = mem_alloc((size_t)B * sizeof(int));
    e->done = mem_alloc((size_t)B);
    e->right = mem_alloc((size_t)B);
    e->want_attention = false;
    e->attended = mem_alloc((size_t)B * (T + 1) * sizeof(int));
    e->attended_weight = mem_alloc((size_t)B * (T + 1) * sizeof(real));
    e->sampler = NULL;
    e->stop_requested = NULL;
}

void evaluator_free(Evaluator *e)
{
    batch_free(&e->batch);
    mem_free(e->decode);
    mem_free(e->length);
    mem_free(e->done);
    mem_free(e->right);
    mem_free(e->attended);
    mem_free(e->attended_weight);
}

/* The source position (0-based) that row r's query at position q weighs most in P, the last
 * layer's weights [B, H, L, L], by the mean over heads (1/H) sum_h P[r, h, q, j] over the
 * source's positions j = 1 .. src_len of the row (0 is BOS); that mean in *weight. */
static int most_attended(const Tensor *P, int r, int q, int src_len, real *weight)
{
    int H = P->shape[1], L = P->shape[2], best = 0;
    double best_w = -1;
    for (int j = 1; j <= src_len; j++) {
        double w = 0;
        for (int h = 0; h < H; h++) w += P->data[(((size_t)r * H + h) * L + q) * L + j];
        w /= H;
        if (w > best_w) {
            best_w = w;
            best = j - 1;
        }
    }
    *weight = (real)best_w;
    return best;
}

/* Greedy decoding's next token: the most likely, the first of equal maxima. */
static int greedy_token(const real *z, int V)
{
    int best = 0;
    for (int v = 1; v < V; v++)
        if (z[v] > z[best]) best = v;
    return best;
}

void sampler_init(Sampler *s, int V, int first, double temperature, int top_k, uint64_t seed)
{
    assert(V >= 1 && first >= 0 && first < V && temperature > 0 && top_k >= 0);
    *s = (Sampler){.temperature = temperature, .top_k = top_k, .V = V, .first = first,
                   .rng = rng_stream(seed, RNG_STREAM_SAMPLING)};
    s->candidates = mem_alloc((size_t)V * sizeof(int));
    s->weights = mem_alloc((size_t)V * sizeof(double));
}

void sampler_free(Sampler *s)
{
    mem_free(s->candidates);
    mem_free(s->weights);
}

/* The K most likely tokens of z[0 .. V) into c[0 .. K), most likely first, ties to the lower id
 * (a partial insertion sort: a token enters when above the K-th so far). */
static void most_likely(const real *z, int V, int K, int *c)
{
    for (int v = 0, n = 0; v < V; v++) {
        if (n == K && !(z[v] > z[c[K - 1]])) continue;
        int at = n < K ? n++ : K - 1; /* full: the K-th makes room */
        for (; at > 0 && z[v] > z[c[at - 1]]; at--) c[at] = c[at - 1];
        c[at] = v;
    }
}

/* Sampling's next token:   p_i ∝ exp(z_i / T) over the K most likely tokens from id `first` on
 * (every one of them when K is 0), by the weights exp((z_i - z_max) / T) <= 1, one uniform draw u
 * in [0, their sum), and the first candidate whose running sum passes u. With K = 1 it is the
 * most likely of those ids (greedy_token's, when that is not below `first`). */
int sampler_draw(Sampler *s, const real *z)
{
    const real *zf = z + s->first; /* the ids it may draw, from 0 */
    int V = s->V - s->first, n = s->top_k > 0 && s->top_k < V ? s->top_k : V;
    int *c = s->candidates;
    if (n == V)
        for (int v = 0; v < V; v++) c[v] = v; /* every token, in id order */
    else most_likely(zf, V, n, c);
    double z_max = zf[c[0]], sum = 0;
    for (int i = 1; i < n; i++) z_max = zf[c[i]] > z_max ? zf[c[i]] : z_max;
    for (int i = 0; i < n; i++) sum += s->weights[i] = exp(((double)zf[c[i]] - z_max) / s->temperature);
    double u = rng_uniform(&s->rng) * sum, run = 0;
    for (int i = 0; i < n; i++)
        if ((run += s->weights[i]) > u) return s->first + c[i];
    return s->first + greedy_token(zf, V); /* a NaN logit: no running sum passes u */
}

/* Greedy decoding of the examples in e->batch: rows [0, rows); with a sampler, each token is
 * sampled instead, row after row. Afterwards row r of e->decode (stride T + 1) holds BOS source
 * SEP and the generated tokens; e->length[r] is its length. The model reads at most T positions,
 * and the token predicted at position T - 1 is the (T + 1)-th of the row, so a row ends at EOS or
 * at length T + 1. */
static void greedy_decode(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, int rows, Sampler *sampler)
{
    Batch *b = &e->batch;
    int B = b->B, T = b->T, V = m->cfg.vocab, stride = T + 1;
    for (int r = 0; r < B; r++) {
        const Example *ex = &b->examples[r];
        int *row = e->decode + (size_t)r * stride;
        row[0] = TOK_BOS;
        memcpy(row + 1, ex->src, (size_t)ex->src_len * sizeof(int));
        row[ex->src_len + 1] = TOK_SEP;
        e->length[r] = ex->src_len + 2;
        e->done[r] = r >= rows;
    }
    for (int k = 0; k <= d->max_tgt; k++) {
        int L = 0; /* the longest unfinished row decides the forward's length */
        for (int r = 0; r < B; r++)
            if (!e->done[r] && e->length[r] > L) L = e->length[r];
        if (L == 0) break;
        int *tokens = arena_alloc(tp->arena, (size_t)B * L * sizeof(int));
        for (int r = 0; r < B; r++)
            for (int t = 0; t < L; t++) tokens[r * L + t] = t < e->length[r] ? e->decode[(size_t)r * stride + t] : TOK_PAD;
        /* the traces are filled whether asked for or not: asking changes no number */
        AttentionTrace trace[GPT_MAX_LAYERS] = {{0}};
        Tensor *logits = gpt_forward(m, tp, tokens, B, L, e->want_attention ? trace : NULL);
        for (int r = 0; r < B; r++) {
            if (e->done[r]) continue;
            int q = e->length[r] - 1; /* the position whose logits give the next token */
            const real *z = logits->data + ((size_t)r * L + q) * V;
            int best = sampler ? sampler_draw(sampler, z) : greedy_token(z, V);
            size_t at = (size_t)r * stride + e->length[r];
            if (e->want_attention)
                e->attended[at] = most_attended(trace[m->cfg.layers - 1].weights, r, q, b->examples[r].src_len,
                                                &e->attended_weight[at]);
            e->decode[(size_t)r * stride + e->length[r]++] = best;
            if (best == TOK_EOS || e->length[r] > T) e->done[r] = 1;
        }
        tape_reset(tp);
    }
}

/* Whether row r decoded to exactly target + EOS. */
static bool exact_match(const Evaluator *e, int r)
{
    const Example *ex = &e->batch.examples[r];
    const int *gen = e->decode + (size_t)r * (e->batch.T + 1) + ex->src_len + 2;
    int n = e->length[r] - (ex->src_len + 2);
    if (n != ex->tgt_len + 1 || gen[ex->tgt_len] != TOK_EOS) return false;
    return memcmp(gen, ex->tgt, (size_t)ex->tgt_len * sizeof(int)) == 0;
}

/* Teacher forcing on the batch's rows [0, rows): the loss of each row (a sum over its target and
 * EOS positions, and how many), and whether each position's most likely token was the target. */
static void teacher_forced(const Batch *b, const Tensor *logits, int V, int rows, double *loss_sum, double *loss_count,
                           int *nonfinite, unsigned char *right)
{
    for (int r = 0; r < rows; r++) {
        double ex_sum = 0;
        int ex_count = 0;
        bool all_right = true;
        for (int t = 0; t < b->T; t++) {
            size_t i = (size_t)r * b->T + t;
            if (!b->loss_mask[i]) continue;
            const real *z = logits->data + i * V;
            double mx = z[0], s = 0;
            int best = 0;
            for (int v = 1; v < V; v++) {
                mx = z[v] > mx ? z[v] : mx;
                if (z[v] > z[best]) best = v; /* the first of equal maxima, as greedy decoding takes */
            }
            for (int v = 0; v < V; v++) s += exp(z[v] - mx);
            ex_sum += mx + log(s) - z[b->targets[i]];
            ex_count++;
            all_right &= best == b->targets[i];
        }
        *nonfinite += !isfinite(ex_sum); /* kept in the sum: the loss is then NaN, as it should */
        *loss_sum += ex_sum;
        *loss_count += ex_count;
        right[r] = all_right;
    }
}

/* The two ways of evaluating differ only in how a row's accuracy is found. */
static EvalResult evaluate_split(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, Split split, int max_examples,
                                 unsigned char *correct, bool decode)
{
    EvalResult res = {0};
    bool grad = tp->grad_enabled, training = tp->training;
    tp->grad_enabled = false;
    tp->training = false;
    tape_reset(tp);
    const ExampleList *l = dataset_split(d, split);
    int total = max_examples < l->n ? max_examples : l->n;
    double loss_sum = 0, loss_count = 0;
    Batch *b = &e->batch;
    unsigned char *right = e->right;
    Progress progress; /* a test set of a million examples takes a minute: say so */
    progress_start(&progress, split == SPLIT_TEST ? "test set, examples evaluated" : "validation set, examples evaluated",
                   total);
    int first;
    for (first = 0; first < total; first += b->B) {
        if (e->stop_requested && e->stop_requested()) break;
        progress_update(&progress, first);
        int rows = dataset_eval_batch(d, split, first, b);
        if (rows > total - first) rows = total - first;
        /* teacher-forced loss, position by position, so each example weighs by its length */
        AttentionTrace trace[GPT_MAX_LAYERS] = {{0}};
        Tensor *logits = gpt_forward(m, tp, b->tokens, b->B, b->T, trace);
        for (int l = 0; l < m->cfg.layers; l++) { /* a reduced precision's overflows, here too */
            res.rounding.overflow += trace[l].rounding.overflow;
            res.rounding.underflow += trace[l].rounding.underflow;
            res.rounding.nan += trace[l].rounding.nan;
        }
        teacher_forced(b, logits, m->cfg.vocab, rows, &loss_sum, &loss_count, &res.nonfinite, right);
        tape_reset(tp);
        if (decode) {
            greedy_decode(e, m, tp, d, rows, NULL);
            for (int r = 0; r < rows; r++) right[r] = exact_match(e, r);
        }
        for (int r = 0; r < rows; r++) {
            res.correct += right[r];
            if (correct) correct[first + r] = right[r];
        }
    }
    res.examples = first < total ? first : total; /* fewer when stopped early */
    res.loss = loss_count > 0 ? loss_sum / loss_count : NAN;
    res.accuracy = res.examples > 0 ? (double)res.correct / res.examples : 0;
    tp->grad_enabled = grad;
    tp->training = training;
    return res;
}

EvalResult evaluate(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, Split split, int max_examples,
                    unsigned char *correct)
{
    return evaluate_split(e, m, tp, d, split, max_examples, correct, false);
}

EvalResult evaluate_by_decoding(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, Split split, int max_examples,
                                unsigned char *correct)
{
    return evaluate_split(e, m, tp, d, split, max_examples, correct, true);
}

void print_examples(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, int n, FILE *out)
{
    if (n > d->val.n) n = d->val.n;
    if (n > e->batch.B) n = e->batch.B;
    if (n <= 0) return;
    bool grad = tp->grad_enabled, training = tp->training;
    tp->grad_enabled = false;
    tp->training = false;
    tape_reset(tp);
    dataset_eval_batch(d, SPLIT_VAL, 0, &e->batch);
    greedy_decode(e, m, tp, d, n, NULL); /* training's examples: always greedy */
    char src[1024], want[1024], got[1024];
    for (int r = 0; r < n; r++) {
        const Example *ex = &e->batch.examples[r];
        vocab_format(&d->vocab, ex->src, ex->src_len, src, sizeof src);
        vocab_format(&d->vocab, ex->tgt, ex->tgt_len, want, sizeof want);
        Decoding g = decoded_row(e, r);
        vocab_format(&d->vocab, g.tokens, g.n - g.ended, got, sizeof got); /* EOS is implied */
        fprintf(out, "  %-7s source: %s\n          expected: %s\n          decoded:  %s\n",
                exact_match(e, r) ? "[ok]" : "[wrong]", src, want, got);
    }
    tp->grad_enabled = grad;
    tp->training = training;
}

void decode_sources(Evaluator *e, Gpt *m, Tape *tp, const Dataset *d, const Example *sources, int n)
{
    Batch *b = &e->batch;
    assert(n >= 1 && n <= b->B);
    for (int r = 0; r < b->B; r++) {
        b->examples[r] = sources[r < n ? r : n - 1]; /* rows past n are decoded as finished */
        assert(b->examples[r].src_len >= 0 && b->examples[r].src_len + 2 <= b->T);
    }
    bool grad = tp->grad_enabled, training = tp->training;
    tp->grad_enabled = false;
    tp->training = false;
    tape_reset(tp);
    greedy_decode(e, m, tp, d, n, e->sampler);
    tp->grad_enabled = grad;
    tp->training = training;
}

Decoding decoded_row(const Evaluator *e, int r)
{
    size_t start = (size_t)r * (e->batch.T + 1) + e->batch.examples[r].src_len + 2;
    int n = e->length[r] - (e->batch.examples[r].src_len + 2);
    const int *tokens = e->decode + start;
    return (Decoding){.tokens = tokens,
                      .n = n,
                      .ended = n > 0 && tokens[n - 1] == TOK_EOS,
                      .attended = e->want_attention ? e->attended + start : NULL,
                      .attended_weight = e->want_attention ? e->attended_weight + start : NULL};
}
