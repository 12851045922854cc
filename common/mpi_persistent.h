/*
 * mpi_persistent.h - MPI-4's persistent collectives where the MPI has them:
 * MPI_PERSISTENT(Alltoall_init) is MPI_Alltoall_init (MPI 4, MPICH 4.0),
 * or MPIX_Alltoall_init (Open MPI 4.1's pcollreq extension); undefined
 * where neither exists.  For the benchmarks and tests that call them as a
 * program would (the PMPI layer's own list is in pmpi_requests.c).
 */
#ifndef AIP_MPI_PERSISTENT_H
#define AIP_MPI_PERSISTENT_H

#include <mpi.h>
#if MPI_VERSION >= 4
#define MPI_PERSISTENT(name) MPI_##name
#elif defined(OPEN_MPI)
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define MPI_PERSISTENT(name) MPIX_##name
#endif
#endif

#endif /* AIP_MPI_PERSISTENT_H */
