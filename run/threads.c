/* threads.c - the run's thread count and its governor (see threads.h). */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */

#include "threads.h"

#include "../tensor/base.h"
#include "exit.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include "../tensor/openmp.h"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h> /* strcasecmp */
#include <unistd.h>

/* The whole of a small /proc or /sys file into buf (NUL-terminated); false if unreadable.
 * open/read, not stdio: no allocation between steps. */
static bool read_small_file(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return false;
    size_t n = 0;
    ssize_t got = 0;
    while (n + 1 < size && (got = read(fd, buf + n, size - 1 - n)) > 0) n += (size_t)got;
    close(fd);
    buf[n] = 0;
    return n > 0 && got >= 0;
}

#ifdef __linux__
static cpu_set_t g_mask; /* our cores: the idle time of these is what /proc/stat is read for */
static bool g_have_mask;
#endif

/* ceil(quota / period) of a cgroup v2 cpu.max ("200000 100000"; "max 100000": none), else 0. */
static int cgroup_cpu_limit(void)
{
    char buf[128];
    long quota, period;
    if (!read_small_file("/sys/fs/cgroup/cpu.max", buf, sizeof buf)) return 0;
    if (sscanf(buf, "%ld %ld", &quota, &period) != 2 || quota <= 0 || period <= 0) return 0;
    return (int)((quota + period - 1) / period);
}

int threads_usable(void)
{
    int n = 1;
#ifdef __linux__
    if (sched_getaffinity(0, sizeof g_mask, &g_mask) == 0) {
        g_have_mask = true;
        n = CPU_COUNT(&g_mask);
    }
#else
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online > 0) n = (int)online;
#endif
    int quota = cgroup_cpu_limit();
    if (quota > 0 && quota < n) n = quota;
    return n > 0 ? n : 1;
}

/* The calling thread's total wait for a CPU while runnable, in seconds: the second field of
 * /proc/thread-self/schedstat (on-CPU ns, run queue ns, time slices). */
static bool run_queue_delay(double *seconds)
{
    char buf[128];
    unsigned long long on_cpu, waited;
    if (!read_small_file("/proc/thread-self/schedstat", buf, sizeof buf)) return false;
    if (sscanf(buf, "%llu %llu", &on_cpu, &waited) != 2) return false;
    *seconds = 1e-9 * (double)waited;
    return true;
}

/* Idle time so far, in seconds, summed over the cores of our affinity mask: the idle and
 * iowait columns of their "cpuN" lines in /proc/stat, in clock ticks. */
static bool idle_seconds(double *seconds)
{
#ifdef __linux__
    static char buf[1 << 16]; /* /proc/stat of a machine with a few hundred cores */
    if (!g_have_mask || !read_small_file("/proc/stat", buf, sizeof buf)) return false;
    long ticks_per_s = sysconf(_SC_CLK_TCK);
    if (ticks_per_s <= 0) return false;
    double total = 0;
    int found = 0;
    for (const char *line = buf; (line = strstr(line, "\ncpu")) != NULL;) {
        line++;
        int cpu;
        unsigned long long user, nice, sys, idle, iowait;
        if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu", &cpu, &user, &nice, &sys, &idle, &iowait) != 6) continue;
        if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &g_mask)) continue;
        total += (double)(idle + iowait) / (double)ticks_per_s;
        found++;
    }
    *seconds = total;
    return found > 0;
#else
    (void)seconds;
    return false;
#endif
}

/* One entry of $OMP_NUM_THREADS at *p (blanks around it allowed, as libgomp allows them), or
 * exit 2 as for a bad --threads; *p moves to the comma after it, or to the end. */
static long env_count_entry(const char *value, const char **p)
{
    char *end;
    errno = 0;
    long n = strtol(*p, &end, 10);
    while (*end == ' ' || *end == '\t') end++;
    if (end == *p || (*end != 0 && *end != ','))
        die(EXIT_USER, "OMP_NUM_THREADS=%s: not a thread count (a number from 1 to %d, or a comma-separated list of them; "
            "unset it for the default)", value, THREADS_MAX);
    if (errno == ERANGE || n < 1 || n > THREADS_MAX)
        die(EXIT_USER, "OMP_NUM_THREADS=%s: must be between 1 and %d threads (as --threads)", value, THREADS_MAX);
    *p = end;
    return n;
}

int threads_from_env(void)
{
    const char *dynamic = getenv("OMP_DYNAMIC");
    if (dynamic) {
        /* true or false in any case, without blanks: what both libgomp and LLVM's libomp take
         * quietly (libomp warns on " false ") */
        if (strcasecmp(dynamic, "true") != 0 && strcasecmp(dynamic, "false") != 0)
            die(EXIT_USER, "OMP_DYNAMIC=%s: must be one of true|false (or unset)", dynamic);
    }
    const char *value = getenv("OMP_NUM_THREADS"), *p = value;
    if (!value) return 0;
    long first = env_count_entry(value, &p); /* the run's count; the others are nesting levels */
    while (*p == ',') {
        p++;
        env_count_entry(value, &p);
    }
    return (int)first;
}

static void set_count(ThreadGovernor *g, int n)
{
    g->current = n;
    g->windows = 0;
    omp_set_num_threads(n);
}

bool threads_have_openmp(void)
{
#ifdef _OPENMP
    return true;
#else
    return false;
#endif
}

void threads_setup(ThreadGovernor *g, int requested)
{
    memset(g, 0, sizeof *g);
    int usable = threads_usable(), from_env = threads_from_env();
    int given = requested > 0 ? requested : from_env;
#ifndef _OPENMP
    /* built without OpenMP (tensor/openmp.h): one thread, whatever is asked */
    (void)usable;
    if (given > 1)
        fprintf(stderr, "warning: %s=%d: this build has no OpenMP, so it runs on one thread (the results are the same)\n",
                requested > 0 ? "--threads" : "OMP_NUM_THREADS", given);
    g->max = 1;
    set_count(g, 1);
#else
    if (given > usable)
        fprintf(stderr,
                "warning: %s=%d is more than the %d core%s this process may use: the threads will wait for each other "
                "at every barrier and run slower (the results are the same)\n",
                requested > 0 ? "--threads" : "OMP_NUM_THREADS", given, usable, usable == 1 ? "" : "s");
    g->max = given > 0 ? given : usable;
    set_count(g, g->max);
    double delay, idle;
    g->on = given == 0 && g->max > 1 && run_queue_delay(&delay) && idle_seconds(&idle);
    if (g->on) {
        g->window_start = base_monotonic_seconds();
        g->delay_start = delay;
        g->idle_start = idle;
    }
#endif
}

int threads_decide(int current, int max, double delay_fraction, double idle_cores, int windows)
{
    /* waiting for a CPU: some core is taken, and a barrier would wait for the thread that lost it */
    if (current > 1 && delay_fraction > THREADS_CONTENDED) return 1;
    /* on one thread the other cores' idle time is the room there is (a quarter-core margin:
     * the clock ticks of /proc/stat are coarse) */
    if (current == 1) {
        int n = 1 + (int)floor(idle_cores + 0.25);
        return n > max ? max : n;
    }
    /* between: look again now and then, since our own threads hide the idle cores */
    if (current < max && windows >= THREADS_RECHECK) return 1;
    return current;
}

void threads_tick(ThreadGovernor *g)
{
    if (!g->on) return;
    double now = base_monotonic_seconds(), wall = now - g->window_start;
    if (wall < THREADS_WINDOW_S) return;
    double delay, idle;
    if (!run_queue_delay(&delay) || !idle_seconds(&idle)) { /* the files went away: stop governing */
        set_count(g, g->max);
        g->on = false;
        return;
    }
    int next = threads_decide(g->current, g->max, (delay - g->delay_start) / wall, (idle - g->idle_start) / wall,
                              g->windows + 1);
    if (next != g->current) set_count(g, next);
    else g->windows++;
    g->window_start = now;
    g->delay_start = delay;
    g->idle_start = idle;
}
