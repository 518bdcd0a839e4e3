/* attn_scale.c - the multiplier s of the scaled variants' scores, S = s rule(q, k) (--scale):
 * a fixed s, computed here and nowhere else, or a learned s per head (--scale=learned), and how
 * a learned multiplier is stored (--scale-param); and the names of --softmax's values. The
 * names of the scales are model/scale_table.c's. */
#include "attn_spec.h"

#include <assert.h>
#include <math.h>

double attention_scale(ScaleMode mode, double scale_const, int dk)
{
    switch (mode) {
    case SCALE_ONE: return 1.0;
    case SCALE_SQRT: return 1.0 / sqrt((double)dk);
    case SCALE_DK: return 1.0 / dk;
    case SCALE_CONST: return 1.0 / scale_const;
    case SCALE_LEARNED: break;
    }
    assert(!"a learned scale is a parameter, not a constant");
    return 0;
}

const char *scale_param_name(int param, const char **help)
{
    static NameTable names = {
        [SCALE_PARAM_LINEAR] = {"linear", "the parameter is the multiplier itself"},
        [SCALE_PARAM_LOG] = {"log", "the parameter is its logarithm: always positive, steps change it by a factor"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), param, help);
}

/* --scale=learned: s starts where --scale-init says, and the log shows s sqrt(dk) (1: the
 * 1/sqrt(dk) rule). */
static double learned_s_start(const GptConfig *c) { return attention_scale(c->scale_init, c->scale_init_const, c->dk); }
static double learned_s_logged(double mean, const GptConfig *c) { return mean / attention_scale(SCALE_SQRT, 0, c->dk); }

const HeadMultiplier attn_learned_s = {
    .name = "s",
    .param = "scale",
    .start = learned_s_start,
    .start_digits = 4,
    .column = "scale_x_sqrt_dk",
    .logged = learned_s_logged,
};

const char *softmax_kind_name(int kind, const char **help)
{
    static NameTable names = {
        [SOFTMAX_STABLE] = {"stable", "exp(S - max S): nothing overflows"},
        [SOFTMAX_NAIVE] = {"naive", "exp(S) as written, no max subtracted: overflows where S is large"},
    };
    return name_of(names, (int)(sizeof names / sizeof names[0]), kind, help);
}
