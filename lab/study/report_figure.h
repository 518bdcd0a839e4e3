/* report_figure.h - the frame every figure of ./report shares: a file written atomically, the
 * panel sizes, the titles (the subtitle wrapped inside the figure), the accuracy axis. */
#ifndef STUDY_REPORT_FIGURE_H
#define STUDY_REPORT_FIGURE_H

#include "report_common.h"
#include "../../run/svg.h"

/* Panel size, the margin left of and between panels, the room above them for the titles. */
enum { PANEL_W = 300, PANEL_H = 240, MARGIN = 75, TOP = 70, LEGEND_W = 270 };

/* A figure in dir/name, figure_width(w) x h pixels; plot_close checks it and gives it its name. */
typedef struct Plot {
    OutFile file;
    Svg svg;
} Plot;
Svg *plot_open(Plot *p, const char *dir, const char *name, int w, int h);
void plot_close(Plot *p);

/* The width of a figure whose panels and legend take w pixels: at least 960, room for titles. */
int figure_width(int w);
/* The room above the panels of a figure `width` pixels wide: its title and its subtitle, each
 * wrapped to the width (TOP for one line of each). */
int figure_top(int width, const char *title, const char *subtitle);
/* The title (15 px) and the subtitle (12 px), each wrapped inside the figure. */
void figure_titles(Svg *s, int width, const char *title, const char *subtitle);

/* The style of a scale as its row in model/scale_table.h gives it (k: which colour of a
 * constant's), with lines `width` pixels wide. */
SvgStyle scale_style(const char *scale, int k, double width);
/* The style of a scale, the same in every figure: s = 1 red circles, 1/sqrt(dk) blue squares,
 * 1/dk green triangles, ...; the constants take their colours in the order of the study's
 * scales, set once per report by figure_set_scales (every scale of the study, in order). */
void figure_set_scales(const char *const *scales, int n);
SvgStyle figure_scale_style(const char *scale);
/* The place of a scale in that list (its markers' phase on the curves); n when it is not there. */
int figure_scale_index(const char *scale);
/* "s = 1/√dk" and so on, for a legend (a few calls' results stay valid at once). */
const char *figure_scale_name(const char *scale);

/* An accuracy axis: [0, 1] (a little room so markers at 0 and 1 show whole), ticks 0..1. */
SvgAxis accuracy_axis(const char *label);
double clip01(double v);

#endif
