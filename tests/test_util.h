/*
 * test_util.h - what the MPI tests share: reproducible random numbers,
 * memory readings and result reporting.
 */
#ifndef AIP_TEST_UTIL_H
#define AIP_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

/* A stateless random number: the same on every rank for the same inputs. */
uint64_t test_hash(uint64_t a, uint64_t b, uint64_t c);

/* Fill `bytes` bytes with data that depends on (seed, rank) and the position. */
void test_fill(void *buf, size_t bytes, uint64_t seed, int rank);

/* Peak and current resident memory of this process, in bytes (/proc/self/status). */
long long test_vm_hwm(void);
long long test_vm_rss(void);
/* Private writable virtual memory (VmData), what RLIMIT_DATA bounds, in bytes. */
long long test_vm_data(void);
/* Reset the peak to the current RSS (Linux >= 4.0); returns 0 on success. */
int test_reset_hwm(void);

/* Bytes of memory the machine could still give (MemAvailable), or -1. */
long long test_mem_available(void);

/* 1 on every rank if `ok` is true on every rank of comm, else 0 on every rank. */
int test_agree(int ok, MPI_Comm comm);

/* Print "name (p=P): N passed, M failed" on rank 0; return the exit status
 * (0 when nothing failed).  The counts must be the same on every rank. */
int test_summary(const char *name, int passed, int failed, MPI_Comm comm);

/* Exit status automake's harness reads as "skipped". */
#define TEST_SKIP 77

#endif /* AIP_TEST_UTIL_H */
