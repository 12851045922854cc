/*
 * naive_alltoallv.h - the simplest correct in-place MPI_Alltoallv with
 * bounded extra memory that we know: what the general in-place algorithm
 * (AIP_Alltoallv_general) must beat.  bench/alltoallv_bench times it as
 * "naive"; tests/mpi/naive_alltoallv_test checks it against MPI_Alltoallv.
 * naive_alltoallv.c says how it works and why it is correct.
 */
#ifndef NAIVE_ALLTOALLV_H
#define NAIVE_ALLTOALLV_H

#include <mpi.h>

/* The smallest aux buffer it uses, whatever it is given (budget 0 included). */
#define NAIVE_AUX_MIN 128LL

/*
 * The exchange of AIP_Alltoallv_general, in one buffer: this rank's message
 * to rank j is scounts[j] elements of `type` at sdispls[j] (in elements),
 * and j's message to it lands at rdispls[j], rcounts[j] elements, which must
 * equal what j sends.  Send regions must not overlap each other, nor receive
 * regions each other; a receive region may lie over any send regions.  The
 * buffer ends with the last region; bytes outside the receive regions are
 * undefined afterwards.  `type` must be contiguous without gaps (lower bound
 * 0, extent = size: MPI_BYTE, MPI_DOUBLE, contiguous types of them), else
 * MPI_ERR_TYPE before any communication.
 *
 * Extra memory: an aux buffer of max(aux_bytes, NAIVE_AUX_MIN) bytes and
 * O(p).  *rounds (unless NULL) gets the number of rounds it took.  Returns
 * MPI_SUCCESS or the error code of the MPI call that failed; aborts the job
 * when it cannot allocate its state, since the other ranks would wait.
 */
int naive_alltoallv(void *buf, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls, MPI_Datatype type, MPI_Comm comm, long long aux_bytes,
                    long long *rounds);

#endif /* NAIVE_ALLTOALLV_H */
