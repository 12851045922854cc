/*
 * alloc.c - the armed path of the library's allocator (alloc.h): counting
 * the allocations and failing the one AIP_FAULT_ALLOC, or a test through
 * aip_fault_alloc_arm, names.
 *
 *   AIP_FAULT_ALLOC=count   each rank prints at exit how many allocations the
 *                           library made on it (to size a walk over them)
 *   AIP_FAULT_ALLOC=r:k     the k-th allocation on MPI_COMM_WORLD rank r fails
 *
 * The variable is read once per process, at the first allocation.  The
 * rank is asked of MPI only once MPI is initialised (the index sets of the
 * general algorithm also run in MPI-free simulations, as rank 0).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "call/alloc.h"
#include "tunables.h"

#define FAULT_HELP(field, env, fallback, help)                                                \
    __attribute__((unused)) static const char *const help_##field = env ": " help;
AIP_ENV_TUNABLES(FAULT_HELP)
#undef FAULT_HELP

_Atomic int aip_fault_state = AIP_FAULT_UNREAD;

static pthread_once_t read_once = PTHREAD_ONCE_INIT;
static _Atomic long counted;  /* allocations since the count was last reset */
static int failing_rank = -1; /* the rank whose allocation fails; -1: none */
static long failing_index;    /* which one, counted from 1 */
static int world_rank = -1;   /* learnt once MPI is initialised */

/* This process's rank, or -1 while MPI cannot say (0 once it is known not to run). */
static int my_rank(void)
{
    int initialized = 0, finalized = 0;

    if (world_rank >= 0)
        return world_rank;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    return initialized ? world_rank : 0;
}

static void report_count(void)
{
    fprintf(stderr, "alltoall_inplace: AIP_FAULT_ALLOC=count: rank %d: %ld allocations\n",
            world_rank, atomic_load(&counted));
}

static void read_environment(void)
{
    const char *value = getenv(AIP_FAULT_ALLOC_ENV);
    int rank;
    long k;
    char end;

    if (!value || !*value) {
        atomic_store(&aip_fault_state, AIP_FAULT_OFF);
        return;
    }
    if (strcmp(value, "count") == 0) {
        my_rank(); /* for the report, which comes after MPI_Finalize */
        atexit(report_count);
    } else if (sscanf(value, "%d:%ld%c", &rank, &k, &end) == 2 && rank >= 0 && k > 0) {
        failing_rank = rank;
        failing_index = k;
    } else {
        fprintf(stderr, "alltoall_inplace: ignoring \"%s\"; %s\n", value, help_fault_alloc);
        atomic_store(&aip_fault_state, AIP_FAULT_OFF);
        return;
    }
    atomic_store(&aip_fault_state, AIP_FAULT_ARMED);
}

/* Whether this allocation is the one to fail; counts it. */
static int fails_now(void)
{
    pthread_once(&read_once, read_environment);
    if (atomic_load(&aip_fault_state) != AIP_FAULT_ARMED)
        return 0;
    long index = atomic_fetch_add(&counted, 1) + 1;
    return failing_rank >= 0 && index == failing_index && my_rank() == failing_rank;
}

void *aip_fault_malloc(size_t bytes)
{
    return fails_now() ? NULL : malloc(bytes);
}

void *aip_fault_calloc(size_t count, size_t size)
{
    return fails_now() ? NULL : calloc(count, size);
}

void aip_fault_alloc_arm(int rank, long k)
{
    pthread_once(&read_once, read_environment);
    failing_rank = k > 0 ? rank : -1;
    failing_index = k;
    atomic_store(&counted, 0);
    atomic_store(&aip_fault_state, AIP_FAULT_ARMED);
}

long aip_fault_alloc_count(void)
{
    return atomic_load(&counted);
}
