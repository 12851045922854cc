/*
 * blocking_testall.h - forced into the library's sources by smpi_sweep.sh
 * (smpicc -include): MPI_Testall becomes MPI_Waitall.
 *
 * Why: the library waits for its transfers with MPI_Testall and
 * sched_yield in a loop (exchange.c: polite on oversubscribed cores).  SMPI
 * charges every MPI_Test a simulated sleep (smpi/test, 100 us by default,
 * growing with a counter shared by all simulated ranks), so such a loop costs
 * hundreds of microseconds per step in simulated time, and with many ranks
 * the polls make the simulation itself crawl (64 ranks: 1.6 s, 128: 16 s of
 * real time for one 8-byte sweep point).  On a core of its own the loop
 * returns as soon as the transfers complete, which is what MPI_Waitall
 * gives in simulation.  Only valid where the caller tests until done, as
 * exchange.c does; a test whose failure the caller acts on would block here.
 */
#ifndef AIP_BLOCKING_TESTALL_H
#define AIP_BLOCKING_TESTALL_H

#include <mpi.h>

static inline int aip_blocking_testall(int count, MPI_Request requests[], int *done,
                                       MPI_Status statuses[])
{
    *done = 1;
    return MPI_Waitall(count, requests, statuses);
}
#define MPI_Testall(count, requests, done, statuses)                                           \
    aip_blocking_testall((count), (requests), (done), (statuses))

#endif
