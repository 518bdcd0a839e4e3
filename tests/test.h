/* test.h - a very small test runner.
 *
 * A test is a void function; CHECK records a failure (with file and line) without stopping
 * the test. test_main runs the listed tests (or those named on the command line), prints
 * one line per test, then the closing line "N passed, N failed"; exit status 1 on failure.
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

/* A path for a scratch file: $TEST_TMPDIR/name (tests/run.sh makes and removes the folder),
 * or /tmp/name. Returns a static buffer. */
const char *test_path(const char *name);
/* Writes len bytes to a scratch file and returns its path (static buffer). */
const char *test_write_file(const char *name, const void *data, size_t len);

#endif
