/* fpmode.c - flush-to-zero on every thread (see fpmode.h). */
#include "fpmode.h"

#include "openmp.h"

#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
enum { MXCSR_DAZ = 1 << 6, MXCSR_FTZ = 1 << 15 }; /* subnormal operands read as 0; results written as 0 */
static void set_mode(void) { _mm_setcsr(_mm_getcsr() | MXCSR_DAZ | MXCSR_FTZ); }
static bool mode_is_set(void) { return (_mm_getcsr() & (MXCSR_DAZ | MXCSR_FTZ)) == (MXCSR_DAZ | MXCSR_FTZ); }
#elif defined(__aarch64__)
static const uint64_t FPCR_FZ = (uint64_t)1 << 24; /* both: operands and results, float and double */
static uint64_t get_fpcr(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, fpcr" : "=r"(v));
    return v;
}
static void set_mode(void) { __asm__ volatile("msr fpcr, %0" : : "r"(get_fpcr() | FPCR_FZ)); }
static bool mode_is_set(void) { return (get_fpcr() & FPCR_FZ) != 0; }
#else
static void set_mode(void) {} /* not known here: the default, subnormals kept (fpmode.h) */
static bool mode_is_set(void) { return false; }
#endif

void fpmode_flush_subnormals(void)
{
    set_mode();
    /* the pool's threads, if any were made already; later ones copy this thread's mode */
#pragma omp parallel
    set_mode();
}

bool fpmode_flushes_subnormals(void) { return mode_is_set(); }
