/* progress.c - see progress.h. */
#include "progress.h"

#include "base.h"

void progress_start(Progress *p, const char *what, long total)
{
    *p = (Progress){what, total, base_monotonic_seconds(), PROGRESS_QUIET_S, stderr};
}

bool progress_update_at(Progress *p, long done, double elapsed)
{
    if (elapsed < p->next) return false;
    if (p->total > 0) fprintf(p->out, "%s: %ld of %ld, %.0f s\n", p->what, done, p->total, elapsed);
    else fprintf(p->out, "%s: %ld so far, %.0f s\n", p->what, done, elapsed);
    fflush(p->out);
    p->next = elapsed + PROGRESS_EVERY_S;
    return true;
}

void progress_update(Progress *p, long done) { progress_update_at(p, done, base_monotonic_seconds() - p->start); }
