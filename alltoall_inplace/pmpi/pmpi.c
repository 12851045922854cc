/*
 * pmpi.c - liballtoall_inplace_pmpi: bounded-memory in-place all-to-all for
 * programs that call MPI, not us.
 *
 * Through MPI's profiling interface (MPI-3.1 Sect. 14.2) this library
 * defines MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw.  Preloaded
 * (LD_PRELOAD) or linked before the MPI library, it receives a program's
 * calls of them: those with MPI_IN_PLACE on an intracommunicator run ours
 * (AIP_Alltoall, AIP_Alltoallv, AIP_Alltoallw: extra memory the aux budget,
 * $AIP_AUX_BYTES, where Open MPI's and MPICH's in-place algorithms allocate
 * a block or a whole message per call); every other call goes to PMPI_*
 * unchanged.  Every other MPI function is the MPI library's own.
 *
 * The promise is MPI's semantics for these calls:
 *   - same results, zero counts and one rank included (our front ends take
 *     MPI's arguments as they are: counts and displacements in elements,
 *     Alltoallw's in bytes, any datatypes of equal signatures);
 *   - datatypes that our executor cannot move as bytes (gaps, padding) are
 *     MPI's business: the front end agrees on that with every rank, before
 *     any byte moves, and every rank then calls MPI's own collective
 *     (AIP_DECLINED), so no rank is left in a different algorithm;
 *   - errors are raised on the communicator's error handler and returned,
 *     as MPI does, with the same class on every rank; intercommunicators and
 *     MPI_COMM_NULL go to MPI, which reports them in its own words;
 *   - MPI calls that the library itself makes while it runs one of ours
 *     (its own out-of-place MPI_Alltoall of sizes, say) pass straight
 *     through: a thread-local flag, so threads of MPI_THREAD_MULTIPLE
 *     programs do not see each other's.
 * Out-of-place MPI_Alltoall runs ours only when asked ($AIP_PMPI_OUT_OF_PLACE,
 * tunables.h), and only with the same count and datatype on both sides:
 * AIP_Alltoall_oop lays out both buffers by one datatype.
 *
 * Fortran callers of MPICH reach these symbols (its bindings call MPI_*);
 * Open MPI's bindings call PMPI_* and get Fortran symbols of their own
 * (pmpi_fortran.c).  The large-count (_c) functions of MPI-4, the nonblocking
 * and persistent variants and mpi_f08's bindings are not intercepted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call/call.h"
#include "pmpi/pmpi.h"

/* ---- Settings (tunables.h) --------------------------------------------- */

enum {
#define SETTING_INDEX(field, env, fallback, help) SETTING_##field,
    AIP_PMPI_TUNABLES(SETTING_INDEX)
#undef SETTING_INDEX
        N_SETTINGS
};

static const struct {
    const char *env, *fallback, *help;
} settings[N_SETTINGS] = {
#define SETTING_ROW(field, env, fallback, help) { env, fallback, help },
    AIP_PMPI_TUNABLES(SETTING_ROW)
#undef SETTING_ROW
};

/* 0 or 1 as setting k says; -1 if it says something else. */
static int setting(int k)
{
    const char *value = getenv(settings[k].env);
    if (!value || !*value)
        value = settings[k].fallback;
    return strcmp(value, "0") == 0 ? 0 : strcmp(value, "1") == 0 ? 1 : -1;
}

/* ---- Which calls run ours ---------------------------------------------- */

static _Thread_local int inside_ours;

typedef enum route { TO_MPI, TO_OURS, TO_ERROR } route;

/* Whether a call on comm that setting k governs runs ours; TO_ERROR after
 * raising MPI_ERR_ARG (*err) if the setting is neither 0 nor 1. */
static route route_of(int k, MPI_Comm comm, const char *fn, int *err)
{
    int inter, on;

    if (inside_ours || comm == MPI_COMM_NULL)
        return TO_MPI;
    if ((on = setting(k)) < 0) {
        char message[512];
        snprintf(message, sizeof message, "%s=%s: must be 0 or 1 (%s)", settings[k].env,
                 getenv(settings[k].env), settings[k].help);
        *err = aip_raise(comm, MPI_ERR_ARG, fn, message);
        return TO_ERROR;
    }
    if (!on || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return TO_MPI;
    return TO_OURS;
}

/* After one of ours ran: err, or MPI's own call (run by the caller) if ours declined. */
static int declined(int err, const char *fn, MPI_Comm comm)
{
    int rank;

    if (err != AIP_DECLINED)
        return 0;
    if (aip_env_debug() && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
        fprintf(stderr,
                "alltoall_inplace: %s: MPI's own (a datatype is not contiguous bytes, or is "
                "MPI_DATATYPE_NULL at a zero count)\n",
                fn);
    return 1;
}

/* ---- The entry points ---------------------------------------------------- */

int aip_layer_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoall";
    int in_place = sendbuf == MPI_IN_PLACE, err = MPI_SUCCESS;

    /* AIP_Alltoall_oop lays out both buffers by one count and datatype */
    route to = in_place || (sendcount == recvcount && sendtype == recvtype)
                   ? route_of(in_place ? SETTING_in_place : SETTING_out_of_place, comm, fn, &err)
                   : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        inside_ours = 1;
        err = in_place ? aip_pmpi_alltoall(fn, recvbuf, recvcount, recvtype, comm)
                       : aip_pmpi_alltoall_oop(fn, sendbuf, recvbuf, recvcount, recvtype, comm);
        inside_ours = 0;
        if (!declined(err, fn, comm))
            return err;
    }
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int aip_layer_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallv";
    int err = MPI_SUCCESS;

    route to = sendbuf == MPI_IN_PLACE ? route_of(SETTING_in_place, comm, fn, &err) : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        inside_ours = 1;
        err = aip_pmpi_alltoallv(fn, recvbuf, recvcounts, rdispls, recvtype, comm);
        inside_ours = 0;
        if (!declined(err, fn, comm))
            return err;
    }
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

int aip_layer_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallw";
    int err = MPI_SUCCESS;

    route to = sendbuf == MPI_IN_PLACE ? route_of(SETTING_in_place, comm, fn, &err) : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        inside_ours = 1;
        err = aip_pmpi_alltoallw(fn, recvbuf, recvcounts, rdispls, recvtypes, comm);
        inside_ours = 0;
        if (!declined(err, fn, comm))
            return err;
    }
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return aip_layer_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return aip_layer_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                               rdispls, recvtype, comm);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return aip_layer_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm);
}
