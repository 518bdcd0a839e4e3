/* report_probe.c - the probe figure: softmax entropy and Jacobian norm against dk, one line
 * per score divisor, drawn from the Markdown tables of ./probe's output (docs/ablation/probe.md).
 *
 * ./probe prints, in its sections 5 and 6, for one query against 64 keys with iid N(0, 1)
 * entries, the mean entropy H(p) = -sum_j p_j log p_j and the mean Frobenius norm of the
 * softmax Jacobian |diag(p) - p p^T|_F of p = softmax(q.k / divisor), for each dk and
 * divisor. Reading them back from the text keeps the figure and the table one set of numbers.
 */
#include "report_probe.h"

#include "report_common.h"
#include "report_figure.h"
#include "report_rows.h" /* scale_label: the scale table's labels */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PROBE_MAX_DK = 16, PROBE_MAX_DIV = 16 };

/* One table of the probe: rows = dk, columns = divisors (named as in its header: "1",
 * "sqrt(dk)", "dk", "8" ...). */
typedef struct ProbeTable {
    int n_dk, n_div;
    double dk[PROBE_MAX_DK];
    char div[PROBE_MAX_DIV][16];
    double v[PROBE_MAX_DK][PROBE_MAX_DIV];
} ProbeTable;

/* Splits a Markdown table row "| a | b | c |" into its cells (trimmed, in place). */
static int table_cells(char *line, char **cells, int max)
{
    int n = 0;
    char *p = strchr(line, '|');
    while (p && n < max) {
        char *next = strchr(p + 1, '|');
        if (!next) break;
        *next = '\0';
        char *c = p + 1;
        while (*c == ' ') c++;
        char *e = c + strlen(c);
        while (e > c && e[-1] == ' ') *--e = '\0';
        cells[n++] = c;
        p = next;
    }
    return n;
}

/* Reads the table under the heading that starts with `section` ("## 5."); false if absent. */
static bool read_probe_table(const char *path, const char *section, ProbeTable *t)
{
    FILE *f = fopen(path, "r");
    if (!f) die(EXIT_USER, "--probe %s: cannot open it", path);
    char line[4096];
    bool in = false;
    memset(t, 0, sizeof *t);
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (!in) {
            in = !strncmp(line, section, strlen(section));
            continue;
        }
        if (!strncmp(line, "## ", 3)) break; /* the next section */
        if (line[0] != '|') {
            if (t->n_dk > 0) break; /* the table ended */
            continue;
        }
        char *cells[PROBE_MAX_DIV + 2];
        int n = table_cells(line, cells, PROBE_MAX_DIV + 2);
        if (n < 2 || cells[0][0] == '-' || cells[1][0] == '-') continue; /* the |---:| line */
        if (!strcmp(cells[0], "dk")) { /* the header: "/ 1", "/ sqrt(dk)", ... */
            t->n_div = n - 1;
            for (int d = 0; d < t->n_div; d++)
                snprintf(t->div[d], sizeof t->div[d], "%s", cells[d + 1] + (cells[d + 1][0] == '/' ? 2 : 0));
            continue;
        }
        if (t->n_div == 0 || n - 1 != t->n_div || t->n_dk >= PROBE_MAX_DK) die(EXIT_USER, "--probe %s: a malformed table in %s", path, section);
        int r = t->n_dk++;
        if (!parse_number(cells[0], &t->dk[r], FINITE_ONLY)) die(EXIT_USER, "--probe %s: %s: dk \"%s\" is not a number", path, section, cells[0]);
        for (int d = 0; d < t->n_div; d++)
            if (!parse_number(cells[d + 1], &t->v[r][d], FINITE_ONLY))
                die(EXIT_USER, "--probe %s: %s: \"%s\" is not a number", path, section, cells[d + 1]);
    }
    fclose(f);
    return t->n_dk > 0;
}

/* The scales drawn (names of model/scale_table.h), with a note for the legend: the training
 * grid's three rules, the constant 8 (= sqrt(64)) and S3's divisor 10. Their columns, labels and
 * styles come from the scale table. */
static const struct {
    const char *scale, *note;
} g_lines[] = {
    {"1", " (no scale)"}, {"sqrt", ""}, {"dk", ""}, {"8", " (a constant)"}, {"10", " (S3's constant)"},
};
enum { N_LINES = (int)(sizeof g_lines / sizeof g_lines[0]) };

static int column_of(const ProbeTable *t, const char *name)
{
    for (int d = 0; d < t->n_div; d++)
        if (!strcmp(t->div[d], name)) return d;
    return -1;
}

int report_probe_plot(const char *probe_md, const char *dir)
{
    ProbeTable tab[2];
    const char *sections[2] = {"## 5.", "## 6."};
    for (int k = 0; k < 2; k++)
        if (!read_probe_table(probe_md, sections[k], &tab[k])) die(EXIT_USER, "--probe %s: no table under \"%s\"", probe_md, sections[k]);
    const int n_keys = 64; /* the probe's sections 5 and 6 */

    Plot plot;
    enum { W = 300, H = 240, LEFT = 75, ABOVE = 75, GAP = 85 };
    Svg *s = plot_open(&plot, dir, "probe_softmax.svg", LEFT + 2 * (W + GAP) + 260, ABOVE + H + 70);
    svg_text(s, LEFT - 60, 24, 15, "start",
             "One query against 64 keys, q and k with iid N(0, 1) entries (./probe, sections 5 and 6)");
    svg_text(s, LEFT - 60, 44, 12, "start",
             "p = softmax(q·k × s); each point is a mean over the probe's queries (standard errors below 0.01)");
    double uniform[2] = {log((double)n_keys), sqrt(1.0 / n_keys - 1.0 / ((double)n_keys * n_keys))};
    const char *ylabels[2] = {"entropy of p (nats)", "‖diag(p) − p pᵀ‖_F"};
    const char *titles[2] = {"attention entropy", "softmax Jacobian norm"};
    SvgStyle styles[N_LINES];
    char labels[N_LINES][64], columns[N_LINES][32];
    for (int l = 0, constants = 0; l < N_LINES; l++) {
        double c;
        scale_row_find(g_lines[l].scale, &c);
        styles[l] = scale_style(g_lines[l].scale, isfinite(c) ? constants++ : 0, 2);
        snprintf(labels[l], sizeof labels[l], "s = %s%s", scale_label(g_lines[l].scale, SCALE_PLOT), g_lines[l].note);
        scale_write_divisor(g_lines[l].scale, SCALE_ASCII, columns[l], sizeof columns[l]);
    }
    for (int k = 0; k < 2; k++) {
        const ProbeTable *t = &tab[k];
        double top = uniform[k];
        for (int r = 0; r < t->n_dk; r++)
            for (int d = 0; d < t->n_div; d++) top = fmax(top, t->v[r][d]);
        SvgPanel p = {LEFT + k * (W + GAP), ABOVE, W, H, svg_axis_for(t->dk[0], t->dk[t->n_dk - 1], SVG_LOG, "dk (log)"),
                      svg_axis_for(0, top * 1.08, SVG_LINEAR, ylabels[k]), titles[k]};
        p.x.lo = t->dk[0] / 1.5; /* the measured dk only, with room for the markers */
        p.x.hi = t->dk[t->n_dk - 1] * 1.5;
        p.x.ticks = t->dk;
        p.x.n_ticks = t->n_dk;
        p.y.lo = 0;
        svg_panel(s, &p);
        svg_hline(s, &p, uniform[k], "#888888", "uniform over 64 keys");
        for (int l = 0; l < N_LINES; l++) {
            int d = column_of(t, columns[l]);
            if (d < 0) die(EXIT_USER, "--probe %s: no column \"/ %s\" in %s", probe_md, columns[l], sections[k]);
            double y[PROBE_MAX_DK];
            for (int r = 0; r < t->n_dk; r++) y[r] = t->v[r][d];
            svg_series(s, &p, t->dk, y, t->n_dk, &styles[l]);
        }
    }
    const char *legend[N_LINES];
    const SvgStyle *legend_styles[N_LINES];
    for (int l = 0; l < N_LINES; l++) {
        legend[l] = labels[l];
        legend_styles[l] = &styles[l];
    }
    svg_legend(s, LEFT + 2 * (W + GAP) - 30, ABOVE, 250, legend, legend_styles, N_LINES);
    plot_close(&plot);
    return 1;
}
