/* svg.h - a very small plotting library that writes SVG: panels with axes, ticks, labels,
 * linear or log scales, lines, markers, error bars and a legend. No dependencies. */
#ifndef TOOLS_SVG_H
#define TOOLS_SVG_H

#include <stdbool.h>
#include <stdio.h>

typedef struct SvgAxis {
    double lo, hi;      /* data range shown */
    bool log;           /* log10 scale (lo must be > 0) */
    const char *label;
    const double *ticks; /* explicit tick values, or NULL for automatic ones */
    int n_ticks;
} SvgAxis;

typedef struct SvgPanel {
    double left, top, width, height; /* the plotting area, in pixels */
    SvgAxis x, y;
    const char *title;
} SvgPanel;

typedef struct Svg {
    FILE *f;
} Svg;

bool svg_open(Svg *s, const char *path, int width, int height);
void svg_close(Svg *s);
/* Frame, grid lines, ticks with labels, axis labels and title. */
void svg_panel(Svg *s, const SvgPanel *p);
/* A line through the points (x[i], y[i]); points that cannot be drawn (NaN, <= 0 on a log
 * axis) break the line. */
void svg_line(Svg *s, const SvgPanel *p, const double *x, const double *y, int n, const char *color, double width,
              double opacity, bool dashed);
void svg_marker(Svg *s, const SvgPanel *p, double x, double y, const char *color);
void svg_error_bar(Svg *s, const SvgPanel *p, double x, double lo, double hi, const char *color);
void svg_text(Svg *s, double x, double y, int size, const char *anchor, const char *text);
/* A legend box at (x, y): one line sample and label per entry. */
void svg_legend(Svg *s, double x, double y, const char *const *labels, const char *const *colors, int n);

/* A range that covers [lo, hi] with some margin (log: whole decades when that is not too wide). */
SvgAxis svg_axis_for(double lo, double hi, bool log, const char *label);

#endif
