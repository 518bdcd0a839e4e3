/* openmp.h - OpenMP when the build has it, else a single-threaded stand-in.
 *
 * Every file that calls omp_* includes this instead of <omp.h>, so the program also builds
 * with compilers or systems without OpenMP (`make OPENMP=0`, or Apple's clang, which has no
 * -fopenmp). Without -fopenmp the `#pragma omp` lines are ignored and every loop runs on the
 * one calling thread. The results are the same bits either way: threads only ever split the
 * outputs of a loop, never a sum (tensor/parallel.h).
 */
#ifndef TENSOR_OPENMP_H
#define TENSOR_OPENMP_H

#ifdef _OPENMP
#include <omp.h>
#else

/* One thread, numbered 0, whatever is asked for. */
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_procs(void) { return 1; }
static inline void omp_set_num_threads(int n) { (void)n; }

/* omp_get_wtime: a clock that never jumps (tensor/base.c, compiled as POSIX: a header cannot
 * ask for clock_gettime after the fact). */
double base_monotonic_seconds(void);
static inline double omp_get_wtime(void) { return base_monotonic_seconds(); }
#endif

#endif
