/*
 * test_util.h - what the MPI tests share: reproducible random numbers and
 * result reporting.  The exchanged data and its checks
 * (common/exchange_data.h) and the memory readings (common/proc_memory.h)
 * are shared with the benchmarks, and included here for the tests.
 */
#ifndef AIP_TEST_UTIL_H
#define AIP_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "alltoall_inplace.h"

#include "../common/exchange_data.h"
#include "../common/proc_memory.h"

/* A stateless random number: the same on every rank for the same inputs. */
uint64_t test_hash(uint64_t a, uint64_t b, uint64_t c);

/* Fill `bytes` bytes with data that depends on (seed, rank) and the position:
 * noise for the tests that compare with the MPI library's result on a copy. */
void test_fill(void *buf, size_t bytes, uint64_t seed, int rank);

/* Elements from rank src to rank dst in a random layout of `key`: zero for a
 * fifth of the pairs, else 1 to 300.  test_pair_count(key, min, max) of a
 * pair gives symmetric counts. */
int test_pair_count(uint64_t key, int src, int dst);
/* counts[j] at displs[j], in elements, in a random order of the peers (of
 * key and rank) with gaps of 0 to 2 elements; returns the elements the
 * buffer needs. */
int test_place_regions(uint64_t key, int rank, int p, const int *counts, int *displs);

/* The value of option `name` in argv, whose options all take a value
 * ("--seed 5 --cases 12"); NULL if it is not there. */
const char *test_option(int argc, char **argv, const char *name);
/* The run's seed: --seed N, else the time; rank 0's on every rank. */
unsigned long long test_seed(int argc, char **argv, MPI_Comm comm);

/* 1 on every rank if `ok` is true on every rank of comm, else 0 on every rank. */
int test_agree(int ok, MPI_Comm comm);

/* Counts a case as passed if `ok` (the same on every rank), else as failed,
 * rank 0 printing "FAIL: p=P what". */
void test_count(int ok, const char *what, int *passed, int *failed, MPI_Comm comm);

/* Print "name (p=P): N passed, M failed" on rank 0; return the exit status
 * (0 when nothing failed).  The counts must be the same on every rank. */
int test_summary(const char *name, int passed, int failed, MPI_Comm comm);

/* A watchdog that turns a hang into a failure: test_watchdog(seconds, name,
 * rank) arms it (seconds = 0 disarms it).  If it is still armed when the
 * time is up, the rank prints each thread's last note and exits with 1,
 * which ends the whole job.  test_note(slot, ...) records what thread
 * `slot` (0..TEST_NOTE_SLOTS - 1) is about to do; test_last_note reads it. */
#define TEST_NOTE_SLOTS 8
void test_watchdog(int seconds, const char *name, int rank);
void test_note(int slot, const char *format, ...) __attribute__((format(printf, 2, 3)));
const char *test_last_note(int slot);

/* The library's algorithms of one kind, in its table's order, then auto:
 * fills out (room for max) and returns their number.  Inline, so that the
 * tests that do not link the library do not need it. */
static inline int test_algorithms_of_kind(AIP_Algorithm_kind kind, AIP_Algorithm *out, int max)
{
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind at;
    int n = 0;
    for (int i = 0; n < max - 1 && AIP_Algorithm_at(i, &algorithm, &at) == MPI_SUCCESS; i++)
        if (at == kind)
            out[n++] = algorithm;
    out[n++] = AIP_ALGORITHM_AUTO;
    return n;
}

/* Exit status automake's harness reads as "skipped". */
#define TEST_SKIP 77

#endif /* AIP_TEST_UTIL_H */
