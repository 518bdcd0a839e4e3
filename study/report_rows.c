/* report_rows.c - see report_rows.h. */
#include "report_rows.h"

#include "report_common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const g_job_cols[N_JOB_COLS] = {"id", "stage", "task", "optim", "scale", "dk", "lr", "seed", "variant", "command"};
const char *const g_metric_cols[N_METRICS] = {
    "steps", "val_acc", "val_loss", "test_acc", "test_loss", "test_examples", "final_loss", "steps_to_threshold",
    "nan_count", "fp_overflows", "fp_underflows", "fp_nans", "time_s",
    "score_std_init", "score_std_end", "qgrad_median_init", "qgrad_median_end", "jac_median_end", "entropy_norm_end", "wq_grad_norm_init", "scale_x_sqrt_dk_end"};

/* ------------------------------------------------------------------ scales */

/* The class of a scale, in table order; *c the constant of class 3. */
static int scale_class(const char *s, double *c)
{
    *c = NAN;
    if (!strcmp(s, "1")) return 0;
    if (!strcmp(s, "sqrt")) return 1;
    if (!strcmp(s, "dk")) return 2;
    if (!strcmp(s, "learned-sqrt")) return 4;
    if (!strcmp(s, "learned-1")) return 5;
    if (!strcmp(s, "none")) return 6; /* score rules that take no scale (cosine, additive) */
    if (parse_number(s, c, FINITE_ONLY) && *c > 0) return 3;
    return -1;
}

bool scale_valid(const char *s, double *c) { return scale_class(s, c) >= 0; }

int scale_compare(const char *a, const char *b)
{
    double ca, cb;
    int ka = scale_class(a, &ca), kb = scale_class(b, &cb);
    if (ka != kb) return ka < kb ? -1 : 1;
    if (ka == 3 && ca != cb) return ca < cb ? -1 : 1;
    return strcmp(a, b);
}

const char *scale_label(const char *s, ScaleText text)
{
    static char bufs[8][64];
    static int next;
    char *b = bufs[next++ % 8];
    bool plain = text == SCALE_FOR_PLOTS;
    const char *sqrt_dk = plain ? "√dk" : "√dₖ", *dk = plain ? "dk" : "dₖ";
    if (!strcmp(s, "1")) snprintf(b, 64, "1");
    else if (!strcmp(s, "sqrt")) snprintf(b, 64, "1/%s", sqrt_dk);
    else if (!strcmp(s, "dk")) snprintf(b, 64, "1/%s", dk);
    else if (!strcmp(s, "learned-sqrt")) snprintf(b, 64, "learned from 1/%s", sqrt_dk);
    else if (!strcmp(s, "learned-1")) snprintf(b, 64, "learned from 1");
    else if (!strcmp(s, "none")) snprintf(b, 64, "none");
    else snprintf(b, 64, "1/%s", s);
    return b;
}

/* ------------------------------------------------------------------ the order of the keys */

int stage_compare(const char *a, const char *b)
{
    int ra = !strcmp(a, LR_STAGE) ? 0 : !strcmp(a, "headline") ? 1 : 2;
    int rb = !strcmp(b, LR_STAGE) ? 0 : !strcmp(b, "headline") ? 1 : 2;
    return ra != rb ? ra - rb : strcmp(a, b);
}

/* strcmp, except that runs of digits compare as numbers: dmodel=64 < dmodel=128. */
static int natural_compare(const char *a, const char *b)
{
    while (*a && *b) {
        bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
        if (da && db) {
            while (*a == '0') a++;
            while (*b == '0') b++;
            size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
            if (na != nb) return na < nb ? -1 : 1; /* more digits: larger */
            int c = strncmp(a, b, na);
            if (c) return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

int variant_compare(const char *a, const char *b)
{
    int ra = strcmp(a, "-") != 0, rb = strcmp(b, "-") != 0;
    if (ra != rb) return ra - rb;
    int c = natural_compare(a, b);
    return c ? c : strcmp(a, b); /* "01" and "1": still one order */
}
