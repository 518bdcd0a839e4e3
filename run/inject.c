/* inject.c - see inject.h. */
#define _POSIX_C_SOURCE 200809L /* raise, SIGKILL */

#include "inject.h"

#include "../tensor/safetensors.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

bool inject_parse(Injection *in, const char *text, const Gpt *m, int start, int stop, int saves, char *err,
                  size_t err_len)
{
    *in = (Injection){INJECT_NONE, 0, NULL, false};
    char *end;
    const char *arg = strchr(text, ':');
    long n = arg ? strtol(arg + 1, &end, 10) : -1;
    bool number = arg && arg[1] >= '0' && arg[1] <= '9' && n >= 1 && n <= 100000000;
    if (number && !strncmp(text, "crash-in-save:", 14) && !*end) in->kind = INJECT_CRASH_IN_SAVE;
    else if (number && !strncmp(text, "crash-after-step:", 17) && !*end) in->kind = INJECT_CRASH_AFTER_STEP;
    else if (number && !strncmp(text, "nan:", 4) && *end == ':') {
        const char *name = end + 1;
        in->kind = INJECT_NAN;
        in->grad = !strncmp(name, "grad.", 5);
        in->param = gpt_param(m, in->grad ? name + 5 : name);
        if (!in->param) return errorf(err, err_len, "--inject=%s: no parameter named %s", text, in->grad ? name + 5 : name);
    } else {
        return errorf(err, err_len, "--inject=%s: expected nan:STEP:PARAM, nan:STEP:grad.PARAM, crash-in-save:N or crash-after-step:N", text);
    }
    in->n = (int)n;
    if (in->kind == INJECT_CRASH_IN_SAVE) {
        if (in->n > saves) return errorf(err, err_len, "--inject=%s: this run writes %d checkpoint%s", text, saves, saves == 1 ? "" : "s");
    } else if (in->n <= start || in->n > stop) {
        return errorf(err, err_len, "--inject=%s: this run does steps %d to %d", text, start + 1, stop);
    }
    return true;
}

void inject_before_forward(const Injection *in, int step)
{
    if (in->kind == INJECT_NAN && !in->grad && step + 1 == in->n) in->param->data[0] = (real)NAN;
}

void inject_after_backward(const Injection *in, int step)
{
    if (in->kind == INJECT_NAN && in->grad && step + 1 == in->n) in->param->grad[0] = (real)NAN;
}

void inject_before_save(const Injection *in, int save)
{
    if (in->kind == INJECT_CRASH_IN_SAVE && save == in->n) st_crash_during_next_write(4096);
}

void inject_after_step(const Injection *in, int step)
{
    if (in->kind == INJECT_CRASH_AFTER_STEP && step + 1 == in->n) raise(SIGKILL);
}
