/* test_eval.c - held-out evaluation: the teacher-forced exact match is greedy decoding's, and
 * the test split is held out like the validation split; --decode's sampling. */
#include "test.h"

#include "../run/eval.h"
#include "../model/train_step.h"

#include <math.h>
#include <string.h>

/* A copy-task dataset, a small model, and the machinery to train and evaluate it. */
typedef struct Rig {
    Dataset d;
    Gpt m;
    Optimizer opt;
    bool decay[GPT_MAX_PARAMS];
    Arena acts;
    Tape tp;
    Evaluator ev;
    Batch batch;
    Trainer trainer;
} Rig;

static void rig_open(Rig *g, int task, int test_size, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    DataConfig dc = {.task = task, .symbols = 5, .min_len = 2, .max_len = 5, .val_size = 96, .test_size = test_size,
                     .context = 64, .seed = seed};
    char err[256];
    CHECK(dataset_open(&g->d, &dc, err, sizeof err), "dataset: %s", err);
    int T = dataset_max_input(&g->d);
    GptConfig gc = {.vocab = g->d.vocab.size, .context = T, .layers = 2, .dmodel = 32, .heads = 2, .dk = 16,
                    .scale_mode = SCALE_SQRT, .init_gain = 1};
    gpt_create(&g->m, &gc);
    gpt_init(&g->m, seed);
    OptimConfig oc = {.kind = name_find(optim_name, "adamw"), .lr = 3e-3, .min_lr = 3e-4, .warmup = 10, .steps = 400, .beta1 = 0.9,
                      .beta2 = 0.98, .eps = 1e-8};
    gpt_decay_flags(&g->m, g->decay);
    optim_init(&g->opt, &oc, g->m.params, g->decay, g->m.n_params);
    arena_init(&g->acts, 1 << 20);
    tape_init(&g->tp, &g->acts);
    evaluator_init(&g->ev, 16, T);
    batch_alloc(&g->batch, 16, T);
    g->trainer = (Trainer){.model = &g->m, .opt = &g->opt, .tape = &g->tp, .seed = seed, .clip = 1};
}

static void rig_train(Rig *g, int from, int to)
{
    for (int step = from; step < to; step++) {
        dataset_train_batch(&g->d, step, &g->batch);
        StepBatch b = {g->batch.tokens, g->batch.targets, g->batch.loss_mask, g->batch.B, g->batch.T};
        train_step(&g->trainer, &b, step, NULL);
    }
}

static void rig_close(Rig *g)
{
    batch_free(&g->batch);
    evaluator_free(&g->ev);
    tape_free(&g->tp);
    arena_free(&g->acts);
    optim_free(&g->opt);
    gpt_free(&g->m);
    dataset_free(&g->d);
}

/* At several points of training (accuracy from 0 to high), on two tasks: the same examples are
 * right by teacher forcing as by greedy decoding, and the losses are the same numbers. */
static void test_teacher_forced_exact_match_is_greedy_decoding(void)
{
    int tasks[2] = {name_find(task_name, "copy"), name_find(task_name, "reverse")};
    for (int k = 0; k < 2; k++) {
        Rig g;
        rig_open(&g, tasks[k], 0, 3 + (uint64_t)k);
        int checkpoints[4] = {0, 50, 150, 300}, seen_between = 0;
        for (int c = 0; c < 4; c++) {
            if (c > 0) rig_train(&g, checkpoints[c - 1], checkpoints[c]);
            unsigned char fast[96], slow[96];
            EvalResult a = evaluate(&g.ev, &g.m, &g.tp, &g.d, SPLIT_VAL, 96, fast);
            EvalResult b = evaluate_by_decoding(&g.ev, &g.m, &g.tp, &g.d, SPLIT_VAL, 96, slow);
            CHECK(memcmp(fast, slow, sizeof fast) == 0 && a.correct == b.correct && a.loss == b.loss,
                  "task %d after %d steps: teacher-forced %d right, greedy decoding %d right (loss %.9g vs %.9g)", k,
                  checkpoints[c], a.correct, b.correct, a.loss, b.loss);
            seen_between += a.correct > 0 && a.correct < 96;
        }
        CHECK(seen_between > 0, "task %d: no point of training had an accuracy strictly between 0 and 1", k);
        rig_close(&g);
    }
}

/* decode_sources, the decoder --decode uses: one source at a time gives the tokens of the batched
 * greedy decoding, right exactly where evaluate_by_decoding says; with want_attention, the source
 * position each token's query weighs most (mean over heads, last layer) is the one a single
 * forward pass of the whole decoded row gives (causal: the same weights, to the bit). */
static void test_decode_sources(void)
{
    Rig g;
    rig_open(&g, name_find(task_name, "reverse"), 0, 5);
    rig_train(&g, 0, 150);
    int T = g.ev.batch.T, n = 48;
    unsigned char slow[48];
    evaluate_by_decoding(&g.ev, &g.m, &g.tp, &g.d, SPLIT_VAL, n, slow);
    Evaluator one;
    evaluator_init(&one, 1, T);
    one.want_attention = true;
    int differ = 0, wrong = 0, right = 0, attention_off = 0, tokens_seen = 0;
    for (int first = 0; first < n; first += 16) {
        Example src[16];
        for (int r = 0; r < 16; r++) src[r] = example_list_get(&g.d.val, first + r);
        decode_sources(&g.ev, &g.m, &g.tp, &g.d, src, 16);
        for (int r = 0; r < 16; r++) {
            Decoding batched = decoded_row(&g.ev, r);
            int want[64], want_n = batched.n;
            memcpy(want, batched.tokens, (size_t)want_n * sizeof(int));
            decode_sources(&one, &g.m, &g.tp, &g.d, &src[r], 1);
            Decoding d = decoded_row(&one, 0);
            differ += d.n != want_n || memcmp(d.tokens, want, (size_t)want_n * sizeof(int)) != 0;
            bool exact = d.ended && d.n == src[r].tgt_len + 1 && !memcmp(d.tokens, src[r].tgt, (size_t)src[r].tgt_len * sizeof(int));
            wrong += exact != (bool)slow[first + r];
            right += exact;
            /* the decoded row, BOS source SEP generated, in one forward pass: token i was
             * predicted at position src_len + 1 + i */
            int row[64], L = src[r].src_len + 1 + d.n;
            row[0] = TOK_BOS;
            memcpy(row + 1, src[r].src, (size_t)src[r].src_len * sizeof(int));
            row[src[r].src_len + 1] = TOK_SEP;
            memcpy(row + src[r].src_len + 2, d.tokens, (size_t)(d.n - 1) * sizeof(int));
            AttentionTrace trace[GPT_MAX_LAYERS] = {{0}};
            g.tp.grad_enabled = false;
            gpt_forward(&g.m, &g.tp, row, 1, L, trace);
            const Tensor *P = trace[g.m.cfg.layers - 1].weights;
            int H = g.m.cfg.heads;
            for (int i = 0; i < d.n; i++, tokens_seen++) {
                int q = src[r].src_len + 1 + i, best = 0;
                double best_w = -1;
                for (int j = 0; j < src[r].src_len; j++) {
                    double w = 0;
                    for (int h = 0; h < H; h++) w += P->data[((size_t)h * L + q) * L + 1 + j];
                    if (w / H > best_w) {
                        best_w = w / H;
                        best = j;
                    }
                }
                attention_off += d.attended[i] != best || fabs(d.attended_weight[i] - best_w) > 1e-6;
            }
            tape_reset(&g.tp);
            g.tp.grad_enabled = true;
        }
    }
    CHECK(differ == 0, "%d of %d sources decoded alone differ from their batched decoding", differ, n);
    CHECK(wrong == 0 && right > 0, "%d sources right or wrong unlike evaluate_by_decoding (%d right)", wrong, right);
    CHECK(tokens_seen > n && attention_off == 0, "%d of %d tokens: the most attended source position differs", attention_off,
          tokens_seen);
    evaluator_free(&one);
    rig_close(&g);
}

/* A test split: its sources are neither validation nor training sources; asking for it leaves
 * the validation set as it was. */
/* Attention dropout is for training only: a model trained with --attn-dropout=0.5 evaluates
 * (loss, accuracy, which examples are right), decodes by greedy decoding, and decodes sources
 * as --decode does, to the bit as the same weights with the dropout set to 0. Were a mask drawn
 * there, half the attention weights of every row would be dropped and the others doubled. */
static void test_attention_dropout_is_off_in_evaluation_and_decoding(void)
{
    Rig g;
    rig_open(&g, name_find(task_name, "reverse"), 0, 6);
    g.m.cfg.attn_dropout = 0.5;
    rig_train(&g, 0, 100); /* trained with it: the weights are those such a run evaluates */
    int n = 48;
    unsigned char right[2][48], decoded[2][48];
    EvalResult ev[2], dec[2];
    int tokens[2][16][64] = {{{0}}}, lens[2][16];
    Example src[16];
    for (int r = 0; r < 16; r++) src[r] = example_list_get(&g.d.val, r);
    double rates[2] = {0.5, 0};
    for (int k = 0; k < 2; k++) {
        g.m.cfg.attn_dropout = rates[k];
        ev[k] = evaluate(&g.ev, &g.m, &g.tp, &g.d, SPLIT_VAL, n, right[k]);
        dec[k] = evaluate_by_decoding(&g.ev, &g.m, &g.tp, &g.d, SPLIT_VAL, n, decoded[k]);
        decode_sources(&g.ev, &g.m, &g.tp, &g.d, src, 16);
        for (int r = 0; r < 16; r++) {
            Decoding d = decoded_row(&g.ev, r);
            lens[k][r] = d.n;
            memcpy(tokens[k][r], d.tokens, (size_t)d.n * sizeof(int));
        }
    }
    CHECK(memcmp(&ev[0].loss, &ev[1].loss, sizeof(double)) == 0 && ev[0].correct == ev[1].correct &&
              memcmp(right[0], right[1], (size_t)n) == 0,
          "evaluation with --attn-dropout=0.5: loss %.9g, %d right; with 0: loss %.9g, %d right", ev[0].loss, ev[0].correct,
          ev[1].loss, ev[1].correct);
    CHECK(memcmp(&dec[0].loss, &dec[1].loss, sizeof(double)) == 0 && memcmp(decoded[0], decoded[1], (size_t)n) == 0,
          "greedy decoding with --attn-dropout=0.5: %d right; with 0: %d right", dec[0].correct, dec[1].correct);
    CHECK(memcmp(lens[0], lens[1], sizeof lens[0]) == 0 && memcmp(tokens[0], tokens[1], sizeof tokens[0]) == 0,
          "--decode's decodings differ with --attn-dropout=0.5 and 0");
    CHECK(ev[1].correct > 0 && ev[1].correct < n, "%d of %d right: a case where dropout would show", ev[1].correct, n);
    rig_close(&g);
}

static void test_test_split_is_held_out(void)
{
    Rig a, b;
    rig_open(&a, name_find(task_name, "copy"), 0, 9);
    rig_open(&b, name_find(task_name, "copy"), 200, 9);
    CHECK(a.d.test.n == 0 && b.d.test.n == 200 && b.d.val.n == 96, "sizes: test %d and %d, val %d", a.d.test.n, b.d.test.n,
          b.d.val.n);
    int same_val = 0;
    for (int i = 0; i < 96; i++) {
        Example x = example_list_get(&a.d.val, i), y = example_list_get(&b.d.val, i);
        same_val += x.src_len == y.src_len && !memcmp(x.src, y.src, (size_t)x.src_len * sizeof(int));
    }
    CHECK(same_val == 96, "the validation set changed when a test set was asked for (%d of 96 the same)", same_val);
    /* no test source in validation or in 50 training batches */
    int leaks = 0;
    for (int i = 0; i < b.d.test.n; i++) {
        Example t = example_list_get(&b.d.test, i);
        for (int j = 0; j < b.d.val.n; j++) {
            Example v = example_list_get(&b.d.val, j);
            leaks += t.src_len == v.src_len && !memcmp(t.src, v.src, (size_t)t.src_len * sizeof(int));
        }
        for (int step = 0; step < 50; step++) {
            dataset_train_batch(&b.d, step, &b.batch);
            for (int r = 0; r < b.batch.B; r++) {
                const Example *e = &b.batch.examples[r];
                leaks += e->src_len == t.src_len && !memcmp(e->src, t.src, (size_t)t.src_len * sizeof(int));
            }
        }
    }
    CHECK(leaks == 0, "%d test sources also in validation or training", leaks);
    EvalResult r = evaluate(&b.ev, &b.m, &b.tp, &b.d, SPLIT_TEST, 1000, NULL);
    CHECK(r.examples == 200 && isfinite(r.loss), "test evaluation over %d examples, loss %g", r.examples, r.loss);
    rig_close(&a);
    rig_close(&b);
}

/* sampler_draw on fixed logits: with --top-k=2 only the two most likely tokens are drawn (the
 * lower id of a tie at the second place); over every token, each one's frequency in 100000 draws
 * is within 0.01 of softmax(z / T) (about 6 standard deviations of the worst case, p = 0.5);
 * --top-k=1 is the argmax whatever T (the first of equal maxima); the same seed draws the same
 * tokens; and no draw allocates. */
static void test_sampler_draw(void)
{
    enum { V = 6, DRAWS = 100000 };
    const real z[V] = {1.0f, 3.0f, 2.0f, 2.0f, -1.0f, 2.0f}; /* ids 2, 3 and 5 tie at the second place */
    Sampler s, again;
    int count[V] = {0}, differ = 0;
    uint64_t allocations = mem_alloc_count();
    sampler_init(&s, V, 0, 1.0, 2, 7);
    sampler_init(&again, V, 0, 1.0, 2, 7);
    uint64_t before = mem_alloc_count();
    for (int i = 0; i < 1000; i++) {
        int t = sampler_draw(&s, z);
        count[t]++;
        differ += t != sampler_draw(&again, z);
    }
    CHECK(count[1] + count[2] == 1000 && count[1] > 0 && count[2] > 0 && differ == 0,
          "--top-k=2: drawn %d %d %d %d %d %d (want only ids 1 and 2); %d draws differ with the same seed", count[0],
          count[1], count[2], count[3], count[4], count[5], differ);
    sampler_free(&s);
    sampler_free(&again);
    double temperatures[2] = {1.0, 2.5};
    for (int k = 0; k < 2; k++) {
        double T = temperatures[k], p[V], sum = 0, worst = 0;
        for (int v = 0; v < V; v++) sum += p[v] = exp(z[v] / T);
        sampler_init(&s, V, 0, T, 0, 11 + (uint64_t)k);
        memset(count, 0, sizeof count);
        before = mem_alloc_count();
        for (int i = 0; i < DRAWS; i++) count[sampler_draw(&s, z)]++;
        CHECK(mem_alloc_count() == before, "%llu allocations in %d draws", (unsigned long long)(mem_alloc_count() - before),
              DRAWS);
        for (int v = 0; v < V; v++) worst = test_max(worst, fabs((double)count[v] / DRAWS - p[v] / sum));
        CHECK(worst < 0.01, "T = %g: a frequency is %.4f off softmax(z / T)", T, worst);
        sampler_free(&s);
    }
    int greedy_misses = 0;
    sampler_init(&s, V, 0, 1e3, 1, 3);
    for (int i = 0; i < 1000; i++) greedy_misses += sampler_draw(&s, z) != 1;
    sampler_free(&s);
    const real flat[V] = {0.0f, 4.0f, 1.0f, 4.0f, 4.0f, -2.0f}; /* a tie at the top: the lower id, 1 */
    sampler_init(&s, V, 0, 0.5, 1, 3);
    for (int i = 0; i < 1000; i++) greedy_misses += sampler_draw(&s, flat) != 1;
    sampler_free(&s);
    CHECK(greedy_misses == 0, "--top-k=1: %d of 2000 draws were not the most likely token", greedy_misses);
    /* from id `first` on (--decode: TOK_EOS, no answer holds <pad> <bos> <sep>): at T = 1e6,
     * nearly uniform, no draw below it in 1000, though id 1 is the most likely of all */
    int below = 0, top = 0;
    sampler_init(&s, V, 3, 1e6, 0, 5);
    for (int i = 0; i < 1000; i++) below += sampler_draw(&s, z) < 3;
    sampler_free(&s);
    sampler_init(&s, V, 3, 0.5, 1, 5);
    for (int i = 0; i < 1000; i++) top += sampler_draw(&s, z) == 3; /* the first of the ties at 2.0 from id 3 on */
    sampler_free(&s);
    CHECK(below == 0 && top == 1000, "first = 3: %d of 1000 draws below it; --top-k=1 gave id 3 %d times", below, top);
    CHECK(mem_alloc_count() - allocations == 2 * 8, "the samplers allocated %llu times (want 2 each)",
          (unsigned long long)(mem_alloc_count() - allocations));
}

int main(int argc, char **argv)
{
    static const TestCase tests[] = {
        {"eval: teacher-forced exact match = greedy decoding's, example by example", test_teacher_forced_exact_match_is_greedy_decoding},
        {"eval: the test split is held out from validation and training", test_test_split_is_held_out},
        {"eval: decode_sources (--decode) = batched greedy decoding; its attention = a forward pass's", test_decode_sources},
        {"eval: attention dropout is off in evaluation and decoding (0.5 = 0, to the bit)",
         test_attention_dropout_is_off_in_evaluation_and_decoding},
        {"eval: sampler_draw (--decode --temperature, --top-k) draws from softmax(z / T) over the top K", test_sampler_draw},
    };
    return test_main(argc, argv, tests, (int)(sizeof tests / sizeof tests[0]));
}
