/* report_figure.c - see report_figure.h. */
#include "report_figure.h"

#include <math.h>

int figure_width(int w) { return w > 960 ? w : 960; }

Svg *plot_open(Plot *p, const char *dir, const char *name, int w, int h)
{
    svg_begin(&p->svg, out_open(&p->file, dir, name), figure_width(w), h);
    return &p->svg;
}

enum { TITLE_SIZE = 15, SUBTITLE_SIZE = 12, SUBTITLE_Y = 44 };

/* The subtitle's room: from the left margin to 20 pixels before the right edge. */
static double subtitle_width(int width) { return width - MARGIN - 20; }

int figure_top(int width, const char *subtitle)
{
    int lines = svg_text_lines(subtitle, SUBTITLE_SIZE, subtitle_width(width));
    return TOP + (int)ceil(1.3 * SUBTITLE_SIZE * (lines > 1 ? lines - 1 : 0));
}

void figure_titles(Svg *s, int width, const char *title, const char *subtitle)
{
    svg_text(s, MARGIN, 24, TITLE_SIZE, "start", title);
    svg_text_wrapped(s, MARGIN, SUBTITLE_Y, SUBTITLE_SIZE, subtitle_width(width), subtitle);
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
