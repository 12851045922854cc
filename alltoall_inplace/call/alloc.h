/*
 * alloc.h - the one way the library allocates memory, with a hook that
 * makes a chosen allocation fail on purpose (AIP_FAULT_ALLOC, tunables.h).
 *
 * The library promises that running out of memory on one rank is an error
 * every rank returns alike, with the buffer untouched and nothing leaked.
 * Only a test that makes each allocation fail in turn can show that, so
 * every malloc and calloc of the library goes through aip_malloc and
 * aip_calloc.  Unarmed (the variable unset, which is read once per
 * process), they cost one well-predicted branch on top of malloc.
 */
#ifndef AIP_ALLOC_H
#define AIP_ALLOC_H

#include <stdatomic.h>
#include <stdlib.h>

/* AIP_FAULT_UNREAD until the first allocation reads the environment. */
enum { AIP_FAULT_UNREAD = 0, AIP_FAULT_OFF = 1, AIP_FAULT_ARMED = 2 };
extern _Atomic int aip_fault_state;

/* The armed path: read the environment once, count, fail when told. */
void *aip_fault_malloc(size_t bytes);
void *aip_fault_calloc(size_t count, size_t size);

static inline void *aip_malloc(size_t bytes)
{
    if (__builtin_expect(atomic_load_explicit(&aip_fault_state, memory_order_relaxed) !=
                             AIP_FAULT_OFF,
                         0))
        return aip_fault_malloc(bytes);
    return malloc(bytes);
}

static inline void *aip_calloc(size_t count, size_t size)
{
    if (__builtin_expect(atomic_load_explicit(&aip_fault_state, memory_order_relaxed) !=
                             AIP_FAULT_OFF,
                         0))
        return aip_fault_calloc(count, size);
    return calloc(count, size);
}

/* aip_malloc, adding what it allocated to *held (so that a plan can say
 * what it holds, AIP_Plan_bytes). */
static inline void *aip_malloc_held(size_t bytes, size_t *held)
{
    void *memory = aip_malloc(bytes);
    if (memory)
        *held += bytes;
    return memory;
}

/* For tests that walk the allocations within one process (tests/mpi/fault_test.c):
 * count the library's allocations from now on, and make the k-th of them
 * (1, 2, ...) fail on MPI_COMM_WORLD rank `rank`; k = 0 fails none. */
void aip_fault_alloc_arm(int rank, long k);
/* The allocations counted on this process since the last aip_fault_alloc_arm
 * (or since the first allocation, under AIP_FAULT_ALLOC). */
long aip_fault_alloc_count(void);

#endif /* AIP_ALLOC_H */
