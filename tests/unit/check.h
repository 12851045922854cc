/*
 * check.h - CHECK(condition, format, ...) for the tests that run without
 * MPI (schedule_test, hypercube_sim_test): a false condition counts in
 * check_failures, and the first 20 print where and why.
 */
#ifndef AIP_TESTS_CHECK_H
#define AIP_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_failures;

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            if (check_failures++ < 20) {                                        \
                fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);            \
                fprintf(stderr, __VA_ARGS__);                                   \
                fputc('\n', stderr);                                            \
            }                                                                   \
        }                                                                       \
    } while (0)

/* AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on less. */
static inline int test_scale_small(void)
{
    const char *scale = getenv("AIP_TEST_SCALE");
    return scale && strcmp(scale, "small") == 0;
}

#endif /* AIP_TESTS_CHECK_H */
