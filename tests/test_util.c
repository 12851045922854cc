/*
 * test_util.c - helpers of the MPI tests (see test_util.h).
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"

uint64_t test_hash(uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t z = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL ^
                 (c + 0x2545f4914f6cdd1dULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void test_fill(void *buf, size_t bytes, uint64_t seed, int rank)
{
    unsigned char *out = buf;
    uint64_t word = 0;
    for (size_t i = 0; i < bytes; i++) {
        if (i % 8 == 0)
            word = test_hash(seed, (uint64_t)rank, i / 8);
        out[i] = (unsigned char)(word >> (8 * (i % 8)));
    }
}

int test_pair_count(uint64_t key, int src, int dst)
{
    uint64_t u = test_hash(key, (uint64_t)src, (uint64_t)dst);
    return u % 5 == 0 ? 0 : 1 + (int)(u / 5 % 300);
}

int test_place_regions(uint64_t key, int rank, int p, const int *counts, int *displs)
{
    int *order = malloc(sizeof(int) * (size_t)p), at = 0;
    for (int j = 0; j < p; j++)
        order[j] = j;
    for (int j = p - 1; j > 0; j--) {
        int k = (int)(test_hash(key, (uint64_t)rank, (uint64_t)j) % (uint64_t)(j + 1));
        int swap = order[j];
        order[j] = order[k];
        order[k] = swap;
    }
    for (int i = 0; i < p; i++) {
        at += (int)(test_hash(key + 1, (uint64_t)rank, (uint64_t)i) % 3);
        displs[order[i]] = at;
        at += counts[order[i]];
    }
    free(order);
    return at + 1;
}

const char *test_option(int argc, char **argv, const char *name)
{
    const char *value = NULL;
    for (int a = 1; a + 1 < argc; a += 2)
        if (strcmp(argv[a], name) == 0)
            value = argv[a + 1];
    return value;
}

unsigned long long test_seed(int argc, char **argv, MPI_Comm comm)
{
    const char *given = test_option(argc, argv, "--seed");
    unsigned long long seed = given ? strtoull(given, NULL, 10) : (unsigned long long)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
    return seed;
}

int test_agree(int ok, MPI_Comm comm)
{
    int all = ok != 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

void test_count(int ok, const char *what, int *passed, int *failed, MPI_Comm comm)
{
    int rank, size;
    if (ok) {
        ++*passed;
        return;
    }
    ++*failed;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0)
        printf("FAIL: p=%d %s\n", size, what);
}

int test_summary(const char *name, int passed, int failed, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0)
        printf("%s (p=%d): %d passed, %d failed\n", name, size, passed, failed);
    return failed == 0 ? 0 : 1;
}

/* Written by the threads, read by the signal handler, which may catch a note
 * half rewritten: only what is printed can suffer. */
static char notes[TEST_NOTE_SLOTS][256];
static char watchdog_header[160];

void test_note(int slot, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(notes[slot], sizeof notes[slot], format, args);
    va_end(args);
}

const char *test_last_note(int slot)
{
    return notes[slot];
}

/* Only async-signal-safe calls: write and _exit. */
static void watchdog_fired(int signal)
{
    (void)signal;
    ssize_t ignored = write(STDERR_FILENO, watchdog_header, strlen(watchdog_header));
    for (int slot = 0; slot < TEST_NOTE_SLOTS; slot++)
        if (notes[slot][0]) {
            ignored = write(STDERR_FILENO, "  in ", 5);
            ignored = write(STDERR_FILENO, notes[slot], strnlen(notes[slot], sizeof notes[slot]));
            ignored = write(STDERR_FILENO, "\n", 1);
        }
    (void)ignored;
    _exit(1);
}

void test_watchdog(int seconds, const char *name, int rank)
{
    if (seconds > 0) {
        snprintf(watchdog_header, sizeof watchdog_header,
                 "FAIL: %s: rank %d: watchdog: not done after %d s (a hang?), last\n", name,
                 rank, seconds);
        signal(SIGALRM, watchdog_fired);
    }
    alarm((unsigned)(seconds > 0 ? seconds : 0));
}
