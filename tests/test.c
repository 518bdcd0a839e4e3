/* test.c - the runner behind test.h. */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static int g_failures;        /* failed checks in the running test */
static const char *g_skipped; /* why the running test was skipped, or NULL */

void test_skip(const char *why) { g_skipped = why; }

bool test_skip_without_threads(void)
{
#ifdef _OPENMP /* defined by the compiler under -fopenmp */
    return false;
#else
    test_skip("this build has no OpenMP: one thread only, nothing to compare with");
    return true;
#endif
}

bool test_check(bool ok, const char *file, int line, const char *fmt, ...)
{
    if (ok) return true;
    if (g_failures < 10) { /* the first few are enough to debug */
        va_list ap;
        va_start(ap, fmt);
        fprintf(stdout, "    %s:%d: ", file, line);
        vfprintf(stdout, fmt, ap);
        fprintf(stdout, "\n");
        va_end(ap);
    }
    g_failures++;
    return false;
}

static bool selected(int argc, char **argv, const char *name)
{
    if (argc <= 1) return true;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i])) return true;
    return false;
}

int test_main(int argc, char **argv, const TestCase *tests, int n)
{
    int passed = 0, failed = 0;
    for (int i = 0; i < n; i++) {
        if (!selected(argc, argv, tests[i].name)) continue;
        g_failures = 0;
        g_skipped = NULL;
        tests[i].fn();
        if (g_skipped && g_failures == 0) {
            printf("skip  %s: %s\n", tests[i].name, g_skipped);
        } else if (g_failures == 0) {
            passed++;
            printf("ok    %s\n", tests[i].name);
        } else {
            failed++;
            printf("FAIL  %s (%d failed checks)\n", tests[i].name, g_failures);
        }
        fflush(stdout);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

const char *test_path(const char *name)
{
    static char path[4096];
    const char *dir = getenv("TEST_TMPDIR");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/tmp", name);
    return path;
}

const char *test_write_file(const char *name, const void *data, size_t len)
{
    const char *path = test_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        fprintf(stdout, "    cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
    return path;
}
