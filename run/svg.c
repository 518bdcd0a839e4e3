/* svg.c - see svg.h. */
#include "svg.h"

#include <math.h>
#include <string.h>

void svg_begin(Svg *s, FILE *f, int width, int height)
{
    s->f = f;
    fprintf(s->f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "font-family=\"Helvetica, Arial, sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height);
}

void svg_end(Svg *s)
{
    fprintf(s->f, "</svg>\n");
    s->f = NULL;
}

bool svg_open(Svg *s, const char *path, int width, int height)
{
    FILE *f = fopen(path, "w");
    if (!f) return false;
    svg_begin(s, f, width, height);
    return true;
}

bool svg_close(Svg *s)
{
    FILE *f = s->f;
    svg_end(s);
    bool ok = !ferror(f);
    ok &= fclose(f) == 0;
    return ok;
}

/* Text with &, < and > escaped, and control characters (which XML does not allow, even
 * escaped) written as '?'. */
static void put_text(FILE *f, const char *t)
{
    for (; *t; t++) {
        unsigned char c = (unsigned char)*t;
        if (c == '&') fputs("&amp;", f);
        else if (c == '<') fputs("&lt;", f);
        else if (c == '>') fputs("&gt;", f);
        else if (c < 0x20 || c == 0x7f) fputc('?', f);
        else fputc(c, f);
    }
}

void svg_put_text(Svg *s, const char *text) { put_text(s->f, text); }

void svg_text(Svg *s, double x, double y, int size, const char *anchor, const char *text)
{
    fprintf(s->f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\">", x, y, size, anchor);
    put_text(s->f, text);
    fprintf(s->f, "</text>\n");
}

/* The estimated width of one character, in em: no font metrics here, so a class of widths
 * that neither Helvetica/Arial (the font asked for; Liberation Sans has their widths) nor DejaVu
 * Sans (the usual fallback on Linux, the wider) exceeds for any printable ASCII character (checked
 * against both fonts' advance widths): narrow punctuation and i, j, l; f, t, r, I, brackets and
 * dashes; most lowercase letters and the digits; capitals; m, w, M, W; maths signs; % and @;
 * and any other character (a UTF-8 sequence, counted once) as a whole em, which the few the
 * figures use (· – − √ ‖ ∂ ≥ ±) do not exceed either. */
static double char_em(unsigned char c)
{
    if (c == 0) return 0;
    if (c >= 0x80) return 1.0;
    if (strchr(" .,:;'|ijl", c)) return 0.34;
    if (strchr("ftrI()[]/\\-!\"", c)) return 0.46;
    if (strchr("mwMW", c)) return 1.0;
    if (strchr("=+<>#~^", c)) return 0.84;
    if (c == '%' || c == '@') return 1.05;
    if ((c >= 'A' && c <= 'Z') || c == '&') return 0.8;
    return 0.66;
}

/* The estimated width of the first len bytes of text in pixels at a font size. */
static double text_width(const char *text, size_t len, int size)
{
    double em = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if ((c & 0xC0) != 0x80) em += char_em(c); /* a continuation byte belongs to the character before */
    }
    return em * size;
}

double svg_text_width(const char *text, int size) { return text_width(text, strlen(text), size); }

/* The length of the next line of wrapped text: as many words as fit (one at least), ending
 * after a clause ("; ") rather than inside one when that fills half the line or more. */
static size_t line_length(const char *text, int size, double max_width)
{
    size_t len = strlen(text), end = 0, clause = 0;
    for (size_t i = 0; i <= len; i++) {
        if (text[i] != ' ' && text[i] != 0) continue;
        if (end > 0 && text_width(text, i, size) > max_width) break;
        end = i;
        if (i > 0 && text[i - 1] == ';') clause = i;
    }
    bool broken = end < len;
    return broken && clause > 0 && text_width(text, clause, size) >= max_width / 2 ? clause : end;
}

int svg_text_lines(const char *text, int size, double max_width)
{
    int lines = 0;
    for (const char *t = text; *t; lines++) {
        t += line_length(t, size, max_width);
        while (*t == ' ') t++;
    }
    return lines;
}

int svg_text_wrapped_at(Svg *s, double x, double y, int size, double max_width, const char *anchor, const char *text)
{
    int lines = 0;
    char line[1024];
    for (const char *t = text; *t; lines++) {
        size_t n = line_length(t, size, max_width);
        snprintf(line, sizeof line, "%.*s", (int)n, t);
        svg_text(s, x, y + 1.3 * size * lines, size, anchor, line);
        t += n;
        while (*t == ' ') t++;
    }
    return lines;
}

int svg_text_wrapped(Svg *s, double x, double y, int size, double max_width, const char *text)
{
    return svg_text_wrapped_at(s, x, y, size, max_width, "start", text);
}

/* Position of a data value along an axis, as a fraction 0..1 (NaN when it cannot be drawn). */
static double frac(const SvgAxis *a, double v)
{
    if (!isfinite(v)) return NAN;
    if (a->scale == SVG_LOG) {
        if (v <= 0) return NAN;
        return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
    }
    return (v - a->lo) / (a->hi - a->lo);
}

static double px(const SvgPanel *p, double x) { return p->left + frac(&p->x, x) * p->width; }

double svg_dodge(const SvgPanel *p, double x, double pixels)
{
    const SvgAxis *a = &p->x;
    double span = a->scale == SVG_LOG ? log10(a->hi) - log10(a->lo) : a->hi - a->lo, step = span * pixels / p->width;
    return a->scale == SVG_LOG ? x * pow(10, step) : x + step;
}
static double py(const SvgPanel *p, double y) { return p->top + (1 - frac(&p->y, y)) * p->height; }

static void format_tick(double v, char *buf, size_t n)
{
    double a = fabs(v);
    if (v == 0) snprintf(buf, n, "0");
    else if (a >= 1e5 || a < 1e-3) snprintf(buf, n, "%.0e", v);
    else snprintf(buf, n, "%g", v);
}

/* Tick values for an axis: "nice" steps on a linear axis, 1-2-5 per decade on a log axis. */
static int ticks(const SvgAxis *a, double *out, int max)
{
    int n = 0;
    if (a->ticks) {
        for (int i = 0; i < a->n_ticks && n < max; i++) out[n++] = a->ticks[i];
        return n;
    }
    if (a->scale == SVG_LOG) {
        double decades = log10(a->hi) - log10(a->lo);
        static const double mult[3] = {1, 2, 5};
        int per = decades > 4 ? 1 : 3;
        for (int e = (int)floor(log10(a->lo)); e <= (int)ceil(log10(a->hi)); e++)
            for (int m = 0; m < per; m++) {
                double v = mult[m] * pow(10, e);
                if (v >= a->lo * 0.999 && v <= a->hi * 1.001 && n < max) out[n++] = v;
            }
        return n;
    }
    double span = a->hi - a->lo, raw = span / 5, mag = pow(10, floor(log10(raw))), step;
    double r = raw / mag;
    step = (r < 1.5 ? 1 : r < 3.5 ? 2 : r < 7.5 ? 5 : 10) * mag;
    for (double v = ceil(a->lo / step) * step; v <= a->hi + step * 1e-9 && n < max; v += step)
        out[n++] = fabs(v) < step * 1e-9 ? 0 : v;
    return n;
}

void svg_panel(Svg *s, const SvgPanel *p)
{
    FILE *f = s->f;
    double t[64];
    char buf[32];
    int n = ticks(&p->x, t, 64);
    for (int i = 0; i < n; i++) {
        double x = px(p, t[i]);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", x, p->top, x,
                p->top + p->height);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", x,
                p->top + p->height, x, p->top + p->height + 4);
        format_tick(t[i], buf, sizeof buf);
        svg_text(s, x, p->top + p->height + 16, 11, "middle", buf);
    }
    n = ticks(&p->y, t, 64);
    for (int i = 0; i < n; i++) {
        double y = py(p, t[i]);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>\n", p->left, y,
                p->left + p->width, y);
        fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n", p->left - 4, y,
                p->left, y);
        format_tick(t[i], buf, sizeof buf);
        svg_text(s, p->left - 7, y + 4, 11, "end", buf);
    }
    fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"black\"/>\n", p->left,
            p->top, p->width, p->height);
    if (p->x.label) svg_text(s, p->left + p->width / 2, p->top + p->height + 34, 12, "middle", p->x.label);
    if (p->y.label) {
        fprintf(f, "<text transform=\"translate(%.1f,%.1f) rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">",
                p->left - 48, p->top + p->height / 2);
        put_text(f, p->y.label);
        fprintf(f, "</text>\n");
    }
    if (p->title) svg_text(s, p->left + p->width / 2, p->top - 8, 13, "middle", p->title);
}

/* The points of a marker shape of radius r centred on (a, b). */
static void put_shape(FILE *f, double a, double b, SvgShape shape, double r, const char *color, SvgFill fill)
{
    char paint[96];
    if (fill == SVG_FILLED) snprintf(paint, sizeof paint, "fill=\"%s\" stroke=\"%s\"", color, color);
    else snprintf(paint, sizeof paint, "fill=\"white\" stroke=\"%s\" stroke-width=\"1.5\"", color);
    switch (shape) {
    case SVG_CIRCLE: fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" %s/>\n", a, b, r, paint); break;
    case SVG_SQUARE:
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" %s/>\n", a - r * 0.85, b - r * 0.85,
                r * 1.7, r * 1.7, paint);
        break;
    case SVG_TRIANGLE:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f\" %s/>\n", a, b - r * 1.15, a - r, b + r * 0.75, a + r,
                b + r * 0.75, paint);
        break;
    case SVG_DIAMOND:
        fprintf(f, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f %.1f,%.1f\" %s/>\n", a, b - r * 1.2, a + r, b, a,
                b + r * 1.2, a - r, b, paint);
        break;
    case SVG_CROSS: /* x: always drawn as strokes */
        fprintf(f, "<path d=\"M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", a - r,
                b - r, a + r, b + r, a - r, b + r, a + r, b - r, color);
        break;
    case SVG_PLUS:
        fprintf(f, "<path d=\"M%.1f,%.1f L%.1f,%.1f M%.1f,%.1f L%.1f,%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n", a - r,
                b, a + r, b, a, b - r, a, b + r, color);
        break;
    case SVG_NO_MARKER: break;
    }
}

void svg_shape(Svg *s, const SvgPanel *p, double x, double y, SvgShape shape, double r, const char *color, SvgFill fill)
{
    double a = px(p, x), b = py(p, y);
    if (isfinite(a) && isfinite(b) && b >= p->top - 0.5 && b <= p->top + p->height + 0.5)
        put_shape(s->f, a, b, shape, r, color, fill);
}

/* The line of a style, as polyline attributes. */
static void put_stroke(FILE *f, const SvgStyle *st)
{
    fprintf(f, "stroke=\"%s\" stroke-width=\"%.2f\"", st->color, st->width);
    if (st->dash) fprintf(f, " stroke-dasharray=\"%s\"", st->dash);
}

void svg_series(Svg *s, const SvgPanel *p, const double *x, const double *y, int n, const SvgStyle *st)
{
    if (st->width > 0) {
        bool open = false;
        for (int i = 0; i < n; i++) {
            double a = px(p, x[i]), b = py(p, y[i]);
            bool ok = isfinite(a) && isfinite(b);
            if (ok) b = fmin(fmax(b, p->top), p->top + p->height);
            if (ok && !open) {
                fprintf(s->f, "<polyline fill=\"none\" ");
                put_stroke(s->f, st);
                fprintf(s->f, " points=\"");
                open = true;
            }
            if (ok) fprintf(s->f, "%.1f,%.1f ", a, b);
            if (!ok && open) {
                fprintf(s->f, "\"/>\n");
                open = false;
            }
        }
        if (open) fprintf(s->f, "\"/>\n");
    }
    for (int i = 0; i < n; i++) svg_shape(s, p, x[i], y[i], st->marker, 3.5, st->color, st->fill);
}

void svg_error_bar(Svg *s, const SvgPanel *p, double x, double lo, double hi, const char *color)
{
    double ylo = fmin(p->y.lo, p->y.hi), yhi = fmax(p->y.lo, p->y.hi);
    if (!isfinite(lo) || !isfinite(hi)) return;
    lo = fmin(fmax(lo, ylo), yhi); /* clipped to the panel: a bar never leaves the axis range */
    hi = fmin(fmax(hi, ylo), yhi);
    double a = px(p, x), b1 = py(p, lo), b2 = py(p, hi);
    if (!isfinite(a) || !isfinite(b1) || !isfinite(b2)) return;
    fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", a, b1, a, b2, color);
    fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", a - 3, b1, a + 3, b1, color);
    fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n", a - 3, b2, a + 3, b2, color);
}

void svg_hline(Svg *s, const SvgPanel *p, double y, const char *color, const char *label)
{
    double b = py(p, y);
    if (!isfinite(b) || b < p->top || b > p->top + p->height) return;
    fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"2,3\"/>\n",
            p->left, b, p->left + p->width, b, color);
    if (label) svg_text(s, p->left + p->width - 4, b - 4, 10, "end", label);
}

void svg_hline_styled(Svg *s, const SvgPanel *p, double y, const SvgStyle *st, const char *cls, const char *label,
                      const char *label_anchor)
{
    double b = py(p, y);
    if (!isfinite(b) || b < p->top || b > p->top + p->height) return;
    fprintf(s->f, "<line class=\"%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ", cls, p->left, b,
            p->left + p->width, b);
    put_stroke(s->f, st);
    fprintf(s->f, "/>\n");
    bool left = !strcmp(label_anchor, "start");
    if (label) svg_text(s, left ? p->left + 4 : p->left + p->width - 4, b - 4, 10, label_anchor, label);
}

void svg_dot(Svg *s, const SvgPanel *p, double x, double y, double r, const char *color, const char *cls,
             const char *title)
{
    double a = px(p, x), b = py(p, y);
    if (!isfinite(a) || !isfinite(b) || b < p->top - 0.5 || b > p->top + p->height + 0.5) return;
    fprintf(s->f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\" fill-opacity=\"0.55\" stroke=\"%s\" "
                  "stroke-width=\"0.8\"><title>", cls, a, b, r, color, color);
    put_text(s->f, title);
    fprintf(s->f, "</title></circle>\n");
}

/* The pixel position of a point (x, lo, hi) of a band, its lower and upper edge clipped to the panel;
 * false when it cannot be drawn. */
static bool band_point(const SvgPanel *p, double x, double lo, double hi, double *a, double *b_lo, double *b_hi)
{
    *a = px(p, x);
    *b_lo = py(p, lo);
    *b_hi = py(p, hi);
    if (!isfinite(*a) || !isfinite(*b_lo) || !isfinite(*b_hi)) return false;
    *b_lo = fmin(fmax(*b_lo, p->top), p->top + p->height);
    *b_hi = fmin(fmax(*b_hi, p->top), p->top + p->height);
    return true;
}

void svg_band(Svg *s, const SvgPanel *p, const double *x, const double *lo, const double *hi, int n, const char *color,
              const char *cls)
{
    double a, b_lo, b_hi;
    bool any = false;
    for (int i = 0; i < n && !any; i++) any = band_point(p, x[i], lo[i], hi[i], &a, &b_lo, &b_hi);
    if (!any) return;
    fprintf(s->f, "<path class=\"%s\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\" d=\"", cls, color);
    for (int i = 0; i < n;) { /* one closed outline per run of drawable points: along the lower edge, back along the upper */
        if (!band_point(p, x[i], lo[i], hi[i], &a, &b_lo, &b_hi)) {
            i++;
            continue;
        }
        int end = i;
        while (end < n && band_point(p, x[end], lo[end], hi[end], &a, &b_lo, &b_hi)) end++;
        for (int j = i; j < end; j++) {
            band_point(p, x[j], lo[j], hi[j], &a, &b_lo, &b_hi);
            fprintf(s->f, "%s%.1f,%.1f ", j == i ? "M" : "L", a, b_lo);
        }
        for (int j = end - 1; j >= i; j--) {
            band_point(p, x[j], lo[j], hi[j], &a, &b_lo, &b_hi);
            fprintf(s->f, "L%.1f,%.1f ", a, b_hi);
        }
        fprintf(s->f, "Z ");
        i = end;
    }
    fprintf(s->f, "\"/>\n");
}

/* The legend's labels start 44 pixels into the box after a sample of their style, 8 pixels in
 * without one, and end 6 pixels before its right side; a label longer than that is wrapped, its
 * entry taller by a line of 12 px text (1.3 em) for each line past the first. */
enum { LEGEND_FONT = 12, LEGEND_ROW = 18 };
static double legend_text_x(const SvgStyle *st) { return st ? 44 : 8; }
static double legend_row_height(const char *label, const SvgStyle *st, double width)
{
    int lines = svg_text_lines(label, LEGEND_FONT, width - legend_text_x(st) - 6);
    return LEGEND_ROW + 1.3 * LEGEND_FONT * (lines > 1 ? lines - 1 : 0);
}

double svg_legend_height(double width, const char *const *labels, const SvgStyle *const *styles, int n)
{
    double h = 8;
    for (int i = 0; i < n; i++) h += legend_row_height(labels[i], styles[i], width);
    return h;
}

void svg_legend(Svg *s, double x, double y, double width, const char *const *labels, const SvgStyle *const *styles,
                int n)
{
    fprintf(s->f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"white\" stroke=\"#999\"/>\n", x, y,
            width, svg_legend_height(width, labels, styles, n));
    double yy = y + 16;
    for (int i = 0; i < n; i++) {
        const SvgStyle *st = styles[i];
        if (st && st->width > 0) {
            fprintf(s->f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ", x + 8, yy - 4, x + 36, yy - 4);
            put_stroke(s->f, st);
            fprintf(s->f, "/>\n");
        }
        if (st) put_shape(s->f, x + 22, yy - 4, st->marker, st->fill == SVG_HOLLOW ? 6 : 3.5, st->color, st->fill);
        svg_text_wrapped_at(s, x + legend_text_x(st), yy, LEGEND_FONT, width - legend_text_x(st) - 6, "start", labels[i]);
        yy += legend_row_height(labels[i], st, width);
    }
}

SvgAxis svg_axis_for(double lo, double hi, SvgScale scale, const char *label)
{
    bool log = scale == SVG_LOG;
    SvgAxis a = {lo, hi, scale, label, NULL, 0};
    if (!isfinite(lo) || !isfinite(hi)) {
        a.lo = log ? 0.1 : 0;
        a.hi = 1;
        return a;
    }
    if (log) {
        if (a.lo <= 0) a.lo = a.hi > 0 ? a.hi * 1e-3 : 1e-3;
        if (a.hi <= a.lo) a.hi = a.lo * 10;
        double l = floor(log10(a.lo)), h = ceil(log10(a.hi));
        if (h - l <= 6) { /* whole decades */
            a.lo = pow(10, l);
            a.hi = pow(10, h);
        }
        return a;
    }
    if (a.hi <= a.lo) {
        a.hi = a.lo + 1;
        a.lo -= 1;
    }
    double pad = 0.05 * (a.hi - a.lo);
    a.lo = lo >= 0 && a.lo - pad < 0 ? 0 : a.lo - pad;
    a.hi += pad;
    return a;
}
