/* report_figure.c - see report_figure.h. */
#include "report_figure.h"

#include "report_rows.h"

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

SvgStyle figure_scale_style(const char *scale)
{
    static const char *const constant_colors[4] = {"#ff7f0e", "#8c564b", "#e377c2", "#bcbd22"};
    int constants = 0;
    for (int i = 0; i < g_n_scales && strcmp(g_scales[i], scale); i++) {
        double c;
        constants += scale_valid(g_scales[i], &c) && isfinite(c) && strcmp(g_scales[i], "1");
    }
    SvgStyle st = {"#1f77b4", NULL, SVG_SQUARE, 1.8, SVG_FILLED};
    if (!strcmp(scale, "1")) st = (SvgStyle){"#d62728", NULL, SVG_CIRCLE, 1.8, SVG_FILLED};
    else if (!strcmp(scale, "sqrt")) st = (SvgStyle){"#1f77b4", NULL, SVG_SQUARE, 1.8, SVG_FILLED};
    else if (!strcmp(scale, "dk")) st = (SvgStyle){"#2ca02c", "7,3", SVG_TRIANGLE, 1.8, SVG_FILLED};
    else if (!strcmp(scale, "learned-sqrt")) st = (SvgStyle){"#9467bd", "8,3,2,3", SVG_CROSS, 1.8, SVG_FILLED};
    else if (!strcmp(scale, "learned-1")) st = (SvgStyle){"#7f7f7f", "3,3", SVG_PLUS, 1.8, SVG_FILLED};
    else if (!strcmp(scale, "none")) st = (SvgStyle){"#17becf", "1,3", SVG_CIRCLE, 1.8, SVG_HOLLOW};
    else st = (SvgStyle){constant_colors[constants % 4], "2,2", SVG_DIAMOND, 1.8, SVG_FILLED};
    return st;
}

const char *figure_scale_name(const char *scale)
{
    static char b[8][80];
    static int next;
    char *out = b[next++ % 8];
    snprintf(out, 80, "s = %s", scale_label(scale, SCALE_FOR_PLOTS));
    return out;
}
