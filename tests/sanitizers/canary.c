/*
 * canary.c - proves that the sanitizer run (scripts/sanitize.sh) can fail.
 *
 * Built with the sanitizer flags and run on 2 ranks through tests/mpirun.sh,
 * like the library's tests, before them:
 *
 *   canary clean OPTS    MPI_Init, an MPI_Alltoall, MPI_Finalize: must exit 0,
 *                        so the suppressions cover the MPI library's own
 *                        leaks and errors; and every rank must see the
 *                        sanitizer variables (OPTS = the launcher's
 *                        "$ASAN_OPTIONS|$LSAN_OPTIONS|$UBSAN_OPTIONS").
 *   canary leak          a malloc in a function called between MPI_Init and
 *                        MPI_Finalize, dropped: LeakSanitizer must report it
 *                        (the MPI suppressions must not hide a leak of ours).
 *   canary overflow      a read one element past a malloc'ed array:
 *                        AddressSanitizer must stop the rank.
 *   canary ubsan         a signed overflow: UndefinedBehaviorSanitizer must
 *                        stop the rank (-fno-sanitize-recover).
 *
 * The script checks the exit status and the report's first line.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static void *volatile keep; /* defeats the optimiser, never holds the leak at exit */

__attribute__((noinline)) static void leak(size_t bytes)
{
    char *p = malloc(bytes);
    memset(p, 1, bytes);
    keep = p;
    keep = NULL;
}

__attribute__((noinline)) static int overflow(int n)
{
    int *a = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        a[i] = i;
    keep = a;
    int past = ((int *volatile)a)[n]; /* one past the end */
    free(a);
    return past;
}

__attribute__((noinline)) static int signed_overflow(int a)
{
    volatile int b = INT_MAX;
    return a + b;
}

static int check_env(const char *expected, int rank)
{
    const char *names[] = { "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS" };
    char seen[4096] = "";

    for (int i = 0; i < 3; i++) {
        const char *value = getenv(names[i]);
        if (i > 0)
            strncat(seen, "|", sizeof seen - strlen(seen) - 1);
        strncat(seen, value ? value : "", sizeof seen - strlen(seen) - 1);
    }
    if (strcmp(seen, expected) != 0) {
        fprintf(stderr, "canary: rank %d does not see the launcher's sanitizer options:\n"
                        "  rank:     %s\n  launcher: %s\n", rank, seen, expected);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "clean";
    int rank, p, err = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);

    int *send = malloc(sizeof(int) * (size_t)p), *recv = malloc(sizeof(int) * (size_t)p);
    for (int i = 0; i < p; i++)
        send[i] = rank * p + i;
    MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < p; i++)
        if (recv[i] != i * p + rank)
            err = 1;
    free(send);
    free(recv);

    if (strcmp(mode, "clean") == 0) {
        err |= check_env(argc > 2 ? argv[2] : "", rank);
        if (!err)
            printf("canary: rank %d of %d clean, sanitizer options seen\n", rank, p);
    }
    else if (strcmp(mode, "leak") == 0)
        leak(4711);
    else if (strcmp(mode, "overflow") == 0)
        err |= overflow(13) == 42;
    else if (strcmp(mode, "ubsan") == 0)
        err |= signed_overflow(rank + 1) == 0;
    else {
        fprintf(stderr, "canary: unknown mode '%s'\n", mode);
        err = 1;
    }
    MPI_Finalize();
    return err;
}
