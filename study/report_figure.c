/* report_figure.c - see report_figure.h. */
#include "report_figure.h"

#include <math.h>

Svg *plot_open(Plot *p, const char *dir, const char *name, int w, int h)
{
    svg_begin(&p->svg, out_open(&p->file, dir, name), w > 960 ? w : 960, h);
    return &p->svg;
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
