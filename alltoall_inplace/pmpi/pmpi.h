/*
 * pmpi.h - the PMPI layer's C entry points, shared by its MPI_* symbols
 * (pmpi.c) and the Fortran ones of Open MPI (pmpi_fortran.c), so that both
 * reach the same code whatever order the dynamic linker found the symbols in.
 */
#ifndef AIP_PMPI_H
#define AIP_PMPI_H

#include <mpi.h>

int aip_layer_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int aip_layer_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);
int aip_layer_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm);

#endif /* AIP_PMPI_H */
