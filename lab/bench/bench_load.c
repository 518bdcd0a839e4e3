/* bench_load.c - the "busy neighbour" rows of `make bench`: ./train's default run (the
 * command a newcomer types) on its default thread count and on --threads=1, first on a quiet
 * machine, then beside one busy process per core (a plain spinning loop, as another user's job
 * would be). The targets (issue 14): beside the neighbours, the default no more than 1.5x the
 * time of --threads=1; on the quiet machine, never slower than --threads=1.
 *
 * What it shows: with OpenMP's spinning barriers alone, every barrier of a step waits for the
 * thread a neighbour pushed off its core; run/threads.h's governor sees that (the run queue
 * delay) and drops to one thread until a core is free again.
 */
#define _DEFAULT_SOURCE /* fork, execv, kill */

#include "bench_load.h"

#include "../../tensor/base.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* A busy neighbour: a child that spins until killed (and dies with the benchmark). */
static pid_t start_neighbour(void)
{
    pid_t pid = fork();
    if (pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
        volatile unsigned long spin = 0;
        for (;;) spin++;
    }
    return pid;
}

/* Wall seconds of `train --quiet [flag]`, its output discarded; -1 if it did not exit 0. */
static double time_train(const char *train, const char *flag)
{
    double t = base_monotonic_seconds();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) dup2(null, 1);
        char *args[] = {(char *)train, "--quiet", (char *)flag, NULL};
        if (!flag[0]) args[2] = NULL;
        execv(train, args);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    return base_monotonic_seconds() - t;
}

void bench_busy_neighbour(const char *train, int cores, FILE *csv)
{
    printf("\n## ./train's default run, quiet and with a busy neighbour on every core (the better of 2 rounds)\n\n");
    if (access(train, X_OK) != 0) {
        printf("(skipped: %s is not built; `make train` builds it)\n", train);
        return;
    }
    printf("| machine | threads | seconds | ÷ --threads=1 | target |\n|---|---|---:|---:|---|\n");
    const char *flags[2] = {"", "--threads=1"};
    for (int busy = 0; busy < 2; busy++) {
        pid_t neighbours[256];
        int n = busy ? (cores < 256 ? cores : 256) : 0;
        for (int i = 0; i < n; i++) neighbours[i] = start_neighbour();
        double best[2] = {INFINITY, INFINITY};
        bool failed = false;
        for (int round = 0; round < 2; round++) /* alternating, so that a slow phase hits both */
            for (int k = 0; k < 2; k++) {
                double s = time_train(train, flags[k]);
                if (s < 0) failed = true;
                else best[k] = fmin(best[k], s);
            }
        for (int i = 0; i < n; i++)
            if (neighbours[i] > 0) {
                kill(neighbours[i], SIGKILL);
                waitpid(neighbours[i], NULL, 0);
            }
        char machine[64];
        if (busy) snprintf(machine, sizeof machine, "%d busy neighbour%s", n, n == 1 ? "" : "s");
        else snprintf(machine, sizeof machine, "quiet");
        if (failed) {
            printf("| %s | (%s failed) | | | |\n", machine, train);
            continue;
        }
        double ratio = best[0] / best[1], limit = busy ? 1.5 : 1.0;
        printf("| %s | default (%d) | %.2f | %.2f | <= %.1f: %s |\n", machine, cores, best[0], ratio, limit,
               ratio <= limit ? "met" : "NOT met");
        printf("| %s | 1 | %.2f | 1.00 | |\n", machine, best[1]);
        fprintf(csv, "load,%s,default,%d,%.3f,%.3f,%.3f\n", busy ? "busy" : "quiet", cores, best[0], best[1], ratio);
        fflush(stdout);
    }
}
