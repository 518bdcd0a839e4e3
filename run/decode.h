/* decode.h - ./train --load=model.st --decode: talking to a trained model.
 *
 * Each line read from standard input (ended by "\n", "\r\n" or a lone "\r") is a source, its words
 * separated by spaces ("C A B"); each gives one line on standard output, the model's greedy
 * decoding of it (run/eval.c, the decoder the printed examples use). The task, the vocabulary
 * and the model all come from the checkpoint. A line that cannot be decoded (an unknown word,
 * one of the model's own tokens, more words than the context takes, an empty line) is reported
 * on stderr as "line N: ..." and skipped; the others still decode, and the exit status is then 2
 * at the end. So with exit status 0, output line i is the decoding of input line i. A source
 * shorter or longer than the task's sources (Dataset min_src, max_src: --min-len and --max-len
 * for copy, reverse and sort) is decoded with a warning on stderr, "line N: warning: ...",
 * which leaves the exit status alone. A prompt only when stdin is a terminal.
 *
 * --temperature=T (T > 0) samples each token instead, from softmax(logits / T), among the --top-k=K
 * most likely only when K > 0 (K = 1: greedy). The draws are one stream of --seed (the
 * checkpoint's when not given), in the order of the lines: the same seed and the same input give
 * the same output, on any number of threads. Training's printed examples stay greedy.
 *
 * --show-attention follows each decoding with one indented line per generated token (EOS too),
 * "at Q writes W most weight on S (source token j, mean weight p)": a decoder writes token t + 1
 * from the query at position t, so Q is the input token there (<sep> for the first one), W the
 * token it writes, and S the source token that query weighs most in the last layer, by the mean
 * of the attention weights over heads, with that mean weight p.
 */
#ifndef RUN_DECODE_H
#define RUN_DECODE_H

#include "../data/data.h"
#include "options.h"

#include <stdbool.h>
#include <stddef.h>

/* The --decode mode, after run_options: needs --load; returns the exit status (0: every line
 * decoded), or exits 2 on bad flags or a bad checkpoint. */
int decode_main(const Options *o, const OptGiven *set, int argc, char **argv);

/* One input line (n bytes, no line terminator) as the ids of its words in v: at most
 * `context` - 2 of them (BOS and SEP come around a source in the model's `context` positions).
 * Returns how many, or -1 with the reason in err, one line without the "line N: " prefix. */
int decode_line_tokens(const Vocab *v, const char *line, size_t n, int context, int *ids, char *err, size_t err_len);

/* Up to max_words words of v (not the special tokens), as many whole words as fit in buf, for
 * messages: "A B C" when that is all of them, "a b c ... (57 words)" when there are more. An
 * unknown word's message lists them all, when they fit in its 800 bytes. */
void decode_vocab_sample(const Vocab *v, int max_words, char *buf, size_t len);

#endif
