/* report.c - ./report: the tables and plots of a scale ablation made by scripts/ablation.sh.
 *
 *   ./report [--out DIR] FOLDER [FOLDER ...]    one or more result folders (shards are merged)
 *   ./report --runs RUNS.csv [--out DIR]         the same tables from a runs.csv alone
 *   ./report --runs RUNS.csv --out DIR FOLDER ... a runs.csv (an earlier record) and folders, merged
 *   ./report [--out DIR] RUN.csv [RUN2.csv ...]  the logs of ./train runs at a glance (report_glance.c)
 *
 * A result folder holds jobs.tsv (the planned runs: id, stage, task, optim, scale, dk, lr, seed,
 * variant, command) and runs/ID.out (a finished run's console output, ending in its summary
 * line) with runs/ID.csv (its log). The report writes into DIR (default: the one FOLDER, or the
 * folder of RUNS.csv):
 *   runs.csv      every planned run, done or missing, with its final numbers and its command
 *   best_lr.tsv   the learning rate chosen per cell of stage "lr" (on validation accuracy)
 *   summary.md    the tables: the LR sweep, test accuracy with 95 % intervals over seeds,
 *                 paired per-seed comparisons of scales and of variants, the binomial error
 *   law.md, law.svg  the law experiment (report_law.h), when the folder has its runs
 *   slower.md     fails, or slower? (report_slower.h), when the folder has its runs
 *   outcomes.md   for the tasks of lab/study/report_outcome_table.c: success counts, steps to the
 *                 loss threshold, the primary (Holm) and secondary (BH) contrasts and their verdicts
 *   *.svg         lr_TASK_OPTIM (and lr_STAGE_TASK_OPTIM for another stage that sweeps rates),
 *                 dk_TASK, curves_TASK_OPTIM (the last from logs only)
 * From folders, runs.csv is written first and the tables are made from it as read back, so
 * `--runs runs.csv` gives byte-identical tables: no number in them comes from anywhere else.
 * (--runs writes no runs.csv: it is the input.)
 * Exit status 2, with a one-line message, on any bad or inconsistent input; nothing is
 * written then.
 *
 * This file is the command line; the work is done in lab/study/, each part using only those above it:
 *   report_common.c  die, memory, numbers as text, files read whole and written atomically
 *   report_rows.c    the rows of a study: the columns of jobs.tsv and runs.csv, scales, key orders
 *   stats.c          means, t intervals, paired differences
 *   stats_outcomes.c Wilson, Fisher, sign-flip, Holm, BH, minimum detectable differences, Kaplan-Meier, log-rank
 *   report_log.c     a CSV log of ./train, read by the column table it was written by
 *                    (run/log_columns.c)
 *   report_io.c      the inputs: result folders (jobs.tsv, runs/ID.out, runs/ID.csv), their
 *                    merge, and runs.csv (written, and read back)
 *   report_cells.c   the runs grouped into cells (one per setting but the seed), sorted, found
 *                    by binary search: what the tables and plots read
 *   report_tables.c  best_lr.tsv and summary.md, from runs.csv's rows only
 *   report_outcome_table.c  the pre-registered thresholds, tests and primary contrasts
 *   report_outcomes.c outcomes.md, from runs.csv's rows and that table
 *   stats_t.c        Student's t: its distribution, quantiles, the t test's exact power
 *   report_law_groups.c  the law experiment's runs (stages cal, law, robust) grouped, c* and alpha
 *   report_law.c     law.md;  report_law_figure.c  law.svg
 *   report_slower.c  slower.md: fails, or slower? (stage slower)
 *   report_figure.c  the frame of every figure: a file written atomically, panel sizes, titles
 *   report_plots.c   the SVG plots of a study (drawn with run/svg.c)
 *   report_glance.c  one run or a few at a glance, from their logs
 *   report_probe.c   the probe figure, from ./probe's Markdown output
 */
#include "study/report_cells.h"
#include "study/report_rows.h"
#include "study/report_common.h"
#include "study/report_glance.h"
#include "study/report_io.h"
#include "study/report_law.h"
#include "study/report_slower.h"
#include "study/report_outcome_table.h"
#include "study/report_outcomes.h"
#include "study/report_plots.h"
#include "study/report_probe.h"
#include "study/report_tables.h"
#include "../tensor/base.h" /* nearest_flag */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
    fprintf(f, "usage: report [--out DIR] FOLDER [FOLDER ...]   (result folders of scripts/ablation.sh; shards are merged)\n"
                    "       report --runs RUNS.csv [--out DIR]        (the tables again from a runs.csv)\n"
                    "       report --runs RUNS.csv --out DIR FOLDER ... (a runs.csv and result folders, merged)\n"
                    "       report [--out DIR] RUN.csv [RUN2.csv ...] (the curves of ./train --log runs, side by side)\n"
                    "       report --probe PROBE.md [--out DIR]       (probe_softmax.svg from ./probe's output)\n"
                    "       report --design                           (the study's tasks and cells, for scripts/ablation.sh)\n"
                    "       report --scales                           (the attention scales: name, ./train's flags, label)\n");
}

/* What the command line asks for. */
typedef struct Command {
    const char *out, *runs, *probe; /* NULL when not given */
    const char **folders;
    int n_folders;
    bool help, design, scales;
} Command;

/* --name VALUE or --name=VALUE: the value, advancing *i; NULL when argv[*i] is not --name. */
static const char *option_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n)) return NULL;
    if (argv[*i][n] == '=') return argv[*i] + n + 1;
    if (argv[*i][n]) return NULL;
    if (*i + 1 >= argc) die(EXIT_USER, "%s needs a value", name);
    return argv[++*i];
}

/* Sets *slot to the value of option `name` (given once only). */
static void set_once(const char **slot, const char *value, const char *name)
{
    if (*slot) die(EXIT_USER, "%s given twice", name);
    *slot = value;
}

static Command parse_command_line(int argc, char **argv)
{
    Command c = {.folders = mem_alloc(sizeof(char *) * (size_t)(argc + 1))};
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            c.help = true;
            return c;
        } else if (!strcmp(argv[i], "--design")) {
            if (c.design) die(EXIT_USER, "--design given twice");
            c.design = true;
        } else if (!strcmp(argv[i], "--scales")) {
            if (c.scales) die(EXIT_USER, "--scales given twice");
            c.scales = true;
        } else if ((v = option_value(argc, argv, &i, "--out"))) {
            set_once(&c.out, v, "--out");
        } else if ((v = option_value(argc, argv, &i, "--runs"))) {
            set_once(&c.runs, v, "--runs");
        } else if ((v = option_value(argc, argv, &i, "--probe"))) {
            set_once(&c.probe, v, "--probe");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            static const char *const known[] = {"out", "runs", "probe", "design", "scales", "help", NULL};
            const char *near = nearest_flag(argv[i], known);
            if (near) die(EXIT_USER, "unknown option %s; did you mean --%s? (see --help)", argv[i], near);
            die(EXIT_USER, "unknown option %s (see --help)", argv[i]);
        } else {
            c.folders[c.n_folders++] = argv[i];
        }
        if (v && !*v) die(EXIT_USER, "%s needs a value", argv[i]);
    }
    if (c.out && !strcmp(c.out, "-")) die(EXIT_USER, "--out -: the report is files in a folder, not standard output: name a folder (./- for one named -)");
    return c;
}

/* --design: what scripts/ablation.sh runs, from lab/study/report_outcome_table.c. */
static void print_design(const Command *c)
{
    if (c->out || c->runs || c->probe || c->n_folders) die(EXIT_USER, "--design prints the study's cells alone: give nothing else");
    outcome_design_tsv(stdout);
}

/* --scales: the scale table (model/scale_table.h) as scripts/ablation.sh reads it: name, ./train's
 * flags, label; the row "<c>" stands for any number c > 0. */
static void print_scales(const Command *c)
{
    if (c->design || c->out || c->runs || c->probe || c->n_folders) die(EXIT_USER, "--scales prints the scale table alone: give nothing else");
    printf("name\tflags\tlabel\n");
    for (int i = 0; i < g_n_scale_rows; i++) {
        char flags[96], label[64];
        const char *name = g_scale_rows[i].name;
        printf("%s\t%s\t%s\n", name, scale_write_flags(name, flags, sizeof flags), scale_write_label(name, SCALE_ASCII, label, sizeof label));
    }
}

/* --probe: the probe figure alone. */
static void make_probe_figure(const Command *c)
{
    if (c->runs || c->n_folders) die(EXIT_USER, "--probe draws the probe figure alone: give no folder and no --runs");
    const char *dir = c->out ? c->out : ".";
    out_make_dirs(dir);
    report_probe_plot(c->probe, dir);
    printf("report: %s -> %s/probe_softmax.svg\n", c->probe, dir);
}

/* The folder a file is in. */
static void folder_of(const char *path, char *dir, size_t n)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, n, ".");
    else snprintf(dir, n, "%.*s", (int)(slash - path) + (slash == path), path);
}

/* Where the outputs go: --out, the one folder, or the folder of RUNS.csv. */
static void output_dir(const Command *c, char *dir, size_t n)
{
    if (c->out) snprintf(dir, n, "%s", c->out);
    else if (!c->runs) snprintf(dir, n, "%s", c->folders[0]);
    else folder_of(c->runs, dir, n);
}

/* Logs of ./train instead of result folders: the arguments are files (all of them: a mix is
 * refused), each once (the same file twice, under any name, would be drawn as two runs). */
static bool arguments_are_logs(const Command *c)
{
    int files = 0;
    for (int i = 0; i < c->n_folders; i++) {
        struct stat st, other;
        if (stat(c->folders[i], &st) != 0 || S_ISDIR(st.st_mode)) continue;
        files++;
        for (int j = 0; j < i; j++)
            if (stat(c->folders[j], &other) == 0 && other.st_dev == st.st_dev && other.st_ino == st.st_ino)
                die(EXIT_USER, "%s and %s are the same log: give each run once", c->folders[j], c->folders[i]);
    }
    if (files && files < c->n_folders) die(EXIT_USER, "give result folders or ./train's CSV logs, not both");
    return files > 0;
}

/* Logs: one run or a few at a glance, into --out or the folder of the first log. */
static void make_glance(const Command *c)
{
    char dir[4096];
    if (c->out) snprintf(dir, sizeof dir, "%s", c->out);
    else folder_of(c->folders[0], dir, sizeof dir);
    report_glance(c->folders, c->n_folders, dir);
}

/* The study: runs.csv from the folders (or given), then the tables and the plots made from it. */
static void make_study_report(const Command *c)
{
    if (c->runs && c->n_folders && !c->out) die(EXIT_USER, "--runs with folders merges them: say where the report goes with --out DIR");
    if (!c->runs && c->n_folders > 1 && !c->out) die(EXIT_USER, "%d folders to merge: say where the report goes with --out DIR", c->n_folders);
    char dir[4096], runs_path[4096];
    output_dir(c, dir, sizeof dir);
    Row *rows = NULL;
    Curve *curves = NULL;
    int n_rows = 0, n_curves = 0;
    if (c->runs && !c->n_folders) {
        snprintf(runs_path, sizeof runs_path, "%s", c->runs);
    } else {
        load_folders(c->folders, c->n_folders, &rows, &n_rows, &curves, &n_curves);
        if (c->runs) { /* the runs of an earlier record, and those of the folders since */
            Row *earlier;
            int n_earlier;
            read_runs_csv(c->runs, &earlier, &n_earlier);
            merge_rows(earlier, n_earlier, rows, n_rows, &rows, &n_rows);
        }
        out_make_dirs(dir);
        out_path(runs_path, sizeof runs_path, dir, "runs.csv");
        write_runs_csv(runs_path, rows, n_rows);
        free_rows(rows, n_rows);
    }
    /* the tables read runs.csv, whichever way it came */
    read_runs_csv(runs_path, &rows, &n_rows);
    if (c->runs && !c->n_folders) out_make_dirs(dir);
    Cells cells;
    cells_build(&cells, rows, n_rows);
    write_best_lr(dir, &cells);
    write_summary(dir, &cells, rows, n_rows);
    bool outcomes = write_outcomes(dir, &cells);
    int law = write_law(dir, rows, n_rows);
    bool slower = write_slower(dir, rows, n_rows);
    int plots = write_plots(dir, &cells, curves, n_curves);
    cells_free(&cells);

    int done = 0;
    for (int i = 0; i < n_rows; i++) done += rows[i].done;
    printf("report: %d planned runs, %d done, %d missing -> %s/%sbest_lr.tsv, summary.md%s%s%s and %d plots\n", n_rows, done,
           n_rows - done, dir, c->runs && !c->n_folders ? "" : "runs.csv, ", outcomes ? ", outcomes.md" : "", law == 3 ? ", law.md, law_grid.md, law.svg, law_grid.svg" : law ? ", law.md, law_grid.md" : "",
           slower ? ", slower.md, slower.svg" : "", plots);
    if (done < n_rows) fprintf(stderr, "report: %d of %d planned runs are missing (listed in summary.md)\n", n_rows - done, n_rows);
    free_rows(rows, n_rows);
    free_curves(curves, n_curves);
}

int main(int argc, char **argv)
{
    Command c = parse_command_line(argc, argv);
    int status = 0;
    if (c.help) usage(stdout);
    else if (c.scales) print_scales(&c);
    else if (c.design) print_design(&c);
    else if (c.probe) make_probe_figure(&c);
    else if (!c.runs && c.n_folders && arguments_are_logs(&c)) make_glance(&c);
    else if (c.runs || c.n_folders) make_study_report(&c);
    else {
        usage(stderr);
        status = 2;
    }
    mem_free(c.folders);
    return status;
}
