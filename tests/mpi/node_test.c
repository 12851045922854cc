/*
 * node_test - the node-aware exchanges (sa, l, rd, and auto, which picks
 * among them) give, byte for byte, what the MPI library's out-of-place
 * MPI_Alltoall gives on a copy of the input, in place (AIP_Alltoall) and out
 * of place (AIP_Alltoall_oop, whose send buffer must not change).
 *
 * Nodes: those MPI_COMM_TYPE_SHARED finds (one here, one per host on the
 * namespace test bed) and nodes of k = 1, 2, 3, 4 consecutive ranks
 * (options.ranks_per_node), so that p = 1..9 covers equal nodes (p = 8,
 * k = 4: 2 x 4), unequal ones (p = 9, k = 4: 4 + 4 + 1, where the
 * algorithms fall back to hsa) and the degenerate shapes (k = 1, k >= p).
 * Block sizes from 0 to more than the budget, budgets from the minimum
 * (chunks and permutation pieces smaller than a block; l does not fit and
 * runs sa) to 1 MiB, element types MPI_BYTE, MPI_DOUBLE, three contiguous
 * ints, and an int resized to 8 bytes (blocks of one element with a gap
 * after it: hsa, which keeps the gaps).
 *
 *   node_test [--seed N] [--default-nodes] [--algorithm NAME]
 *   --default-nodes  only the default grouping: MPI_COMM_TYPE_SHARED, or
 *                    $AIP_RANKS_PER_NODE if set (the test bed, node.sh)
 *   --algorithm      only this algorithm, in the default grouping: the other
 *                    AIP_Alltoall-only one, hypercube (hypercube.sh), whose
 *                    stages do not depend on nodes
 * Failures print the seed and the case, to replay them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alltoall_inplace.h"
#include "test_util.h"

typedef struct test_type {
    const char *name;
    MPI_Datatype type;
    int size, extent;
} test_type;

/* One call: returns 1 if it gave what MPI_Alltoall gives. */
static int check_case(int rank, int size, const AIP_Options *opt, int oop, const test_type *t,
                      int count, uint64_t seed)
{
    size_t bytes = (size_t)size * (size_t)count * (size_t)t->extent + 1; /* never 0 */
    char *buf = malloc(bytes), *send = malloc(bytes), *expected = malloc(bytes);
    int ok = buf && send && expected, err;

    if (!ok) {
        fprintf(stderr, "rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    test_fill(send, bytes, seed, rank);
    if (oop) /* recvbuf's own bytes, which its gaps must keep */
        test_fill(buf, bytes, seed + 1, rank);
    else
        memcpy(buf, send, bytes);
    memcpy(expected, buf, bytes);
    MPI_Alltoall(send, count, t->type, expected, count, t->type, MPI_COMM_WORLD);

    if (oop) {
        char *unchanged = malloc(bytes);
        memcpy(unchanged, send, bytes);
        err = AIP_Alltoall_oop_opt(send, buf, count, t->type, MPI_COMM_WORLD, opt);
        ok = memcmp(unchanged, send, bytes) == 0;
        free(unchanged);
    } else {
        err = AIP_Alltoall_opt(buf, count, t->type, MPI_COMM_WORLD, opt);
    }
    ok = ok && err == MPI_SUCCESS && memcmp(buf, expected, bytes) == 0;
    free(buf);
    free(send);
    free(expected);
    return ok;
}

int main(int argc, char **argv)
{
    int rank, size, passed = 0, failed = 0, default_nodes = 0;
    AIP_Algorithm only = AIP_ALGORITHM_DEFAULT;
    unsigned long long seed = (unsigned long long)time(NULL);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--default-nodes") == 0)
            default_nodes = 1;
        else if (strcmp(argv[i], "--algorithm") == 0 && i + 1 < argc &&
                 AIP_Algorithm_from_name(argv[++i], &only) == MPI_SUCCESS)
            default_nodes = 1;
        else {
            fprintf(stderr, "node_test: unknown argument '%s'\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);

    MPI_Datatype three_ints, gappy_int;
    MPI_Type_contiguous(3, MPI_INT, &three_ints);
    MPI_Type_create_resized(MPI_INT, 0, 8, &gappy_int);
    MPI_Type_commit(&three_ints);
    MPI_Type_commit(&gappy_int);
    const test_type types[] = { { "MPI_BYTE", MPI_BYTE, 1, 1 },
                                { "MPI_DOUBLE", MPI_DOUBLE, 8, 8 },
                                { "3 x MPI_INT", three_ints, 12, 12 },
                                { "MPI_INT resized to 8", gappy_int, 4, 8 } };
    /* The node-aware rows of the library's table, and auto. */
    AIP_Algorithm node_aware[16];
    size_t n_node_aware = (size_t)test_algorithms_of_kind(AIP_KIND_NODE_AWARE, node_aware, 16);
    const AIP_Algorithm *algorithms = only != AIP_ALGORITHM_DEFAULT ? &only : node_aware;
    size_t n_algorithms = only != AIP_ALGORITHM_DEFAULT ? 1 : n_node_aware;
    const int counts[] = { 0, 1, 5, 64, 700, 6000 };
    const long long budgets[] = { 0, 1024, 1 << 20 };
    const int ranks_per_node[] = { 0, 1, 2, 3, 4 };
    int n_groupings = default_nodes ? 1 : 5;

    for (int g = 0; g < n_groupings; g++)
        for (size_t a = 0; a < n_algorithms; a++)
            for (int oop = 0; oop < 2; oop++)
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    /* types and budgets rotate over the cases: all meet every algorithm */
                    size_t i = (size_t)g * 48 + a * 12 + (size_t)oop * 6 + c;
                    const test_type *t = &types[i % 4];
                    int count = t->extent == t->size ? counts[c] : counts[c] > 0; /* gaps: 1 element */
                    AIP_Options opt = AIP_OPTIONS_INIT;
                    opt.algorithm = algorithms[a];
                    opt.aux_bytes = budgets[(i / 4) % 3];
                    opt.ranks_per_node = ranks_per_node[g];
                    uint64_t case_seed = test_hash(seed, i, 0);
                    int ok = check_case(rank, size, &opt, oop, t, count, case_seed);
                    if (test_agree(ok, MPI_COMM_WORLD)) {
                        passed++;
                    } else {
                        failed++;
                        if (rank == 0)
                            fprintf(stderr,
                                    "node_test: FAILED p=%d seed=%llu: %s %s, nodes of %d "
                                    "(0 = shared memory), %d x %s, budget %lld\n",
                                    size, seed, AIP_Algorithm_name(opt.algorithm),
                                    oop ? "out of place" : "in place", opt.ranks_per_node,
                                    count, t->name, opt.aux_bytes);
                    }
                }
    MPI_Type_free(&three_ints);
    MPI_Type_free(&gappy_int);
    int status = test_summary("node_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
