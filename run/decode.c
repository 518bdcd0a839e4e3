/* decode.c - the --decode mode (see decode.h): a checkpoint's model, sources from standard input,
 * their greedy (or sampled, with --temperature) decodings on standard output, one line each. */
#define _POSIX_C_SOURCE 200809L /* isatty, fileno */

#include "decode.h"

#include "eval.h"
#include "exit.h"
#include "run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The longest line read, in bytes (as for a TSV corpus): a longer one is reported and skipped. */
enum { DECODE_MAX_LINE = 65536 };

typedef struct Decoder {
    Options o;
    Dataset data;    /* the task's vocabulary, and its longest target, which bounds an answer */
    Gpt model;
    Arena acts;
    Tape tape;
    Evaluator eval;  /* one row: each line is decoded as soon as it is read */
    Sampler sampler; /* --temperature > 0: the tokens are drawn, by one stream over all the lines */
    int *ids;        /* [context] a line's word ids */
} Decoder;

/* The checkpoint's options (flags that would do nothing refused), its data's vocabulary (checked
 * against the one stored), and its model. */
static void decoder_open(Decoder *d, const Options *given, const OptGiven *set, int argc, char **argv)
{
    Options *o = &d->o;
    *o = *given;
    if (!o->run.load[0])
        die(EXIT_USER, "--decode needs --load=FILE: the checkpoint of a trained model (./train --save=FILE writes one)");
    /* --seed seeds the sampling here: the data (its vocabulary and lengths) stays the checkpoint's,
     * made with the checkpoint's seed, which is also the sampling's when --seed is not given */
    int seed_option = options_index("seed");
    OptGiven data_set[OPTIONS_MAX];
    memcpy(data_set, set, sizeof data_set);
    data_set[seed_option] = GIVEN_NOT;
    StFile ckpt;
    ThreadGovernor threads; /* a fixed count: decoding has no steps to govern between */
    run_prepare(o, data_set, argc, argv, &ckpt, &threads);
    uint64_t seed = set[seed_option] ? given->data.seed : o->data.seed;
    if (o->run.temperature == 0 && seed != o->data.seed)
        die(EXIT_USER, "--seed=%llu does nothing here: with --decode it seeds the sampling, which needs --temperature > 0 "
                       "(the checkpoint was made with --seed=%llu)", (unsigned long long)seed, (unsigned long long)o->data.seed);
    char err[2048];
    run_open_data(o, &d->data); /* as the training run resolved them */
    gpt_create(&d->model, &o->model);
    RunState state = {0};
    if (!checkpoint_load_from(&ckpt, o->run.load, &d->model, NULL, &state, &d->data.vocab, err, sizeof err))
        die(EXIT_USER, "%s", err);
    st_close(&ckpt);
    arena_init(&d->acts, 1 << 20);
    tape_init(&d->tape, &d->acts);
    evaluator_init(&d->eval, 1, o->model.context);
    d->eval.want_attention = o->run.show_attention;
    if (o->run.top_k > o->model.vocab)
        die(EXIT_USER, "--top-k=%d: the model has %d tokens (give at most %d, or 0 for all of them)", o->run.top_k,
            o->model.vocab, o->model.vocab);
    if (o->run.temperature > 0) {
        sampler_init(&d->sampler, o->model.vocab, TOK_EOS, o->run.temperature, o->run.top_k, seed);
        d->eval.sampler = &d->sampler;
    }
    d->ids = mem_alloc((size_t)o->model.context * sizeof(int));
}

static void decoder_close(Decoder *d)
{
    mem_free(d->ids);
    if (d->eval.sampler) sampler_free(d->eval.sampler);
    evaluator_free(&d->eval);
    tape_free(&d->tape);
    arena_free(&d->acts);
    gpt_free(&d->model);
    dataset_free(&d->data);
}

/* Standard input, line by line. */
typedef struct LineReader {
    FILE *f;
    bool after_cr; /* the last line ended in "\r": a "\n" next is the rest of its "\r\n" */
} LineReader;

/* The next line without its end ("\n", "\r\n" or a lone "\r", as the config and TSV readers take
 * them) into buf (cap bytes, NUL-terminated), its length in *n; *too_long when it had more than
 * cap - 1 bytes (the rest is read and dropped). false at the end of the input. A "\r" ends the
 * line at once, without waiting for the byte after it: a pipe's writer may be waiting for the
 * answer. */
static bool read_line(LineReader *in, char *buf, size_t cap, size_t *n, bool *too_long)
{
    int c = getc(in->f);
    if (in->after_cr && c == '\n') c = getc(in->f);
    in->after_cr = false;
    size_t len = 0;
    bool any = false;
    *too_long = false;
    for (; c != EOF; c = getc(in->f)) {
        any = true;
        if (c == '\n') break;
        if (c == '\r') {
            in->after_cr = true;
            break;
        }
        if (len + 1 < cap) buf[len++] = (char)c;
        else *too_long = true;
    }
    buf[len] = 0;
    *n = len;
    return any;
}

/* The decoding of one source: its words (EOS left out, as in the printed examples), then with
 * --show-attention one line per generated token. */
static void print_decoding(const Decoder *d, const Decoding *g, const int *src)
{
    const Vocab *v = &d->data.vocab;
    for (int i = 0; i < g->n - g->ended; i++) printf("%s%s", i ? " " : "", v->words[g->tokens[i]]);
    printf("\n");
    /* token i is written by the query at the position before it: <sep> for the first one */
    for (int i = 0; g->attended && i < g->n; i++) {
        int j = g->attended[i];
        const char *query = v->words[i == 0 ? TOK_SEP : g->tokens[i - 1]];
        printf("  at %-7s writes %-7s most weight on %s (source token %d, mean weight %.2f)\n", query,
               v->words[g->tokens[i]], v->words[src[j]], j + 1, (double)g->attended_weight[i]);
    }
}

/* "3 to 8 words", or "9 words" when the task's sources have one length. */
static void word_range(int lo, int hi, char *buf, size_t len)
{
    if (lo == hi) snprintf(buf, len, "%d word%s", lo, lo == 1 ? "" : "s");
    else snprintf(buf, len, "%d to %d words", lo, hi);
}

/* A source of a length the model never saw: decoded anyway, with a warning (a model trained on 3
 * to 8 words may answer a shorter or a longer one with anything). */
static void warn_untrained_length(const Decoder *d, int line, int len)
{
    if (len >= d->data.min_src && len <= d->data.max_src) return;
    char range[64];
    word_range(d->data.min_src, d->data.max_src, range, sizeof range);
    fprintf(stderr, "line %d: warning: %d word%s, but the model was trained on sources of %s; decoded anyway\n", line, len,
            len == 1 ? "" : "s", range);
}

int decode_main(const Options *given, const OptGiven *set, int argc, char **argv)
{
    static Decoder dec;
    Decoder *d = &dec;
    decoder_open(d, given, set, argc, argv);
    const Options *o = &d->o;
    bool interactive = isatty(fileno(stdin));
    if (interactive) {
        char sample[512], range[64];
        decode_vocab_sample(&d->data.vocab, 12, sample, sizeof sample);
        word_range(d->data.min_src, d->data.max_src, range, sizeof range);
        fprintf(stderr, "decoding with %s (task %s; words %s): one source per line, of %s as trained (at most %d fit the context); "
                        "Ctrl-D ends\n", o->run.load, task_name(o->data.task, NULL), sample, range, o->model.context - 2);
    }
    LineReader in = {stdin, false};
    static char line[DECODE_MAX_LINE + 1];
    int lines = 0, skipped = 0;
    for (;;) {
        if (interactive) {
            fputs("> ", stderr);
            fflush(stderr);
        }
        size_t n;
        bool too_long;
        if (!read_line(&in, line, sizeof line, &n, &too_long)) break;
        lines++;
        char *text = line;
        if (lines == 1 && text_bom(text, n)) { /* a byte-order mark an editor put at the start */
            text += 3;
            n -= 3;
        }
        char why[1024];
        int len = -1;
        if (too_long) snprintf(why, sizeof why, "longer than %d bytes", DECODE_MAX_LINE);
        else len = decode_line_tokens(&d->data.vocab, text, n, o->model.context, d->ids, why, sizeof why);
        const TaskSpec *task = task_spec(o->data.task);
        if (len > 0 && task->check_source && !task->check_source(&o->data, d->ids, len, why, sizeof why)) len = -1;
        if (len < 0) {
            fprintf(stderr, "line %d: %s\n", lines, why);
            skipped++;
            continue;
        }
        warn_untrained_length(d, lines, len);
        Example src = {.src_len = len, .src = d->ids};
        decode_sources(&d->eval, &d->model, &d->tape, &d->data, &src, 1);
        Decoding g = decoded_row(&d->eval, 0);
        print_decoding(d, &g, d->ids);
        /* each line as soon as it is decoded: a pipe's other end may be waiting for it */
        if (fflush(stdout) != 0 || ferror(stdout)) die(EXIT_USER, "standard output: a write failed (%s)", strerror(errno));
        if (!g.ended)
            fprintf(stderr, "line %d: the model did not end its answer within %d token%s; printed as far as it went\n",
                    lines, g.n, g.n == 1 ? "" : "s");
    }
    if (ferror(stdin)) die(EXIT_USER, "standard input: a read error (%s)", strerror(errno));
    if (interactive) fputc('\n', stderr);
    decoder_close(d);
    if (skipped) die(EXIT_USER, "%d of %d line%s not decoded (each said why above)", skipped, lines, lines == 1 ? "" : "s");
    return 0;
}
