/* logbook.c - see logbook.h. */
#include "logbook.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <string.h>

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

bool logbook_open(Logbook *lb, const char *path, const GptConfig *c, bool quiet)
{
    *lb = (Logbook){.quiet = quiet, .csv_path = path, .layers = c->layers,
                    .learned_scale = c->scale_mode == SCALE_LEARNED, .t_start = omp_get_wtime(), .last_loss = NAN};
    if (!path[0]) return true;
    lb->csv = fopen(path, "w");
    if (!lb->csv) {
        snprintf(lb->failed, sizeof lb->failed, "--log=%s: cannot create the file: %s", path, strerror(errno));
        return false;
    }
    fprintf(lb->csv, "step,loss,lr,grad_norm,tokens_per_s,time_s");
    for (int l = 0; l < lb->layers; l++)
        fprintf(lb->csv, ",l%d_score_mean,l%d_score_std,l%d_entropy,l%d_entropy_norm,l%d_max_weight,l%d_gnorm_wq,l%d_gnorm_wk",
                l, l, l, l, l, l, l);
    if (lb->learned_scale)
        for (int l = 0; l < lb->layers; l++) fprintf(lb->csv, ",l%d_scale_x_sqrt_dk", l);
    fprintf(lb->csv, ",val_loss,val_acc,nan_count\n");
    return csv_ok(lb);
}

void logbook_measure(Logbook *lb, const Gpt *m, const AttentionTrace *trace, Arena *scratch,
                     const unsigned char *valid, bool has_grads)
{
    for (int l = 0; l < m->cfg.layers; l++) {
        const GptLayer *ly = &m->layer[l];
        LayerMetrics *lm = &lb->layer[l];
        lm->att = attention_stats(scratch, &trace[l], valid);
        lm->gnorm_wq = has_grads ? l2_norm(ly->wq->grad, ly->wq->size) : NAN;
        lm->gnorm_wk = has_grads ? l2_norm(ly->wk->grad, ly->wk->size) : NAN;
        lm->scale_ratio = NAN;
        if (ly->scale) {
            double s = 0;
            for (int h = 0; h < m->cfg.heads; h++) s += ly->scale->data[h];
            lm->scale_ratio = s / m->cfg.heads * sqrt((double)m->cfg.dk);
        }
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
        if (lb->learned_scale)
            for (int l = 0; l < lb->layers; l++) fprintf(lb->csv, ",%.6g", lb->layer[l].scale_ratio);
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
