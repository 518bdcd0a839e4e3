/* fpmode.h - subnormal numbers flushed to zero, on every thread and every machine alike.
 *
 * A float below 2^-126 (about 1.2e-38; a double below 2^-1022) is "subnormal": it keeps fewer
 * significant bits, and many CPUs compute with it slowly (on some Intel cores each such operand
 * or result costs a microcode assist, about 100 cycles). A saturated softmax makes them in bulk:
 * exp(s x - m) of a far-off score is ~1e-38, divided by the row's sum it lands below 2^-126, and
 * the backward pass and the products P v then carry those values along. With s = 1 at dk = 256
 * this made a run 1.7x slower on such a machine.
 *
 * fpmode_flush_subnormals() sets the CPU's flush-to-zero mode: a result that would be subnormal
 * is written as 0 (of its sign), and a subnormal operand is read as 0. x86-64: MXCSR's FTZ and
 * DAZ bits (SSE and AVX arithmetic, float and double); aarch64: FPCR.FZ (the same for its scalar
 * and vector arithmetic). What it changes: only numbers below 2^-126 in magnitude (2^-1022 in
 * double), which become 0, in the few places where they arise; every other result has the same
 * bits. Elsewhere (another architecture) it does nothing and says so (fpmode_flushes_subnormals()
 * is false there): the numbers may then differ where a subnormal appears.
 *
 * Who calls it: ./train, ./probe and the bench, first thing in main (after their options and
 * thread count are read), so that every build and machine gives the same bits. The unit tests run
 * without it, except test_engine's last test, which checks it on every thread. What switching it
 * on changed: no golden run, not ./probe's output, not the README's attention figures; in the
 * second study, run again in full with it, 14 of the 886 runs both runs had (sweep runs, at s = 1
 * or 1/8 and dk 256 mostly, where the saturated softmax makes subnormals), the chosen rate of two
 * sweeps, and no verdict (docs/ablation/DESIGN.md, "Amendments").
 */
#ifndef TENSOR_FPMODE_H
#define TENSOR_FPMODE_H

#include <stdbool.h>

/* Flush-to-zero on the calling thread and on every thread of the OpenMP pool (threads made later
 * copy the mode of the thread that makes them). */
void fpmode_flush_subnormals(void);
/* Whether the calling thread flushes subnormals (a test reads it on each thread). */
bool fpmode_flushes_subnormals(void);

#endif
