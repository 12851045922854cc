/*
 * memory_test - the extra memory of a call is bounded by its budget, not by
 * the message: with 256 MiB of data per rank and a 1 MiB budget, the peak
 * resident memory (VmHWM) may grow by less than 8 MiB during the call, for
 * every algorithm, the node-aware ones included (on nodes of k consecutive
 * ranks; l, whose leaders cannot hold a node's data in the budget, runs sa).
 * The exchanged data is verified too.
 *
 *   memory_test [MiB per rank (256)] [budget in bytes (1048576)] [limit in MiB (8)]
 *               [ranks per node k (2)]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alltoall_inplace.h"
#include "test_util.h"

/* Element k of the block rank `from` sends to rank `to`. */
static uint64_t element(int from, int to, size_t k)
{
    return (uint64_t)from << 48 | (uint64_t)to << 32 | (uint64_t)k;
}

int main(int argc, char **argv)
{
    int rank, size, passed = 0, failed = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long mib = argc > 1 ? atoll(argv[1]) : 256;
    long long budget = argc > 2 ? atoll(argv[2]) : 1 << 20;
    long long limit = (argc > 3 ? atoll(argv[3]) : 8) << 20;
    int ranks_per_node = argc > 4 ? atoi(argv[4]) : 2;

    size_t count = ((size_t)mib << 20) / sizeof(uint64_t) / (size_t)size; /* per block */
    uint64_t *buf = malloc(count * (size_t)size * sizeof *buf);
    if (!buf || count > INT32_MAX) {
        fprintf(stderr, "rank %d: cannot allocate %lld MiB\n", rank, mib);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    if (rank == 0)
        printf("memory_test: p=%d, %lld MiB per rank, budget %lld bytes, limit %lld MiB\n", size,
               mib, budget, limit >> 20);

    const AIP_Algorithm algorithms[] = { AIP_ALGORITHM_MPICH, AIP_ALGORITHM_LSA,
                                         AIP_ALGORITHM_HSA,   AIP_ALGORITHM_SA,
                                         AIP_ALGORITHM_RD,    AIP_ALGORITHM_L };
    for (size_t a = 0; a < sizeof algorithms / sizeof algorithms[0]; a++) {
        AIP_Options opt = AIP_OPTIONS_INIT;
        opt.algorithm = algorithms[a];
        opt.aux_bytes = budget;
        opt.ranks_per_node = ranks_per_node;
        for (int j = 0; j < size; j++)
            for (size_t k = 0; k < count; k++)
                buf[j * count + k] = element(rank, j, k);
        /* Warm up MPI's buffers and our communicator: a small call, undone by a second. */
        AIP_Alltoall_opt(buf, 1, MPI_UINT64_T, MPI_COMM_WORLD, &opt);
        AIP_Alltoall_opt(buf, 1, MPI_UINT64_T, MPI_COMM_WORLD, &opt);

        MPI_Barrier(MPI_COMM_WORLD);
        int reset = test_reset_hwm() == 0;
        long long before = reset ? test_vm_rss() : test_vm_hwm();
        int err = AIP_Alltoall_opt(buf, (int)count, MPI_UINT64_T, MPI_COMM_WORLD, &opt);
        long long growth = test_vm_hwm() - before;

        int ok = err == MPI_SUCCESS && growth < limit;
        for (int j = 0; ok && j < size; j++)
            for (size_t k = 0; k < count; k++)
                if (buf[j * count + k] != element(j, rank, k)) {
                    fprintf(stderr, "rank %d: element %zu of block %d is wrong\n", rank, k, j);
                    ok = 0;
                    break;
                }
        long long max_growth = growth;
        MPI_Reduce(&growth, &max_growth, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("  %-5s VmHWM grew by %.2f MiB at most (peak %s)\n",
                   AIP_Algorithm_name(algorithms[a]), max_growth / 1048576.0,
                   reset ? "reset before the call" : "not resettable here: upper bound");
        if (test_agree(ok, MPI_COMM_WORLD))
            passed++;
        else
            failed++;
    }
    free(buf);
    int status = test_summary("memory_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
