/*
 * bcast_split_test.c - AIP_Bcast_rma on the two halves of MPI_COMM_WORLD at
 * the same time, against MPI_Bcast byte for byte.
 *
 * The halves come from one MPI_Comm_split, so their duplicates (and the
 * windows' own) may carry the same context id; each half makes its windows
 * while the other makes its own.  Open MPI 4.1's osc/rdma names a window's
 * shared-memory segment after the host, the job and that id alone, so two
 * windows made at once on the same host share one segment: puts then land
 * in the wrong memory or hang (bcast_windows.c).  Each repetition switches
 * the budget, so that the windows are made again, with nodes of one rank
 * (the windows between nodes are used) and of two, and sizes from one chunk
 * to many; the halves start each call together.  A hang is the time limit of
 * mpirun.sh.
 *
 *   bcast_split_test [--seed N] [--repeat R]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    const char *repeat_option = test_option(argc, argv, "--repeat");
    int repeat = repeat_option ? atoi(repeat_option) : 20, passed = 0, failed = 0;
    int world_rank, world_size, rank, size;
    MPI_Comm half;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    unsigned long long seed = test_seed(argc, argv, MPI_COMM_WORLD);
    int low = world_rank < world_size / 2;
    MPI_Comm_split(MPI_COMM_WORLD, low, world_rank, &half);
    MPI_Comm_set_errhandler(half, MPI_ERRORS_RETURN);
    MPI_Comm_rank(half, &rank);
    MPI_Comm_size(half, &size);

    static const int sizes[] = { 64, 1000, 5000 };
    enum { N_SIZES = sizeof sizes / sizeof sizes[0] };
    char *got = malloc(5000), *want = malloc(5000);
    for (int k = 0; k < repeat; k++) {
        AIP_Options options = AIP_OPTIONS_INIT;
        options.ranks_per_node = k % 4 < 3 ? 1 : 2;
        options.aux_bytes = k % 2 ? AIP_AUX_BYTES_DEFAULT : 3 * 64;
        for (int s = 0; s < N_SIZES; s++) {
            int bytes = sizes[s], root = (k + s) % size;
            test_fill(want, (size_t)bytes, seed + 100u * (unsigned)k + (unsigned)s,
                      world_rank);
            memcpy(got, want, (size_t)bytes);
            MPI_Bcast(want, bytes, MPI_BYTE, root, half);
            MPI_Barrier(MPI_COMM_WORLD); /* the halves start together */
            int err = AIP_Bcast_rma_opt(got, bytes, MPI_BYTE, root, half, &options);
            if (err != MPI_SUCCESS || memcmp(got, want, (size_t)bytes) != 0) {
                failed++;
                fprintf(stderr, "FAIL: half %d rank %d: repetition %d, nodes of %d, "
                        "budget %lld, %d bytes from root %d: %s\n", !low, rank, k,
                        options.ranks_per_node, options.aux_bytes, bytes, root,
                        err != MPI_SUCCESS ? "an error" : "wrong data");
            } else {
                passed++;
            }
        }
    }
    free(got);
    free(want);
    /* A case failed if it failed on any rank of either half. */
    int cases = passed + failed;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&half);
    int status = test_summary("bcast_split_test", cases - failed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
