/* svg.h - a very small plotting library that writes SVG: panels with axes, ticks, labels,
 * linear or log scales, lines with markers and dash patterns, shaded bands, dots, error bars,
 * reference lines, text wrapped by an estimate of its width, and a legend. No dependencies.
 *
 * A series is drawn in an SvgStyle (colour, dash pattern, marker shape), and the legend shows
 * the same style, so every line style on a plot has its legend entry and lines that lie on top
 * of each other stay told apart by their markers. */
#ifndef RUN_SVG_H
#define RUN_SVG_H

#include <stdbool.h>
#include <stdio.h>

typedef enum SvgScale { SVG_LINEAR, SVG_LOG /* log10 (lo must be > 0) */ } SvgScale;

typedef struct SvgAxis {
    double lo, hi;      /* data range shown */
    SvgScale scale;
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

typedef enum SvgFill { SVG_FILLED, SVG_HOLLOW } SvgFill;
typedef enum SvgShape { SVG_CIRCLE, SVG_SQUARE, SVG_TRIANGLE, SVG_DIAMOND, SVG_CROSS, SVG_PLUS, SVG_NO_MARKER } SvgShape;

typedef struct SvgStyle {
    const char *color; /* "#rrggbb" */
    const char *dash;  /* an SVG stroke-dasharray such as "6,3", or NULL for a solid line */
    SvgShape marker;
    double width;      /* line width in pixels; 0 = no line (markers only) */
    SvgFill fill;      /* markers filled, or drawn as outlines */
} SvgStyle;

/* A picture of width x height pixels in a new file at path; false when it cannot be created. */
bool svg_open(Svg *s, const char *path, int width, int height);
/* Writes the closing tag; false when a write failed (a full disk), the file closed either way. */
bool svg_close(Svg *s);
/* The same on a stream the caller opened and closes (and checks): the opening and the closing tag. */
void svg_begin(Svg *s, FILE *f, int width, int height);
void svg_end(Svg *s);
/* Frame, grid lines, ticks with labels, axis labels and title. */
void svg_panel(Svg *s, const SvgPanel *p);
/* A series in a style: its line (when style->width > 0) through the points (x[i], y[i]) and a
 * marker at every point. Points that cannot be drawn (NaN, <= 0 on a log axis) break the line;
 * values outside the y range are drawn at its edge. */
void svg_series(Svg *s, const SvgPanel *p, const double *x, const double *y, int n, const SvgStyle *style);
/* The x that stands `pixels` to the right of x in the panel (left when negative): points of
 * several series at one x, moved apart by a few pixels (a dodge), stay visible. */
double svg_dodge(const SvgPanel *p, double x, double pixels);
/* One marker of a shape, radius r pixels, filled or hollow. */
void svg_shape(Svg *s, const SvgPanel *p, double x, double y, SvgShape shape, double r, const char *color, SvgFill fill);
/* A vertical error bar from lo to hi, clipped to the panel's y range. */
void svg_error_bar(Svg *s, const SvgPanel *p, double x, double lo, double hi, const char *color);
/* A horizontal reference line across the panel at y (e.g. a chance level), with a label. */
void svg_hline(Svg *s, const SvgPanel *p, double y, const char *color, const char *label);
/* The same in a style's colour, width and dash pattern, its element of class cls (which a reader
 * or a test can find it by), its label (10 px, may be NULL) above it at the left end of the
 * panel (label_anchor "start") or at the right ("end"). */
void svg_hline_styled(Svg *s, const SvgPanel *p, double y, const SvgStyle *st, const char *cls, const char *label,
                      const char *label_anchor);
/* A small semi-transparent disc of radius r pixels at (x, y), of class cls, with a tooltip title
 * (a run: its id and value); nothing when y is outside the panel. */
void svg_dot(Svg *s, const SvgPanel *p, double x, double y, double r, const char *color, const char *cls,
             const char *title);
/* A shaded band (fill opacity 0.18, no outline) from lo[i] to hi[i] at x[i], one path element of
 * class cls: a closed outline for each run of points that can be drawn, clipped to the panel's y
 * range. Nothing when no point can be drawn. Drawn before a line, it lies under it. */
void svg_band(Svg *s, const SvgPanel *p, const double *x, const double *lo, const double *hi, int n, const char *color,
              const char *cls);
void svg_text(Svg *s, double x, double y, int size, const char *anchor, const char *text);
/* The estimated width of a text in pixels at a font size: a conservative estimate per character
 * (no font metrics here), which neither Helvetica/Arial nor DejaVu Sans exceeds (svg.c). Every
 * figure is laid out by it, so that no text passes the frame whichever of these fonts draws it. */
double svg_text_width(const char *text, int size);
/* Text broken at spaces into lines no wider than max_width pixels (as estimated), from (x, y)
 * down, 1.3 em apart, anchored at their start; returns how many lines it drew. */
int svg_text_wrapped(Svg *s, double x, double y, int size, double max_width, const char *text);
/* The same with an anchor ("start", "middle", "end"): each line's start, middle or end at x. */
int svg_text_wrapped_at(Svg *s, double x, double y, int size, double max_width, const char *anchor, const char *text);
/* How many lines svg_text_wrapped draws for the text. */
int svg_text_lines(const char *text, int size, double max_width);
/* Character data with &, < and > escaped (control characters as '?'), for an element the
 * caller opens and closes. */
void svg_put_text(Svg *s, const char *text);
/* A legend box at (x, y), `width` pixels wide: per entry a sample of its style (line and
 * marker) and its label, wrapped inside the box. A NULL style draws no sample (a note line). */
void svg_legend(Svg *s, double x, double y, double width, const char *const *labels, const SvgStyle *const *styles,
                int n);
/* The height of that legend box, in pixels. */
double svg_legend_height(double width, const char *const *labels, const SvgStyle *const *styles, int n);

/* A range that covers [lo, hi] with some margin (log: whole decades when that is not too wide;
 * linear: never below 0 when lo is not, so an axis of a quantity that cannot be negative starts
 * at 0 at the lowest). */
SvgAxis svg_axis_for(double lo, double hi, SvgScale scale, const char *label);

#endif
