/* exit.c - see exit.h. */
#include "exit.h"

#include "../tensor/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void die(int code, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    message_one_line(msg);
    fprintf(stderr, "error: %s\n", msg);
    exit(code);
}
