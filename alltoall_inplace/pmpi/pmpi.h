/*
 * pmpi.h - the PMPI layer's C entry points, shared by its MPI_* symbols
 * (pmpi.c) and the Fortran ones of Open MPI (pmpi_fortran.c), so that both
 * reach the same code whatever order the dynamic linker found the symbols in.
 */
#ifndef AIP_PMPI_H
#define AIP_PMPI_H

#include <mpi.h>

/* Set while the library runs one of ours, in this thread: the MPI calls it makes itself
 * then pass straight to MPI. */
extern _Thread_local int aip_layer_inside_ours;

typedef enum route { TO_MPI, TO_OURS, TO_ERROR } route;

/* Whether an in-place call on comm runs ours ($AIP_PMPI_IN_PLACE, agreed by every rank);
 * TO_ERROR with *err raised on every rank where the ranks' settings are bad or differ. */
route aip_layer_route_in_place(MPI_Comm comm, const char *fn, int *err);
/* MPI_Ialltoall's route, decided without waiting for the other ranks: as
 * aip_layer_route_in_place where comm's settings are agreed; where their agreement is
 * under way (an MPI_Iallreduce, begun at comm's first such call and cached on comm),
 * TO_OURS with *pending, a reference the caller releases: ours begins, and
 * aip_layer_pending_route decides once the call's own agreement is in whether it runs
 * (MPI_SUCCESS), MPI's semantics do (AIP_DECLINED: the setting is 0) or the settings are
 * an error (MPI_ERR_ARG, its message in call->message). */
typedef struct pending_settings aip_pending_settings;
struct aip_call;
route aip_layer_route_nonblocking(MPI_Comm comm, const char *fn, int *err,
                                  aip_pending_settings **pending);
int aip_layer_pending_route(aip_pending_settings *pending, struct aip_call *call);
void aip_layer_pending_release(aip_pending_settings *pending);
/* After one of ours ran: 0 (err is the call's result), or 1 where ours declined and the
 * caller runs MPI's own (said on rank 0 under AIP_DEBUG). */
int aip_layer_declined(int err, const char *fn, MPI_Comm comm);

int aip_layer_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int aip_layer_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int aip_layer_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

#endif /* AIP_PMPI_H */
