/* interrupt.h - Ctrl-C (SIGINT), kill (SIGTERM) and a closed terminal or ssh session (SIGHUP)
 * during training. The first asks the run to stop after the step in progress: it saves (with
 * --save), says where and at which step, and exits with 128 + the signal's number (130, 143,
 * 129). A second one ends the process at once; the atomic save guarantees that the checkpoint
 * on disk is whole, the old one or the new one. SIGHUP already ignored when the program starts
 * (nohup) stays ignored. SIGPIPE is ignored: a closed pipe on standard output is a failed
 * write, reported as one (after a hangup, such a failure is the terminal gone: the run stops
 * as for the signal, run_stop_failed_write). */
#ifndef RUN_INTERRUPT_H
#define RUN_INTERRUPT_H

void interrupt_install(void);
/* 0, or the number of the first signal received. */
int interrupt_requested(void);
/* "SIGINT", "SIGTERM", "SIGHUP" */
const char *interrupt_name(int sig);

#endif
