/*
 * request_completion.h - the PMPI layer's request tests (pmpi_persistent_test,
 * pmpi_ialltoall_test) complete arrays of requests, ours among MPI's, by
 * each of MPI's request functions in turn.
 */
#ifndef AIP_REQUEST_COMPLETION_H
#define AIP_REQUEST_COMPLETION_H

#include <mpi.h>

enum completion {
    BY_WAIT, BY_TEST, BY_WAITALL, BY_TESTALL, BY_WAITANY, BY_TESTANY, BY_WAITSOME,
    BY_TESTSOME, BY_GET_STATUS, COMPLETIONS
};
extern const char *const completion_name[COMPLETIONS];

/* Completes requests[0..n) (n <= 8) by `how` (BY_GET_STATUS: MPI_Request_get_status until
 * it says so, then MPI_Wait); 1 if each completed exactly once with MPI_SUCCESS, a last
 * MPI_Waitany or MPI_Waitsome found none active, and afterwards the persistent ones
 * (persistent[i]) kept their handles and the others are MPI_REQUEST_NULL. */
int complete_requests(MPI_Request *requests, int n, enum completion how, const int *persistent);

#endif /* AIP_REQUEST_COMPLETION_H */
