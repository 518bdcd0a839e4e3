/* logbook.c - see logbook.h. */

#define _XOPEN_SOURCE 700 /* truncate */

#include "logbook.h"

#include <errno.h>
#include <math.h>
#include "../base/openmp.h"
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Flushes the CSV file: false, with lb->failed, when a write to it failed. */
static bool csv_ok(Logbook *lb)
{
    if (fflush(lb->csv) == 0 && !ferror(lb->csv)) return true;
    snprintf(lb->failed, sizeof lb->failed, "--log=%s: a write failed (%s)", lb->csv_path, strerror(errno));
    return false;
}

bool logbook_stdout_ok(Logbook *lb)
{
    if (fflush(stdout) == 0 && !ferror(stdout)) return true;
    snprintf(lb->failed, sizeof lb->failed, "standard output: a write failed (%s)", strerror(errno));
    return false;
}

/* The CSV header this run writes, into buf. */
static void header_text(const Logbook *lb, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "step,loss,lr,grad_norm,tokens_per_s,time_s");
    for (int l = 0; l < lb->layers && n < len; l++)
        n += (size_t)snprintf(buf + n, len - n,
                              ",l%d_score_mean,l%d_score_std,l%d_entropy,l%d_entropy_norm,l%d_max_weight,l%d_gnorm_wq,l%d_gnorm_wk",
                              l, l, l, l, l, l, l);
    if (lb->multiplier) /* the learned multiplier's column, as its row names it */
        for (int l = 0; l < lb->layers && n < len; l++)
            n += (size_t)snprintf(buf + n, len - n, ",l%d_%s", l, lb->multiplier->column);
    for (int l = 0; l < lb->layers && n < len; l++)
        n += (size_t)snprintf(buf + n, len - n,
                              ",l%d_qgrad_median,l%d_qgrad_p10,l%d_jac_median,l%d_jac_p10,l%d_fp_overflows,l%d_fp_underflows,"
                              "l%d_fp_nans", l, l, l, l, l, l, l);
    if (n < len) snprintf(buf + n, len - n, ",val_loss,val_acc,nan_count\n");
}

/* A resumed run (at step `step`) that names the log of the run it continues: the rows up to
 * that step are kept, the file is cut after them (rows past it belong to steps this run does
 * again, with the same numbers) and the new rows are appended. Refused when the file is not
 * a log with this run's columns. Returns the stream, or NULL with lb->failed. */
static FILE *continue_log(Logbook *lb, const char *path, const char *header, int step)
{
    char why[256];
    FILE *f = file_open_regular(path, why, sizeof why);
    if (!f) {
        snprintf(lb->failed, sizeof lb->failed, "--log=%s: %s", path, why);
        return NULL;
    }
    size_t hlen = strlen(header);
    char *first = mem_alloc(hlen + 2);
    bool ok = fgets(first, (int)hlen + 2, f) && !strcmp(first, header);
    mem_free(first);
    /* then the rows, "<step>,...\n": keep the leading ones of steps <= step */
    size_t keep = hlen;
    long dropped = 0;
    int c = ok ? fgetc(f) : EOF;
    while (c != EOF) {
        long row_step = 0;
        size_t len = 0;
        bool in_step = true, whole = false;
        for (; c != EOF && !whole; c = fgetc(f), len++) {
            if (c == '\n') whole = true;
            else if (c == ',') in_step = false;
            else if (in_step && c >= '0' && c <= '9') row_step = row_step * 10 + (c - '0');
        }
        if (whole && row_step <= step && dropped == 0) keep += len;
        else dropped++;
    }
    bool read_error = ferror(f);
    fclose(f);
    if (!ok || read_error) {
        snprintf(lb->failed, sizeof lb->failed,
                 "--log=%s exists and is not the log of the run this continues (its columns differ): give another --log",
                 path);
        return NULL;
    }
    if (truncate(path, (off_t)keep) != 0 || !(f = fopen(path, "a"))) {
        snprintf(lb->failed, sizeof lb->failed, "--log=%s: cannot continue it: %s", path, strerror(errno));
        return NULL;
    }
    if (dropped)
        fprintf(stderr, "note: --log=%s: continued after step %d (%ld rows past it dropped: this run does those steps again)\n",
                path, step, dropped);
    else if (!lb->quiet)
        fprintf(stderr, "note: --log=%s: continued after step %d\n", path, step);
    return f;
}

bool logbook_open(Logbook *lb, const char *path, const GptConfig *c, bool quiet, int resume_step)
{
    *lb = (Logbook){.quiet = quiet, .csv_path = path, .layers = c->layers,
                    .multiplier = attn_head_multiplier(c),
                    .t_start = omp_get_wtime(), .last_loss = NAN};
    if (!path[0]) return true;
    static char header[1 << 16];
    header_text(lb, header, sizeof header);
    struct stat st;
    if (resume_step > 0 && stat(path, &st) == 0 && st.st_size > 0) {
        lb->csv = continue_log(lb, path, header, resume_step);
        return lb->csv != NULL;
    }
    lb->csv = fopen(path, "w");
    if (!lb->csv) {
        snprintf(lb->failed, sizeof lb->failed, "--log=%s: cannot create the file: %s", path, strerror(errno));
        return false;
    }
    fputs(header, lb->csv);
    return csv_ok(lb);
}

void logbook_measure(Logbook *lb, const Gpt *m, const AttentionTrace *trace, const FormatCounts *rounding,
                     Arena *scratch, const unsigned char *valid, bool has_grads)
{
    for (int l = 0; l < m->cfg.layers; l++) {
        const GptLayer *ly = &m->layer[l];
        LayerMetrics *lm = &lb->layer[l];
        lm->att = attention_stats(scratch, &trace[l], valid);
        lm->gnorm_wq = has_grads ? l2_norm(ly->wq->grad, ly->wq->size) : NAN;
        lm->gnorm_wk = has_grads ? l2_norm(ly->wk->grad, ly->wk->size) : NAN;
        lm->multiplier = NAN;
        lm->rounding = rounding[l];
        if (!ly->scale) continue;
        double sum = 0;
        for (int h = 0; h < m->cfg.heads; h++) sum += gpt_head_scale(ly, &m->cfg, h);
        lm->multiplier = lb->multiplier->logged(sum / m->cfg.heads, &m->cfg);
    }
}

bool logbook_row(Logbook *lb, const LogRow *row)
{
    lb->last_loss = row->loss;
    if (lb->csv) {
        fprintf(lb->csv, "%d,%.9g,%.6g,%.6g,%.6g,%.3f", row->step, row->loss, row->lr, row->grad_norm, row->tokens_per_s,
                row->elapsed);
        for (int l = 0; l < lb->layers; l++) {
            const LayerMetrics *lm = &lb->layer[l];
            fprintf(lb->csv, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g", lm->att.score_mean, lm->att.score_std, lm->att.entropy,
                    lm->att.entropy_norm, lm->att.max_weight, lm->gnorm_wq, lm->gnorm_wk);
        }
        if (lb->multiplier)
            for (int l = 0; l < lb->layers; l++) fprintf(lb->csv, ",%.6g", lb->layer[l].multiplier);
        for (int l = 0; l < lb->layers; l++) {
            const LayerMetrics *lm = &lb->layer[l];
            fprintf(lb->csv, ",%.6g,%.6g,%.6g,%.6g,%ld,%ld,%ld", lm->att.qgrad_median, lm->att.qgrad_p10, lm->att.jac_median,
                    lm->att.jac_p10, lm->rounding.overflow, lm->rounding.underflow, lm->rounding.nan);
        }
        if (row->evaluated) fprintf(lb->csv, ",%.6g,%.6g,%ld\n", row->val_loss, row->val_acc, row->nan_count);
        else fprintf(lb->csv, ",,,%ld\n", row->nan_count);
        if (!csv_ok(lb)) return false;
    }
    if (!lb->quiet) {
        char acc[32] = "   -  ";
        if (!isnan(row->last_acc)) snprintf(acc, sizeof acc, "%5.1f%%", 100 * row->last_acc);
        printf("step %5d/%d  loss %.4f  acc %s  lr %.2e  |g| %7.3f  %6.1fk tok/s  %4.0fs left  std", row->step, row->stop,
               row->loss, acc, row->lr, row->grad_norm, row->tokens_per_s / 1000, row->seconds_left);
        for (int l = 0; l < lb->layers && l < 4; l++) printf(" %.2f", lb->layer[l].att.score_std);
        printf("  H/logn");
        for (int l = 0; l < lb->layers && l < 4; l++) printf(" %.2f", lb->layer[l].att.entropy_norm);
        printf("\n");
        return logbook_stdout_ok(lb);
    }
    return true;
}

void logbook_close(Logbook *lb)
{
    if (lb->csv) fclose(lb->csv);
    lb->csv = NULL;
}
