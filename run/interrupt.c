/* interrupt.c - see interrupt.h. */
#define _POSIX_C_SOURCE 200809L /* sigaction */

#include "interrupt.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t g_signal;

/* Only async-signal-safe calls here: a flag, or write and _exit. */
static void on_signal(int sig)
{
    if (g_signal) {
        static const char msg[] = "error: a second signal: stopped at once, without saving "
                                  "(a checkpoint already on disk is whole: an unfinished save never replaces it)\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(128 + sig);
    }
    g_signal = sig;
    static const char ack[] = "signal received: finishing this step or evaluation batch (a second signal stops at once)\n";
    ssize_t ignored = write(2, ack, sizeof ack - 1);
    (void)ignored;
}

void interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* reads and writes in progress go on */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* a closed terminal or ssh session; under nohup it is ignored, and stays so */
    struct sigaction hup;
    if (sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &sa, NULL);
}

int interrupt_requested(void) { return g_signal; }

const char *interrupt_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}
