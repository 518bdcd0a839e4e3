/* attention_svg.c - see attention_svg.h. Drawn with run/svg.c. */
#define _POSIX_C_SOURCE 200809L /* getpid */

#include "attention_svg.h"

#include "svg.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

const char *attention_svg_at_name(int at, const char **help)
{
    static NameTable names = {
        [ATTENTION_AT_END] = {"end", "the weights after the last step"},
        [ATTENTION_AT_INIT] = {"init", "the weights at initialisation (from --seed, also when resuming)"},
        [ATTENTION_AT_BOTH] = {"both", "the two grids side by side: same example, same colour scale"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), at, help);
}

/* ------------------------------------------------------------------ colours */

/* viridis, sampled at 0, 1/8, ..., 1: perceptually uniform, readable in grey and by most
 * colour-blind readers. A weight is coloured by linear interpolation between two samples,
 * which is also how an SVG gradient (the legend) interpolates between its stops. */
static const unsigned char g_viridis[9][3] = {
    {0x44, 0x01, 0x54}, {0x47, 0x2d, 0x7b}, {0x3b, 0x52, 0x8b}, {0x2c, 0x72, 0x8e}, {0x21, 0x91, 0x8c},
    {0x28, 0xae, 0x80}, {0x5e, 0xc9, 0x62}, {0xad, 0xdc, 0x30}, {0xfd, 0xe7, 0x25},
};
#define NOT_FINITE_COLOUR "#ff00ff" /* a NaN or Inf weight: nothing on the scale */
#define MASKED_FILL "url(#masked)"

/* "#rrggbb" of weight p in [0, 1] (clamped) into buf[8]. */
static void colour_of(double p, char *buf)
{
    if (!isfinite(p)) {
        snprintf(buf, 8, NOT_FINITE_COLOUR);
        return;
    }
    double x = (p < 0 ? 0 : p > 1 ? 1 : p) * 8;
    int k = x >= 8 ? 7 : (int)x;
    double t = x - k;
    int c[3];
    for (int ch = 0; ch < 3; ch++) c[ch] = (int)lround(g_viridis[k][ch] + t * (g_viridis[k + 1][ch] - g_viridis[k][ch]));
    snprintf(buf, 8, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* ------------------------------------------------------------------ layout */

enum {
    MARGIN = 20,      /* around everything */
    GAP = 18,         /* between panels */
    MAP_GAP = 40,     /* between the two grids */
    PANEL_TITLE = 30, /* two title lines above a panel's cells */
    CAPTION = 26,     /* a grid's caption line */
    LEGEND_W = 190,
    LEGEND_BAR = 160, /* height of the colour bar */
    TOKEN_FONT = 9,
    TITLE_FONT = 15,
    NOTE_FONT = 11,
    MAX_LABEL = 14,   /* characters of a token label; longer words are cut, with "~" */
};

typedef struct Layout {
    double cell;             /* pixels per cell */
    double label;            /* room for token labels, left of and under each panel's cells */
    double panel_w, panel_h; /* one panel with its titles, labels and gap */
    double map_w, map_h;     /* one grid of layers x heads panels, with its caption */
    double top;              /* where the grids start */
    double width, height;
} Layout;

/* Characters of a UTF-8 word (continuation bytes do not count). */
static int utf8_chars(const char *s)
{
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* The label of a word: the word, or when it has more than MAX_LABEL characters its first
 * MAX_LABEL - 1 (cut on a character boundary) and "~". */
static void token_label(const char *word, char *buf, size_t len)
{
    if (utf8_chars(word) <= MAX_LABEL) {
        snprintf(buf, len, "%s", word);
        return;
    }
    size_t keep = 0; /* the byte where character MAX_LABEL - 1 (from 0) starts */
    for (int c = 0; word[keep]; keep++)
        if (((unsigned char)word[keep] & 0xc0) != 0x80 && c++ == MAX_LABEL - 1) break;
    snprintf(buf, len, "%.*s~", (int)keep, word);
}

static const char *word_of(const Vocab *v, int token)
{
    return token >= 0 && token < v->size ? v->words[token] : "?";
}

/* Where everything goes: cells of 240 / n pixels (6 to 40), room for the longest label, the
 * header's lines, the grids side by side and the legend; wide enough for the header's text
 * (about 0.55 of the font size a character). */
static Layout layout_for(const AttentionFigure *fig)
{
    const AttentionMap *m = fig->maps[0];
    Layout g;
    g.cell = floor(240.0 / m->n);
    g.cell = g.cell < 6 ? 6 : g.cell > 40 ? 40 : g.cell;
    int chars = 1;
    char label[64];
    for (int t = 0; t < m->n; t++) {
        token_label(word_of(fig->vocab, m->tokens[t]), label, sizeof label);
        if (utf8_chars(label) > chars) chars = utf8_chars(label);
    }
    g.label = ceil(0.6 * TOKEN_FONT * chars) + 6;
    double square = m->n * g.cell;
    g.panel_w = g.label + square + GAP;
    g.panel_h = PANEL_TITLE + square + g.label + GAP;
    g.map_w = m->heads * g.panel_w;
    g.map_h = CAPTION + m->layers * g.panel_h;
    int lines = 0;
    double text_w = 2 * MARGIN + 0.55 * TITLE_FONT * utf8_chars(fig->title);
    for (int k = 0; k < 4; k++)
        if (fig->notes[k]) {
            lines++;
            text_w = fmax(text_w, 2 * MARGIN + 0.55 * NOTE_FONT * utf8_chars(fig->notes[k]));
        }
    g.top = MARGIN + 20 + 16.0 * lines + 10;
    g.width = fmax(text_w, 2 * MARGIN + fig->n_maps * g.map_w + (fig->n_maps - 1) * MAP_GAP + LEGEND_W);
    double legend_h = CAPTION + PANEL_TITLE + LEGEND_BAR + 190;
    g.height = g.top + fmax(g.map_h, legend_h) + MARGIN;
    return g;
}

/* ------------------------------------------------------------------ drawing */

/* x for a data- attribute: "%.9g", and a non-finite one spelled "nan", "inf" or "-inf" the same on
 * every libc (printf may write a NaN's sign bit: "-nan"). */
static const char *data_number(double x, char *buf, size_t len)
{
    if (isnan(x)) snprintf(buf, len, "nan");
    else if (isinf(x)) snprintf(buf, len, "%s", x < 0 ? "-inf" : "inf");
    else snprintf(buf, len, "%.9g", x);
    return buf;
}

/* x for a title, in format fmt when finite, else "NaN", "Inf" or "-Inf". */
static const char *title_number(double x, const char *fmt, char *buf, size_t len)
{
    if (isnan(x)) snprintf(buf, len, "NaN");
    else if (isinf(x)) snprintf(buf, len, "%s", x < 0 ? "-Inf" : "Inf");
    else snprintf(buf, len, fmt, x);
    return buf;
}

static void put_defs(Svg *s)
{
    fprintf(s->f, "<defs>\n<pattern id=\"masked\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                  "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f0f0f0\"/>"
                  "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b8b8b8\" stroke-width=\"2\"/></pattern>\n");
    /* the colour bar, bottom (0) to top (1): the same samples as colour_of */
    fprintf(s->f, "<linearGradient id=\"scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">");
    for (int k = 0; k <= 8; k++)
        fprintf(s->f, "<stop offset=\"%g\" stop-color=\"#%02x%02x%02x\"/>", k / 8.0, g_viridis[k][0], g_viridis[k][1],
                g_viridis[k][2]);
    fprintf(s->f, "</linearGradient>\n</defs>\n");
}

/* The label of token `token` at position `pos` (a query row or a key column, `cls`) at (x, y),
 * rotated by `angle` degrees about that point. */
static void put_token(Svg *s, double x, double y, double angle, const char *anchor, const char *cls, int pos, int token,
                      const char *word)
{
    char label[64];
    token_label(word, label, sizeof label);
    fprintf(s->f, "<text class=\"%s\" data-pos=\"%d\" data-token=\"%d\" font-size=\"%d\" text-anchor=\"%s\"", cls, pos,
            token, TOKEN_FONT, anchor);
    if (angle != 0) fprintf(s->f, " transform=\"translate(%.1f,%.1f) rotate(%g)\">", x, y, angle);
    else fprintf(s->f, " x=\"%.1f\" y=\"%.1f\">", x, y);
    svg_put_text(s, label);
    fprintf(s->f, "</text>\n");
}

/* The cells above the diagonal (key j after query i), as one staircase outline: row i hides
 * columns i+1 .. n-1. */
static void put_masked(Svg *s, double x0, double y0, int n, double c)
{
    if (n < 2) return;
    fprintf(s->f, "<path class=\"masked\" fill=\"%s\" stroke=\"none\" d=\"M%.1f,%.1f H%.1f V%.1f", MASKED_FILL, x0 + c,
            y0, x0 + n * c, y0 + (n - 1) * c);
    for (int k = n - 1; k >= 1; k--) fprintf(s->f, " H%.1f V%.1f", x0 + k * c, y0 + (k - 1) * c);
    fprintf(s->f, " Z\"/>\n");
}

/* One head's panel: titles, the visible cells, the hidden ones, the frame and the token labels. */
static void put_panel(Svg *s, const Layout *g, const AttentionFigure *fig, const AttentionMap *m, int l, int h, double x,
                      double y)
{
    int n = m->n;
    double c = g->cell, cx = x + g->label, cy = y + PANEL_TITLE, side = n * c;
    double mult = m->multiplier[l * m->heads + h], ent = m->entropy[l * m->heads + h];
    char a[32], b[32];
    fprintf(s->f, "<g class=\"panel\" data-l=\"%d\" data-h=\"%d\" data-multiplier=\"%s\" data-entropy=\"%s\">\n", l, h,
            data_number(mult, a, sizeof a), data_number(ent, b, sizeof b));
    char line[160], entropy[64];
    snprintf(line, sizeof line, "layer %d, head %d", l, h);
    svg_text(s, cx + side / 2, y + 12, 11, "middle", line);
    /* weights that are not numbers have no entropy: said so, not printed as "-nan nats" */
    if (isfinite(ent)) snprintf(entropy, sizeof entropy, "H = %.3f nats", ent);
    else snprintf(entropy, sizeof entropy, "H = %s (non-finite weights)", title_number(ent, "%.3f", a, sizeof a));
    if (m->multiplier_name)
        snprintf(line, sizeof line, "%s = %s, %s", m->multiplier_name, title_number(mult, "%.4g", b, sizeof b), entropy);
    else snprintf(line, sizeof line, "not scaled, %s", entropy);
    svg_text(s, cx + side / 2, y + 25, 10, "middle", line);
    char colour[8];
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            double p = attention_map_weight(m, l, h, i, j);
            colour_of(p, colour);
            fprintf(s->f,
                    "<rect class=\"cell\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\" data-i=\"%d\" "
                    "data-j=\"%d\" data-p=\"%s\"/>\n",
                    cx + j * c, cy + i * c, c, c, colour, i, j, data_number(p, a, sizeof a));
        }
    put_masked(s, cx, cy, n, c);
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#444\"/>\n", cx, cy,
            side, side);
    /* queries down the left, keys under the cells (read upwards) */
    for (int t = 0; t < n; t++) {
        const char *word = word_of(fig->vocab, m->tokens[t]);
        put_token(s, cx - 3, cy + (t + 0.5) * c + 3, 0, "end", "query", t, m->tokens[t], word);
        put_token(s, cx + (t + 0.5) * c + 3, cy + side + 3, -90, "end", "key", t, m->tokens[t], word);
    }
    fprintf(s->f, "</g>\n");
}

static void put_map(Svg *s, const Layout *g, const AttentionFigure *fig, int k, double x)
{
    const AttentionMap *m = fig->maps[k];
    fprintf(s->f, "<g class=\"map\" data-map=\"%s\" data-step=\"%d\" data-example=\"%d\" data-n=\"%d\" data-layers=\"%d\" "
                  "data-heads=\"%d\">\n",
            fig->names[k], m->step, m->example, m->n, m->layers, m->heads);
    svg_text(s, x + g->label, g->top + 14, 13, "start", fig->captions[k]);
    for (int l = 0; l < m->layers; l++)
        for (int h = 0; h < m->heads; h++)
            put_panel(s, g, fig, m, l, h, x + h * g->panel_w, g->top + CAPTION + l * g->panel_h);
    fprintf(s->f, "</g>\n");
}

/* Whether a visible weight of any grid is NaN or infinite (a run with --nan=continue). */
static bool any_not_finite(const AttentionFigure *fig)
{
    for (int k = 0; k < fig->n_maps; k++) {
        const AttentionMap *m = fig->maps[k];
        for (int l = 0; l < m->layers; l++)
            for (int h = 0; h < m->heads; h++)
                for (int i = 0; i < m->n; i++)
                    for (int j = 0; j <= i; j++)
                        if (!isfinite(attention_map_weight(m, l, h, i, j))) return true;
    }
    return false;
}

/* The colour bar with its ticks, the hatch of hidden cells, and how to read a panel. */
static void put_legend(Svg *s, const Layout *g, const AttentionFigure *fig, double x)
{
    double y = g->top + CAPTION + PANEL_TITLE, bar = LEGEND_BAR;
    fprintf(s->f, "<g class=\"legend\">\n");
    svg_text(s, x, y - 10, 11, "start", "attention weight P_ij");
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"%d\" fill=\"url(#scale)\" stroke=\"#444\"/>\n", x, y,
            LEGEND_BAR);
    for (int k = 0; k <= 4; k++) {
        double ty = y + bar * (1 - k / 4.0);
        char tick[16];
        snprintf(tick, sizeof tick, "%g", k / 4.0);
        fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n", x + 14, ty, x + 18, ty);
        svg_text(s, x + 21, ty + 4, 10, "start", tick);
    }
    y += bar + 24;
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#444\"/>\n", x, y,
            MASKED_FILL);
    svg_text(s, x + 20, y + 11, 10, "start", "hidden by the causal mask");
    svg_text(s, x + 20, y + 24, 10, "start", "(key after query: no weight)");
    static const char *const how[] = {"rows: queries i, columns: keys j", "(the decoder input, BOS source",
                                      "SEP target); query i writes", "token i + 1; a row sums to 1", "H: mean over queries of",
                                      "-sum_j P_ij log P_ij (nats)", "linear scale 0 to 1, shared"};
    int n_how = (int)(sizeof how / sizeof how[0]);
    for (int k = 0; k < n_how; k++) svg_text(s, x, y + 48 + 14 * k, 10, "start", how[k]);
    if (any_not_finite(fig)) {
        y += 48 + 14 * n_how + 10;
        fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"14\" fill=\"%s\"/>\n", x, y, NOT_FINITE_COLOUR);
        svg_text(s, x + 20, y + 11, 10, "start", "not finite (NaN or Inf)");
    }
    fprintf(s->f, "</g>\n");
}

static void put_figure(Svg *s, const Layout *g, const AttentionFigure *fig)
{
    put_defs(s);
    svg_text(s, MARGIN, MARGIN + 12, TITLE_FONT, "start", fig->title);
    for (int k = 0, line = 0; k < 4; k++)
        if (fig->notes[k]) svg_text(s, MARGIN, MARGIN + 32 + 16 * line++, NOTE_FONT, "start", fig->notes[k]);
    double x = MARGIN;
    for (int k = 0; k < fig->n_maps; k++) {
        put_map(s, g, fig, k, x);
        x += g->map_w + MAP_GAP;
    }
    put_legend(s, g, fig, x - MAP_GAP + 10);
}

bool attention_svg_write(const char *path, const AttentionFigure *fig, char *err, size_t err_len)
{
    Layout g = layout_for(fig);
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return errorf(err, err_len, "--attention-svg=%s: the path is too long", path);
    Svg s;
    if (!svg_open(&s, tmp, (int)ceil(g.width), (int)ceil(g.height)))
        return errorf(err, err_len, "--attention-svg=%s: cannot create %s: %s", path, tmp, strerror(errno));
    put_figure(&s, &g, fig);
    if (!svg_close(&s)) {
        int saved = errno;
        remove(tmp);
        return errorf(err, err_len, "--attention-svg=%s: a write failed (%s)", path, strerror(saved ? saved : EIO));
    }
    if (rename(tmp, path) != 0) {
        int saved = errno;
        remove(tmp);
        return errorf(err, err_len, "--attention-svg=%s: cannot rename %s to it: %s", path, tmp, strerror(saved));
    }
    return true;
}
