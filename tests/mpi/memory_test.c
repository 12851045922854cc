/*
 * memory_test - the extra memory of a call is bounded by its budget, not by
 * the message: with 256 MiB of data per rank and a 1 MiB budget, the peak
 * resident memory (VmHWM) may grow by less than 8 MiB during the call, for
 * every algorithm of the library's table, the node-aware ones included (on
 * nodes of k consecutive ranks; l, whose leaders cannot hold a node's data
 * in the budget, runs sa).
 * The exchanged data is verified too.
 *
 *   memory_test [MiB per rank (256)] [budget (1048576; or 1M, as AIP_AUX_BYTES)]
 *               [limit in MiB (8)] [ranks per node k (2)]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alltoall_inplace.h"
#include "call/parse_bytes.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    int rank, size, passed = 0, failed = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long long mib = argc > 1 ? atoll(argv[1]) : 256;
    long long budget = argc > 2 ? aip_parse_bytes(argv[2]) : 1 << 20;
    long long limit = (argc > 3 ? atoll(argv[3]) : 8) << 20;
    int ranks_per_node = argc > 4 ? atoi(argv[4]) : 2;

    size_t count = ((size_t)mib << 20) / sizeof(element) / (size_t)size; /* per block */
    element *buf = malloc(count * (size_t)size * sizeof *buf);
    if (!buf || count > INT32_MAX || budget < 0) {
        fprintf(stderr, "rank %d: cannot allocate %lld MiB\n", rank, mib);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    if (rank == 0)
        printf("memory_test: p=%d, %lld MiB per rank, budget %lld bytes, limit %lld MiB\n", size,
               mib, budget, limit >> 20);

    /* Every algorithm of the library's table that runs. */
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;
    for (int a = 0; AIP_Algorithm_at(a, &algorithm, &kind) == MPI_SUCCESS; a++) {
        if (kind == AIP_KIND_CHOICE)
            continue;
        AIP_Options opt = AIP_OPTIONS_INIT;
        opt.algorithm = algorithm;
        opt.aux_bytes = budget;
        opt.ranks_per_node = ranks_per_node;
        fill_send_blocks(buf, rank, size, count);
        /* Warm up MPI's buffers and our communicator: a small call, undone by a second. */
        AIP_Alltoall_opt(buf, 1, ELEMENT_MPI_TYPE, MPI_COMM_WORLD, &opt);
        AIP_Alltoall_opt(buf, 1, ELEMENT_MPI_TYPE, MPI_COMM_WORLD, &opt);

        MPI_Barrier(MPI_COMM_WORLD);
        int reset = proc_reset_peak();
        long long before = proc_status_bytes(reset ? "VmRSS" : "VmHWM");
        int err = AIP_Alltoall_opt(buf, (int)count, ELEMENT_MPI_TYPE, MPI_COMM_WORLD, &opt);
        long long growth = proc_status_bytes("VmHWM") - before;

        int ok = err == MPI_SUCCESS && growth < limit;
        first_wrong wrong;
        if (ok && count_misplaced_blocks(buf, rank, size, count, &wrong) > 0) {
            fprintf(stderr, "rank %d: element %zu of block %d is wrong\n", rank, wrong.index,
                    wrong.source);
            ok = 0;
        }
        long long max_growth = growth;
        MPI_Reduce(&growth, &max_growth, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0)
            printf("  %-9s VmHWM grew by %.2f MiB at most (peak %s)\n",
                   AIP_Algorithm_name(algorithm), max_growth / 1048576.0,
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
