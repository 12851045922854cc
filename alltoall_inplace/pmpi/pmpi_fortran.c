/*
 * pmpi_fortran.c - the PMPI layer for Fortran programs of Open MPI.
 *
 * Open MPI's Fortran bindings (mpif.h and `use mpi`: mpi_alltoall_ and its
 * other spellings in libmpi_mpifh) call PMPI_Alltoall, so a program's
 * Fortran calls never reach the MPI_Alltoall of pmpi.c.  This file defines
 * those Fortran symbols too: preloaded, they come first, convert the
 * handles and MPI's Fortran sentinels to C, and enter the same code as C
 * callers (pmpi.h).  MPICH's bindings call MPI_Alltoall itself and need
 * nothing here.
 *
 * The sentinels are the addresses of Open MPI's common blocks
 * (mpi_fortran_in_place_ and mpi_fortran_bottom_ for gfortran, under four
 * spellings as Open MPI's own bindings compare them).  They are looked up
 * once in the process's global scope, the scope the program's references
 * bind to, so whichever object holds the common block, we compare with the
 * address the program passes.  mpi_f08's bindings (mpi_alltoall_f08_, with
 * their own sentinels) are not covered.
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <mpi.h>

#ifdef OPEN_MPI

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "pmpi/pmpi.h"

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are passed as C ints");

#define SPELLINGS 4
static void *in_place[SPELLINGS], *bottom[SPELLINGS];
static pthread_once_t sentinels_once = PTHREAD_ONCE_INIT;

static void find_sentinels(void)
{
    static const char *const in_place_names[SPELLINGS] = {
        "mpi_fortran_in_place", "mpi_fortran_in_place_", "mpi_fortran_in_place__",
        "MPI_FORTRAN_IN_PLACE"
    };
    static const char *const bottom_names[SPELLINGS] = {
        "mpi_fortran_bottom", "mpi_fortran_bottom_", "mpi_fortran_bottom__",
        "MPI_FORTRAN_BOTTOM"
    };
    for (int i = 0; i < SPELLINGS; i++) {
        in_place[i] = dlsym(RTLD_DEFAULT, in_place_names[i]);
        bottom[i] = dlsym(RTLD_DEFAULT, bottom_names[i]);
    }
}

static int is_one_of(const void *address, void *const sentinels[SPELLINGS])
{
    for (int i = 0; i < SPELLINGS; i++)
        if (sentinels[i] && address == sentinels[i])
            return 1;
    return 0;
}

/* A Fortran buffer argument as C sees it. */
static void *c_buffer(void *address)
{
    pthread_once(&sentinels_once, find_sentinels);
    if (is_one_of(address, in_place))
        return MPI_IN_PLACE;
    if (is_one_of(address, bottom))
        return MPI_BOTTOM;
    return address;
}

/* An array of n Fortran datatype handles in C; NULL if it cannot be allocated. */
static MPI_Datatype *c_types(const MPI_Fint *types, int n)
{
    MPI_Datatype *converted = malloc(sizeof *converted * (size_t)(n > 0 ? n : 1));
    for (int i = 0; converted && i < n; i++)
        converted[i] = MPI_Type_f2c(types[i]);
    return converted;
}

static void fortran_alltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                             void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                             MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)aip_layer_alltoall(c_buffer(sendbuf), *sendcount,
                                         MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                         *recvcount, MPI_Type_f2c(*recvtype),
                                         MPI_Comm_f2c(*comm));
}

static void fortran_alltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                              MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcounts,
                              MPI_Fint *rdispls, MPI_Fint *recvtype, MPI_Fint *comm,
                              MPI_Fint *ierr)
{
    *ierr = (MPI_Fint)aip_layer_alltoallv(c_buffer(sendbuf), sendcounts, sdispls,
                                          MPI_Type_f2c(*sendtype), c_buffer(recvbuf),
                                          recvcounts, rdispls, MPI_Type_f2c(*recvtype),
                                          MPI_Comm_f2c(*comm));
}

static void fortran_alltoallw(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                              MPI_Fint *sendtypes, void *recvbuf, MPI_Fint *recvcounts,
                              MPI_Fint *rdispls, MPI_Fint *recvtypes, MPI_Fint *comm,
                              MPI_Fint *ierr)
{
    MPI_Comm c_comm = MPI_Comm_f2c(*comm);
    void *c_sendbuf = c_buffer(sendbuf);
    MPI_Datatype *c_sendtypes = NULL, *c_recvtypes;
    int size, inter;

    /* Only the datatypes are per peer, one per rank of the group the call sends to and
     * receives from: on an intercommunicator the remote group, whose size need not be the
     * local one (as MPI's own binding sizes them); MPI_IN_PLACE leaves sendtypes unread. */
    if ((*ierr = (MPI_Fint)MPI_Comm_test_inter(c_comm, &inter)) != MPI_SUCCESS ||
        (*ierr = (MPI_Fint)(inter ? MPI_Comm_remote_size(c_comm, &size)
                                  : MPI_Comm_size(c_comm, &size))) != MPI_SUCCESS)
        return;
    c_recvtypes = c_types(recvtypes, size);
    if (c_sendbuf != MPI_IN_PLACE)
        c_sendtypes = c_types(sendtypes, size);
    if (!c_recvtypes || (c_sendbuf != MPI_IN_PLACE && !c_sendtypes)) {
        MPI_Comm_call_errhandler(c_comm, MPI_ERR_NO_MEM);
        *ierr = MPI_ERR_NO_MEM;
    } else {
        *ierr = (MPI_Fint)aip_layer_alltoallw(c_sendbuf, sendcounts, sdispls, c_sendtypes,
                                              c_buffer(recvbuf), recvcounts, rdispls,
                                              c_recvtypes, c_comm);
    }
    free(c_sendtypes);
    free(c_recvtypes);
}

/* gfortran's spelling and the others Open MPI's own bindings export. */
#define FORTRAN_SYMBOLS(impl, lower, upper)                                    \
    extern __typeof__(impl) lower __attribute__((alias(#impl), visibility("default"))); \
    extern __typeof__(impl) lower##_ __attribute__((alias(#impl), visibility("default"))); \
    extern __typeof__(impl) lower##__ __attribute__((alias(#impl), visibility("default"))); \
    extern __typeof__(impl) upper __attribute__((alias(#impl), visibility("default")));

FORTRAN_SYMBOLS(fortran_alltoall, mpi_alltoall, MPI_ALLTOALL)
FORTRAN_SYMBOLS(fortran_alltoallv, mpi_alltoallv, MPI_ALLTOALLV)
FORTRAN_SYMBOLS(fortran_alltoallw, mpi_alltoallw, MPI_ALLTOALLW)

#endif /* OPEN_MPI */
