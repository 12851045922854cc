/*
 * api.h - what the front ends offer inside the library besides the public
 * header: the calls of the PMPI layer (pmpi/).
 */
#ifndef AIP_API_H
#define AIP_API_H

#include <mpi.h>

#include "call/plan.h"
#include "pipeline/pipeline.h"

/* The front ends of the PMPI layer (pmpi/): MPI_Alltoall, MPI_Alltoallv and
 * MPI_Alltoallw with MPI_IN_PLACE, named `fn` in messages; they return AIP_DECLINED where
 * a datatype cannot be moved as bytes.  With persistent non-NULL they run nothing and
 * make the plan of the in-place persistent collective (MPI_Alltoall_init, ...) instead,
 * bound to buf. */
int aip_pmpi_alltoall(const char *fn, void *buf, int count, MPI_Datatype datatype,
                      MPI_Comm comm, aip_plan **persistent);
/* MPI_Ialltoall with MPI_IN_PLACE: the plan begun without waiting for the other ranks
 * (aip_plan_begin, which says what conclude decides), active, its exchange advanced by
 * AIP_Plan_test and AIP_Plan_wait. */
int aip_pmpi_ialltoall(const char *fn, void *buf, int count, MPI_Datatype datatype,
                       MPI_Comm comm, const aip_conclusion *conclude, aip_plan **plan);
int aip_pmpi_alltoall_oop(const char *fn, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm);
int aip_pmpi_alltoallv(const char *fn, void *buf, const int counts[], const int displs[],
                       MPI_Datatype datatype, MPI_Comm comm, aip_plan **persistent);
int aip_pmpi_alltoallw(const char *fn, void *buf, const int counts[], const int displs[],
                       const MPI_Datatype datatypes[], MPI_Comm comm, aip_plan **persistent);

#endif /* AIP_API_H */
