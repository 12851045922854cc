/*
 * bcast_world_test.c - AIP_Bcast_rma on MPI_COMM_WORLD itself, and on a
 * duplicate the program never frees, then MPI_Finalize: the windows cached
 * on both must be freed while MPI still works (call/comm.c).  Under Open
 * MPI, a window freed when MPI_Finalize deletes MPI_COMM_WORLD's attributes
 * crashes every rank, after all the broadcasts were right; so the test is
 * the exit status as much as the data.
 *
 * Each communicator gets nodes of one rank (the windows between nodes are
 * made), of two and as MPI finds them, with two budgets (the windows are
 * replaced), every root, compared byte for byte with MPI_Bcast.
 *
 *   bcast_world_test [--seed N] [--free-dup 1]
 *
 * --free-dup 1 frees the duplicate before MPI_Finalize, for the sanitized
 * run: Open MPI leaks a communicator left to MPI_Finalize, which
 * LeakSanitizer would report against this program.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "test_util.h"

static int passed, failed;

/* Every root, a message of `bytes` bytes on comm, against MPI_Bcast. */
static void check(MPI_Comm comm, const char *name, int per_node, long long budget, int bytes,
                  unsigned long long seed)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    AIP_Options options = AIP_OPTIONS_INIT;
    options.ranks_per_node = per_node;
    options.aux_bytes = budget;
    char *got = malloc((size_t)bytes), *want = malloc((size_t)bytes);
    for (int root = 0; root < size; root++) {
        test_fill(want, (size_t)bytes, seed + (unsigned)root, rank);
        memcpy(got, want, (size_t)bytes);
        MPI_Bcast(want, bytes, MPI_BYTE, root, comm);
        int err = AIP_Bcast_rma_opt(got, bytes, MPI_BYTE, root, comm, &options);
        char what[160];
        snprintf(what, sizeof what, "%s, nodes of %d, budget %lld, %d bytes from root %d", name,
                 per_node, budget, bytes, root);
        test_count(test_agree(err == MPI_SUCCESS && memcmp(got, want, (size_t)bytes) == 0, comm),
                   what, &passed, &failed, comm);
    }
    free(got);
    free(want);
}

int main(int argc, char **argv)
{
    MPI_Comm kept; /* never freed: its windows go at MPI_Finalize, like MPI_COMM_WORLD's */

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned long long seed = test_seed(argc, argv, MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &kept);
    MPI_Comm_set_errhandler(kept, MPI_ERRORS_RETURN);

    /* Left cached: on MPI_COMM_WORLD the last, nodes as MPI finds them (here one
     * node: the shared-memory window alone); on the duplicate the first, nodes
     * of one rank (the window between nodes too). */
    static const int per_node[] = { 1, 2, 0 };
    for (int i = 0; i < 3; i++) {
        check(MPI_COMM_WORLD, "MPI_COMM_WORLD", per_node[i], 3 * 64, 1000, seed + 10u * i);
        check(MPI_COMM_WORLD, "MPI_COMM_WORLD", per_node[i], AIP_AUX_BYTES_DEFAULT, 200000,
              seed + 10u * i + 1);
        check(kept, "a duplicate left to MPI_Finalize", per_node[2 - i], 3 * 64, 1000,
              seed + 10u * i + 2);
    }
    int status = test_summary("bcast_world_test", passed, failed, MPI_COMM_WORLD);
    fflush(stdout);
    const char *free_dup = test_option(argc, argv, "--free-dup");
    if (free_dup && atoi(free_dup))
        MPI_Comm_free(&kept);
    MPI_Finalize();
    return status;
}
