/* report_figure.c - see report_figure.h. */
#include "report_figure.h"

#include "report_rows.h"

#include <assert.h>
#include <math.h>
#include <string.h>

int figure_width(int w) { return w > 960 ? w : 960; }

Svg *plot_open(Plot *p, const char *dir, const char *name, int w, int h)
{
    svg_begin(&p->svg, out_open(&p->file, dir, name), figure_width(w), h);
    return &p->svg;
}

enum { TITLE_SIZE = 15, SUBTITLE_SIZE = 12, SUBTITLE_Y = 44 };

/* The subtitle's room: from the left margin to 20 pixels before the right edge. */
static double subtitle_width(int width) { return width - MARGIN - 20; }

/* The room below a title's first line taken by its other lines. */
static double title_extra(int width, const char *title)
{
    int lines = svg_text_lines(title, TITLE_SIZE, subtitle_width(width));
    return 1.3 * TITLE_SIZE * (lines > 1 ? lines - 1 : 0);
}

int figure_top(int width, const char *title, const char *subtitle)
{
    int lines = svg_text_lines(subtitle, SUBTITLE_SIZE, subtitle_width(width));
    return TOP + (int)ceil(title_extra(width, title) + 1.3 * SUBTITLE_SIZE * (lines > 1 ? lines - 1 : 0));
}

void figure_titles(Svg *s, int width, const char *title, const char *subtitle)
{
    svg_text_wrapped(s, MARGIN, 24, TITLE_SIZE, subtitle_width(width), title);
    svg_text_wrapped(s, MARGIN, SUBTITLE_Y + title_extra(width, title), SUBTITLE_SIZE, subtitle_width(width), subtitle);
}

void plot_close(Plot *p)
{
    svg_end(&p->svg);
    out_close(&p->file);
}

static const double g_acc_ticks[6] = {0, 0.2, 0.4, 0.6, 0.8, 1};

SvgAxis accuracy_axis(const char *label)
{
    SvgAxis a = {-0.03, 1.03, SVG_LINEAR, label, g_acc_ticks, 6};
    return a;
}

double clip01(double v) { return fmin(fmax(v, 0), 1); }

/* ------------------------------------------------------------------ the scales' styles */

enum { MAX_SCALES = 64 };
static const char *g_scales[MAX_SCALES]; /* every scale of the study, in order */
static int g_n_scales;

void figure_set_scales(const char *const *scales, int n)
{
    g_n_scales = n < MAX_SCALES ? n : MAX_SCALES;
    for (int i = 0; i < g_n_scales; i++) g_scales[i] = scales[i];
}

int figure_scale_index(const char *scale)
{
    int g = 0;
    while (g < g_n_scales && strcmp(g_scales[g], scale)) g++;
    return g;
}

SvgStyle scale_style(const char *scale, int k, double width)
{
    static const char *const shapes[] = {[SVG_CIRCLE] = "circle", [SVG_SQUARE] = "square", [SVG_TRIANGLE] = "triangle",
                                         [SVG_DIAMOND] = "diamond", [SVG_CROSS] = "cross", [SVG_PLUS] = "plus"};
    double c;
    const ScaleRow *r = scale_row_find(scale, &c);
    assert(r);
    const ScaleStyle *st = &r->style;
    int colors = 1;
    while (colors < 4 && st->colors[colors]) colors++;
    SvgShape marker = SVG_NO_MARKER;
    for (int m = 0; m < (int)(sizeof shapes / sizeof shapes[0]); m++)
        if (!strcmp(shapes[m], st->marker)) marker = (SvgShape)m;
    assert(marker != SVG_NO_MARKER);
    return (SvgStyle){st->colors[k % colors], st->dash, marker, width, st->hollow ? SVG_HOLLOW : SVG_FILLED};
}

SvgStyle figure_scale_style(const char *scale)
{
    int constants = 0; /* the constants before this one among the study's scales */
    for (int i = 0; i < g_n_scales && strcmp(g_scales[i], scale); i++) {
        double c;
        constants += scale_valid(g_scales[i], &c) && isfinite(c);
    }
    return scale_style(scale, constants, 1.8);
}

const char *figure_scale_name(const char *scale)
{
    static char b[8][80];
    static int next;
    char *out = b[next++ % 8];
    snprintf(out, 80, "s = %s", scale_label(scale, SCALE_PLOT));
    return out;
}
