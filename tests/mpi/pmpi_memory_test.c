/*
 * pmpi_memory_test - how much a program's in-place MPI_Alltoall of a large
 * buffer raises its peak memory (VmHWM), with or without the PMPI layer.
 * A plain MPI program: tests/mpi/pmpi.sh runs it under the layer, where the
 * growth must stay within the aux budget and a few MiB, and on MPI alone,
 * where Open MPI and MPICH take about a block (and the test checks that it
 * measures that, so that the bound above means something).
 *
 *   mpirun -n P pmpi_memory_test MIB [--persistent | --nonblocking]
 *                                [--at-most MIB | --at-least MIB]
 *
 * MIB per rank in p blocks of 64-bit elements, each checked by its value
 * after the exchange.  --persistent: the exchange is an in-place
 * MPI_Alltoall_init (Open MPI 4.1: MPIX_), MPI_Start and MPI_Wait, the
 * growth counted from before the init; --nonblocking: an in-place
 * MPI_Ialltoall and MPI_Wait.  Rank 0 prints the largest growth of
 * the ranks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../../common/exchange_data.h"
#include "../../common/mpi_persistent.h"
#include "../../common/proc_memory.h"

int main(int argc, char **argv)
{
    int rank, p;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int persistent = argc > 2 && strcmp(argv[2], "--persistent") == 0;
    int nonblocking = argc > 2 && strcmp(argv[2], "--nonblocking") == 0;
    int mode = persistent || nonblocking;
    char **bound_option = argv + 2 + mode;
    if (argc != 2 + mode && argc != 4 + mode) {
        if (rank == 0)
            fprintf(stderr, "usage: pmpi_memory_test MIB [--persistent | --nonblocking] "
                            "[--at-most MIB | --at-least MIB]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
#ifndef MPI_PERSISTENT
    if (persistent) {
        if (rank == 0)
            printf("pmpi_memory_test: this MPI has no persistent collectives\n");
        MPI_Finalize();
        return 77;
    }
#endif
    long long mib = atoll(argv[1]), bound = argc == 4 + mode ? atoll(bound_option[1]) : -1;
    int at_most = bound >= 0 && strcmp(bound_option[0], "--at-most") == 0;
    size_t count = ((size_t)mib << 20) / sizeof(element) / (size_t)p;
    element *buf = malloc(sizeof *buf * count * (size_t)p), small[64];
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    fill_send_blocks(buf, rank, p, count);

    /* MPI's and our first call set up what every later call reuses. */
    fill_send_blocks(small, rank, p, 1);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, small, 1, ELEMENT_MPI_TYPE, MPI_COMM_WORLD);
    proc_reset_peak();
    long long before = proc_status_bytes("VmHWM");
    int err;
    if (nonblocking) {
        MPI_Request request;
        err = MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, (int)count,
                            ELEMENT_MPI_TYPE, MPI_COMM_WORLD, &request);
        if (err == MPI_SUCCESS)
            err = MPI_Wait(&request, MPI_STATUS_IGNORE);
    } else if (!persistent)
        err = MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, (int)count, ELEMENT_MPI_TYPE,
                           MPI_COMM_WORLD);
#ifdef MPI_PERSISTENT
    else {
        MPI_Request request;
        err = MPI_PERSISTENT(Alltoall_init)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, (int)count, ELEMENT_MPI_TYPE,
                            MPI_COMM_WORLD, MPI_INFO_NULL, &request);
        if (err == MPI_SUCCESS && (err = MPI_Start(&request)) == MPI_SUCCESS)
            err = MPI_Wait(&request, MPI_STATUS_IGNORE);
        MPI_Request_free(&request);
    }
#endif
    long long growth = proc_status_bytes("VmHWM") - before;
    long long wrong = err == MPI_SUCCESS ? count_misplaced_blocks(buf, rank, p, count, NULL) : -1;

    long long largest_growth, most_wrong;
    MPI_Reduce(&growth, &largest_growth, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&wrong, &most_wrong, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    int status = 0;
    if (rank == 0) {
        double grown = largest_growth / 1048576.0;
        printf("pmpi_memory_test: %lld MiB in place%s on %d ranks (blocks of %.1f MiB): VmHWM "
               "grew by %.1f MiB at most",
               mib, persistent ? ", persistent" : nonblocking ? ", nonblocking" : "", p,
               (double)count * sizeof(element) / 1048576.0, grown);
        if (bound >= 0)
            printf(", expected %s %lld MiB", at_most ? "at most" : "at least", bound);
        printf("\n");
        if (most_wrong != 0) {
            printf("FAIL: %lld elements misplaced (-1: the call failed)\n", most_wrong);
            status = 1;
        } else if (bound >= 0 && (at_most ? grown > bound : grown < bound)) {
            printf("FAIL: the growth is not within the bound\n");
            status = 1;
        }
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(buf);
    MPI_Finalize();
    return status;
}
