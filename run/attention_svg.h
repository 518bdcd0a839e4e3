/* attention_svg.h - --attention-svg: heatmaps of the attention weights of one held-out example.
 *
 * One panel per layer and head (layers down, heads across), its rows the queries (positions of
 * the decoder input, BOS source SEP target) and its columns the keys, both labelled with the
 * tokens' words; each cell coloured by P_ij on one linear scale from 0 to 1 shared by every
 * panel, with its legend; cells the causal mask hides (key after query) hatched grey, never
 * coloured as a zero weight. Each panel's title gives the head's score multiplier and its mean
 * entropy H = mean_i -sum_j P_ij log P_ij. Up to two grids side by side (at initialisation and
 * at the end of training), of the same example on the same scale.
 *
 * For programs that read the figure back (tests/attention.sh): every drawn cell is
 *     <rect class="cell" data-i="I" data-j="J" data-p="P" .../>    (P with 9 digits: the float itself)
 * inside <g class="panel" data-l="L" data-h="H" ...>, inside <g class="map" data-map="NAME" ...>;
 * hidden cells are one <path class="masked"> per panel; token labels carry data-token (their id).
 * A number that is not finite is spelled nan, inf or -inf in a data- attribute (never "-nan"), and
 * NaN or Inf in a title ("H = NaN (non-finite weights)").
 */
#ifndef RUN_ATTENTION_SVG_H
#define RUN_ATTENTION_SVG_H

#include "../data/data.h"
#include "attention_map.h"

#include <stdbool.h>
#include <stddef.h>

/* --attention-svg-at: which grids a figure shows. */
typedef enum AttentionSvgAt { ATTENTION_AT_END, ATTENTION_AT_INIT, ATTENTION_AT_BOTH } AttentionSvgAt;
const char *attention_svg_at_name(int at, const char **help);

typedef struct AttentionFigure {
    int n_maps;                   /* 1 or 2 grids, left to right, of one example */
    const AttentionMap *maps[2];
    const char *names[2];         /* data-map: "init", "end" */
    const char *captions[2];      /* above each grid */
    const Vocab *vocab;           /* the words of the tokens */
    const char *title;
    const char *notes[4];         /* lines under the title (NULL: none): the command, the score rule */
} AttentionFigure;

/* Writes the figure to path: to a temporary file next to it (path.tmp.<pid>), renamed over path
 * once complete, so that path never holds half a figure. false with a one-line message naming
 * --attention-svg when a write failed. */
bool attention_svg_write(const char *path, const AttentionFigure *fig, char *err, size_t err_len);

#endif
