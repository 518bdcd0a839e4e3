/* report_figure.h - the frame every figure of ./report shares: a file written atomically, the
 * panel sizes, the accuracy axis, the titles. */
#ifndef STUDY_REPORT_FIGURE_H
#define STUDY_REPORT_FIGURE_H

#include "report_common.h"
#include "../viz/svg.h"

/* Panel size, the margin left of and between panels, the room above them for the titles. */
enum { PANEL_W = 300, PANEL_H = 240, MARGIN = 75, TOP = 70, LEGEND_W = 270 };

/* A figure in dir/name, w x h pixels (at least 960 wide: room for the titles); plot_close
 * checks it and gives it its name. */
typedef struct Plot {
    OutFile file;
    Svg svg;
} Plot;
Svg *plot_open(Plot *p, const char *dir, const char *name, int w, int h);
void plot_close(Plot *p);

/* An accuracy axis: [0, 1] (a little room so markers at 0 and 1 show whole), ticks 0..1. */
SvgAxis accuracy_axis(const char *label);
double clip01(double v);

#endif
