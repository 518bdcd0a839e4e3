/* test.h - a very small test runner.
 *
 * A test is a void function; CHECK records a failure (with file and line) without stopping
 * the test. test_main runs the listed tests (or those named on the command line), prints
 * one line per test, then the closing line "N passed, N failed"; exit status 1 on failure.
 * A test that calls test_skip is listed as skipped and counted in neither.
 */
#ifndef TESTS_TEST_H
#define TESTS_TEST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct TestCase {
    const char *name;
    void (*fn)(void);
} TestCase;

/* Records a failure of the running test when ok is false; returns ok. */
bool test_check(bool ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define CHECK(ok, ...) test_check((ok), __FILE__, __LINE__, __VA_ARGS__)

int test_main(int argc, char **argv, const TestCase *tests, int n);

/* The larger of m and x, where a NaN wins and stays: a check on the worst error of many then
 * fails on a NaN, which fmax would drop. (Also, gcc 12 for aarch64 stops with an internal
 * compiler error when it vectorises an fmax reduction over floats widened to double.) */
static inline double test_max(double m, double x) { return m != m || x <= m ? m : x; }

/* For a test that cannot mean anything in this build: the test returns right after, and is
 * printed as "skip  NAME: why", counted neither passed nor failed. */
void test_skip(const char *why);
/* In a build without OpenMP (OPENMP=0), where "1 thread vs 2 threads" would compare one thread
 * with itself: calls test_skip and returns true. Tests comparing thread counts begin with
 * `if (test_skip_without_threads()) return;`. */
bool test_skip_without_threads(void);

/* A path for a scratch file: $TEST_TMPDIR/name (tests/run.sh makes and removes the folder),
 * or /tmp/name. Returns a static buffer. */
const char *test_path(const char *name);
/* Writes len bytes to a scratch file and returns its path (static buffer). */
const char *test_write_file(const char *name, const void *data, size_t len);

#endif
