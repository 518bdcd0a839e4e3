/* threads.h - how many threads a run uses, and the governor that drops to one thread while
 * other programs keep the cores busy.
 *
 * Why: a training step runs ~100 parallel regions, each ending in a barrier where every thread
 * waits for the slowest. When another program holds a core, one of our threads is off the CPU
 * for a whole time slice (milliseconds) and the others wait for it at every barrier: measured on
 * 2 cores beside two busy loops, the default run took 2.3x as long on 2 threads as on 1. The
 * engine's results do not depend on the thread count (tensor/parallel.h), so the count may
 * change between any two steps without changing a single bit: only the speed.
 *
 * The governor looks once per window (THREADS_WINDOW_S of wall time, checked between steps):
 *   on n > 1 threads: did the main thread wait for a CPU (its run queue delay, from
 *     /proc/thread-self/schedstat) for more than THREADS_CONTENDED of the window? Then the
 *     cores are shared: drop to one thread, and look what is free.
 *   on 1 thread: how many of our other cores were idle (from /proc/stat)? Use that many more.
 *   between 1 and the maximum: every THREADS_RECHECK windows, one window on 1 thread to look
 *     again (spinning threads would hide idle cores).
 * It is on when the thread count is not given (--threads=0 and no $OMP_NUM_THREADS), on Linux;
 * elsewhere, or if the kernel does not expose those files, the count stays at the maximum.
 */
#ifndef RUN_THREADS_H
#define RUN_THREADS_H

#include <stdbool.h>

enum { THREADS_RECHECK = 8 };
enum { THREADS_MAX = 1024 }; /* the most --threads or OMP_NUM_THREADS may ask for */
#define THREADS_WINDOW_S 0.25
#define THREADS_CONTENDED 0.10

typedef struct ThreadGovernor {
    bool on;               /* watching and changing the count */
    int max;               /* the count asked for, or the cores this process may use */
    int current;           /* the count in use now */
    int windows;           /* windows since the count last changed */
    double window_start;   /* monotonic seconds */
    double delay_start;    /* the main thread's run queue delay at window_start, seconds */
    double idle_start;     /* idle time of our other cores at window_start, seconds */
} ThreadGovernor;

/* The cores this process may run on: its CPU affinity mask, lowered by a cgroup CPU quota
 * (a container's cpu.max) when there is one; at least 1. */
int threads_usable(void);

/* The OpenMP settings of the environment, checked as a flag is checked (libgomp only warns
 * about a value it cannot read, and goes on with its default): $OMP_NUM_THREADS, when set, is
 * a count from 1 to THREADS_MAX or a comma-separated list of them (one per nesting level; the
 * first is the run's); $OMP_DYNAMIC, when set, is true or false (any case). Blanks around a
 * value are allowed, as libgomp allows them. Anything else, an empty value included (set but
 * empty is not "not set": libgomp calls it invalid too), is one line on stderr and exit 2.
 * Returns the first count of $OMP_NUM_THREADS, 0 when it is not set. ./train (threads_setup),
 * ./probe and the bench call it before any work. */
int threads_from_env(void);

/* Sets the thread count of the run: `requested` (--threads; 0: not given) or $OMP_NUM_THREADS
 * or threads_usable(). A count given above threads_usable() is kept and warned about on stderr.
 * The governor is on only when neither gives a count. */
void threads_setup(ThreadGovernor *g, int requested);
/* False when the program was built without OpenMP (one thread, whatever is asked). */
bool threads_have_openmp(void);

/* Between steps: at the end of a window, looks at the machine and may change the count. */
void threads_tick(ThreadGovernor *g);

/* The decision alone, for the tests: the count for the next window, given the count of this
 * one, the maximum, the fraction of the window the main thread waited for a CPU, the idle
 * cores seen (meaningful on 1 thread only) and the windows since the last change. */
int threads_decide(int current, int max, double delay_fraction, double idle_cores, int windows);

#endif
