/*
 * large_test - byte offsets are 64-bit: an in-place exchange of a buffer of
 * more than 4 GiB per rank, with blocks of more than 2 GiB (past INT_MAX
 * bytes, and past 2^32 bytes from the start of the buffer), is exact.
 * Verified element by element against the values each rank wrote; no
 * reference copy, so that two ranks fit in 10 GiB.  Skipped (exit 77) when
 * the machine has less memory available than the test needs.
 *
 *   large_test [MiB per block (2049)]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "alltoall_inplace.h"
#include "test_util.h"

int main(int argc, char **argv)
{
    int rank, size, skip;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t block_mib = argc > 1 ? strtoull(argv[1], NULL, 10) : 2049;
    size_t count = (block_mib << 20) / sizeof(element);
    size_t total = count * (size_t)size * sizeof(element);

    /* Rank 0 decides for all: every rank needs `total` bytes, plus slack. */
    skip = proc_mem_available() < (long long)(total * (size_t)size + ((size_t)1 << 30));
    MPI_Bcast(&skip, 1, MPI_INT, 0, MPI_COMM_WORLD);
    element *buf = skip ? NULL : malloc(total);
    skip = !test_agree(!skip && buf != NULL, MPI_COMM_WORLD);
    if (skip) {
        if (rank == 0)
            printf("large_test: SKIP, less than %zu MiB available for %d ranks\n",
                   (total * (size_t)size) >> 20, size);
        free(buf);
        MPI_Finalize();
        return TEST_SKIP;
    }

    fill_send_blocks(buf, rank, size, count);

    AIP_Options opt = AIP_OPTIONS_INIT;
    opt.algorithm = AIP_ALGORITHM_HSA;
    long long before = proc_status_bytes("VmHWM");
    int err = AIP_Alltoall_opt(buf, (int)count, ELEMENT_MPI_TYPE, MPI_COMM_WORLD, &opt);
    long long growth = proc_status_bytes("VmHWM") - before;

    int ok = err == MPI_SUCCESS;
    first_wrong wrong;
    if (ok && count_misplaced_blocks(buf, rank, size, count, &wrong) > 0) {
        fprintf(stderr, "rank %d: element %zu of block %d (byte %zu) is wrong\n", rank,
                wrong.index, wrong.source, (wrong.source * count + wrong.index) * sizeof(element));
        ok = 0;
    }
    if (rank == 0)
        printf("large_test: p=%d, %zu MiB per rank in blocks of %zu MiB; VmHWM +%.1f MiB\n",
               size, total >> 20, block_mib, growth / 1048576.0);
    free(buf);
    int status = test_summary("large_test", test_agree(ok, MPI_COMM_WORLD),
                              !test_agree(ok, MPI_COMM_WORLD), MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
