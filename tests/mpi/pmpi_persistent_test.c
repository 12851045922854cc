/*
 * pmpi_persistent_test - a plain MPI program's in-place persistent
 * all-to-all (MPI_Alltoall_init, MPI_Alltoallv_init, MPI_Alltoallw_init; on
 * Open MPI 4.1 the MPIX_ ones), run on MPI alone and under the PMPI layer
 * (pmpi.sh, which checks from AIP_DEBUG that ours ran).
 *
 * Each round starts the requests, exchanges a ring message meanwhile, and
 * completes them with one of MPI's request functions in turn (MPI_Wait,
 * MPI_Test, MPI_Waitall, MPI_Testall, MPI_Waitany, MPI_Testany,
 * MPI_Waitsome, MPI_Testsome, MPI_Request_get_status), the ring's requests
 * in the same array; every result is compared byte for byte with MPI's
 * out-of-place collective on a copy.  Two requests are in flight at once on
 * two communicators, started by MPI_Startall.  A gapped datatype (declined
 * by the layer to MPI's own) must give MPI's result too.  With --layer, the
 * rules: MPI_Start on an active request and MPI_Request_free or MPI_Cancel
 * on an exchanging one are MPI_ERR_REQUEST, and the exchange goes on; a
 * NULL request is MPI_ERR_ARG.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../../common/mpi_persistent.h"
#include "../test_util.h"
#include "request_completion.h"

#ifndef MPI_PERSISTENT
int main(void)
{
    printf("pmpi_persistent_test: this MPI has no persistent collectives\n");
    return TEST_SKIP;
}
#else

static int passed, failed;
static uint64_t seed;
static int layer; /* --layer: the PMPI layer is preloaded */

/* The ring messages of a round: posted into requests[1] and requests[3]. */
static void post_ring(MPI_Request *requests, int *in, int *out, int round)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    *out = rank * 1000 + round;
    MPI_Irecv(in, 1, MPI_INT, (rank + p - 1) % p, 7, MPI_COMM_WORLD, &requests[1]);
    MPI_Isend(out, 1, MPI_INT, (rank + 1) % p, 7, MPI_COMM_WORLD, &requests[3]);
}

static int ring_ok(int in, int round)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return in == (rank + p - 1) % p * 1000 + round;
}

/* In-place MPI_Alltoall_init on world and MPI_Alltoallv_init (random counts in random
 * places) on a duplicate, both in flight each round, completed by every function in turn. */
static void rounds_case(int count, int rounds)
{
    MPI_Comm dup;
    int rank, p, ring_in = -1, ring_out;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);

    size_t n = (size_t)count * p;
    int *buf = malloc(n * sizeof *buf), *sent = malloc(n * sizeof *buf),
        *expected = malloc(n * sizeof *buf);
    int *counts = malloc((size_t)p * sizeof *counts), *displs = malloc((size_t)p * sizeof *displs);
    for (int j = 0; j < p; j++)
        counts[j] = test_pair_count(seed, rank < j ? rank : j, rank < j ? j : rank);
    size_t vn = (size_t)test_place_regions(seed, rank, p, counts, displs);
    int *vbuf = malloc((vn + 1) * sizeof *vbuf), *vsent = malloc((vn + 1) * sizeof *vbuf),
        *vexpected = malloc((vn + 1) * sizeof *vbuf);

    MPI_Request requests[4]; /* ours at 0 and 2, the ring's at 1 and 3 */
    MPI_Request alltoall, alltoallv;
    MPI_PERSISTENT(Alltoall_init)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, MPI_INT,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &alltoall);
    MPI_PERSISTENT(Alltoallv_init)(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, vbuf, counts, displs,
                               MPI_INT, dup, MPI_INFO_NULL, &alltoallv);
    for (int round = 0; round < rounds; round++) {
        enum completion how = (enum completion)(round % COMPLETIONS);
#ifdef MPICH
        /* MPICH 4.0.2's own persistent collective requests, once complete, come back from
         * MPI_Waitany and MPI_Testany again and again, fail MPI_Waitsome and MPI_Testsome,
         * and now and then make MPI_Testall return MPI_ERR_IN_STATUS with every status
         * MPI_SUCCESS: on MPI alone those five are left out (the layer's requests take
         * them all) */
        if (!layer && how != BY_WAIT && how != BY_TEST && how != BY_WAITALL &&
            how != BY_GET_STATUS)
            how = BY_WAITALL;
#endif
        test_fill(sent, n * sizeof *buf, seed + (uint64_t)round, rank);
        test_fill(vsent, vn * sizeof *vbuf, seed + 1000 + (uint64_t)round, rank);
        memcpy(buf, sent, n * sizeof *buf);
        memcpy(vbuf, vsent, vn * sizeof *vbuf);
        memcpy(vexpected, vsent, vn * sizeof *vbuf); /* the gaps stay as they were */
        MPI_Alltoall(sent, count, MPI_INT, expected, count, MPI_INT, MPI_COMM_WORLD);
        MPI_Alltoallv(vsent, counts, displs, MPI_INT, vexpected, counts, displs, MPI_INT, dup);

        requests[0] = alltoall;
        requests[2] = alltoallv;
        if (round % 2) {
            MPI_Start(&requests[0]);
            MPI_Start(&requests[2]);
        } else {
            MPI_Request both[2] = { alltoall, alltoallv };
            MPI_Startall(2, both);
        }
        post_ring(requests, &ring_in, &ring_out, round);
        static const int ours_persistent[4] = { 1, 0, 1, 0 }; /* the ring's are freed */
        int ok = complete_requests(requests, 4, how, ours_persistent);
        alltoall = requests[0];
        alltoallv = requests[2];
        ok &= memcmp(buf, expected, n * sizeof *buf) == 0 &&
              memcmp(vbuf, vexpected, vn * sizeof *vbuf) == 0 && ring_ok(ring_in, round);
        char what[160];
        snprintf(what, sizeof what, "round %d: MPI_Alltoall_init (%d ints) and _v, completed by %s",
                 round, count, completion_name[how]);
        test_count(ok, what, &passed, &failed, MPI_COMM_WORLD);
    }
    test_count(MPI_Request_free(&alltoall) == MPI_SUCCESS && alltoall == MPI_REQUEST_NULL &&
                   MPI_Request_free(&alltoallv) == MPI_SUCCESS,
               "MPI_Request_free of both", &passed, &failed, MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    free(buf), free(sent), free(expected), free(counts), free(displs);
    free(vbuf), free(vsent), free(vexpected);
}

/* In-place MPI_Alltoallw_init: MPI_INT blocks of pair counts, byte displacements.  The
 * reference is MPI_Alltoallv's, the same exchange in element displacements: Open MPI 4.1's
 * one-rank MPI_Alltoallw (coll/self) scales the byte displacements by the extent and reads
 * past the buffer (AddressSanitizer). */
static void alltoallw_case(int rounds)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int *counts = malloc((size_t)p * sizeof *counts), *displs = malloc((size_t)p * sizeof *displs),
        *byte_displs = malloc((size_t)p * sizeof *byte_displs);
    MPI_Datatype *types = malloc((size_t)p * sizeof *types);
    for (int j = 0; j < p; j++) {
        counts[j] = test_pair_count(seed + 7, rank < j ? rank : j, rank < j ? j : rank);
        types[j] = MPI_INT;
    }
    size_t n = (size_t)test_place_regions(seed + 7, rank, p, counts, displs);
    for (int j = 0; j < p; j++)
        byte_displs[j] = displs[j] * (int)sizeof(int);
    int *buf = malloc((n + 1) * sizeof *buf), *sent = malloc((n + 1) * sizeof *buf),
        *expected = malloc((n + 1) * sizeof *buf);
    MPI_Request request;
    MPI_PERSISTENT(Alltoallw_init)(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, byte_displs, types,
                               MPI_COMM_WORLD, MPI_INFO_NULL, &request);
    for (int round = 0; round < rounds; round++) {
        test_fill(sent, n * sizeof *buf, seed + 2000 + (uint64_t)round, rank);
        memcpy(buf, sent, n * sizeof *buf);
        memcpy(expected, sent, n * sizeof *buf);
        MPI_Alltoallv(sent, counts, displs, MPI_INT, expected, counts, displs, MPI_INT,
                      MPI_COMM_WORLD);
        MPI_Start(&request);
        int ok = MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
                 request != MPI_REQUEST_NULL && memcmp(buf, expected, n * sizeof *buf) == 0;
        test_count(ok, "MPI_Alltoallw_init, MPI_Start, MPI_Wait", &passed, &failed,
                   MPI_COMM_WORLD);
    }
    MPI_Request_free(&request);
    free(counts), free(displs), free(byte_displs), free(types);
    free(buf), free(sent), free(expected);
}

/* A datatype with a gap (the layer declines it to MPI's own init): MPI's result. */
static void gapped_case(void)
{
    int rank, p, count = 3;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Datatype pair_with_gap, gapped;
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair_with_gap); /* 2 ints of 3 */
    MPI_Type_create_resized(pair_with_gap, 0, 4 * sizeof(int), &gapped);
    MPI_Type_commit(&gapped);
    size_t n = (size_t)p * count * 4;
    int *buf = malloc(n * sizeof *buf), *sent = malloc(n * sizeof *buf),
        *expected = malloc(n * sizeof *buf);
    test_fill(sent, n * sizeof *buf, seed + 3000, rank);
    memcpy(buf, sent, n * sizeof *buf);
    memcpy(expected, sent, n * sizeof *buf);
    MPI_Alltoall(sent, count, gapped, expected, count, gapped, MPI_COMM_WORLD);
    MPI_Request request;
    MPI_PERSISTENT(Alltoall_init)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, gapped,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &request);
    MPI_Start(&request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    test_count(memcmp(buf, expected, n * sizeof *buf) == 0,
               "MPI_Alltoall_init of a gapped datatype (MPI's own)", &passed, &failed,
               MPI_COMM_WORLD);
    MPI_Request_free(&request);
    MPI_Type_free(&gapped);
    MPI_Type_free(&pair_with_gap);
    free(buf), free(sent), free(expected);
}

/* MPI's own persistent collectives after ours (out of place: the layer passes them on):
 * they must still complete.  The layer's first request handles, persistent receives from
 * MPI_PROC_NULL, made MPICH 4.0.2's hang here every time. */
static void mpi_own_case(void)
{
    int rank, p, count = 5, ok = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t n = (size_t)p * count;
    int *sent = malloc(n * sizeof *sent), *got = malloc(n * sizeof *got);
    for (int round = 0; round < 20 && ok; round++) {
        MPI_Request request;
        for (size_t k = 0; k < n; k++)
            sent[k] = rank * 1000000 + round * 1000 + (int)k;
        ok &= MPI_PERSISTENT(Alltoall_init)(sent, count, MPI_INT, got, count, MPI_INT, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &request) == MPI_SUCCESS &&
              MPI_Start(&request) == MPI_SUCCESS &&
              MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              MPI_Request_free(&request) == MPI_SUCCESS;
        for (int j = 0; j < p; j++)
            for (int k = 0; k < count; k++)
                ok &= got[j * count + k] == j * 1000000 + round * 1000 + rank * count + k;
    }
    test_count(ok, "MPI's own persistent MPI_Alltoall_init after ours, 20 times", &passed,
               &failed, MPI_COMM_WORLD);
    free(sent), free(got);
}

static int class_of(int err)
{
    int error_class = err;
    MPI_Error_class(err, &error_class);
    return error_class;
}

/* The layer's rules: rank 0 starts alone, so its exchange cannot end until the others
 * start; meanwhile MPI_Start, MPI_Request_free and MPI_Cancel of its request fail with
 * MPI_ERR_REQUEST and the exchange goes on to MPI's result. */
static void rules_case(void)
{
    int rank, p, count = 64;
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t n = (size_t)p * count;
    int *buf = malloc(n * sizeof *buf), *sent = malloc(n * sizeof *buf),
        *expected = malloc(n * sizeof *buf);
    test_fill(sent, n * sizeof *buf, seed + 4000, rank);
    memcpy(buf, sent, n * sizeof *buf);
    MPI_Alltoall(sent, count, MPI_INT, expected, count, MPI_INT, comm);
    MPI_Request request, saved;
    MPI_PERSISTENT(Alltoall_init)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, MPI_INT, comm,
                              MPI_INFO_NULL, &request);
    int ok = 1;
    if (rank == 0) {
        ok &= MPI_Start(&request) == MPI_SUCCESS;
        saved = request;
        ok &= class_of(MPI_Start(&request)) == MPI_ERR_REQUEST;
        ok &= class_of(MPI_Request_free(&request)) == MPI_ERR_REQUEST && request == saved;
        ok &= class_of(MPI_Cancel(&request)) == MPI_ERR_REQUEST;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the others start only now */
    if (rank != 0)
        ok &= MPI_Start(&request) == MPI_SUCCESS;
    ok &= MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    ok &= memcmp(buf, expected, n * sizeof *buf) == 0;
    ok &= MPI_Request_free(&request) == MPI_SUCCESS;
    test_count(ok, "rules: start, free and cancel while exchanging are MPI_ERR_REQUEST",
               &passed, &failed, MPI_COMM_WORLD);
    test_count(class_of(MPI_PERSISTENT(Alltoall_init)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count,
                                                  MPI_INT, comm, MPI_INFO_NULL, NULL)) ==
                   MPI_ERR_ARG,
               "rules: a NULL request is MPI_ERR_ARG", &passed, &failed, MPI_COMM_WORLD);
    MPI_Comm_free(&comm);
    free(buf), free(sent), free(expected);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    seed = test_seed(argc, argv, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("pmpi_persistent_test: --seed %llu\n", (unsigned long long)seed);
    for (int i = 1; i < argc; i++)
        layer |= strcmp(argv[i], "--layer") == 0;
    if (layer)
        rules_case(); /* MPI's own need not follow them */
    rounds_case(1000, 2 * COMPLETIONS);
    rounds_case(5, COMPLETIONS);
    alltoallw_case(3);
    gapped_case();
    mpi_own_case();
    int status = test_summary("pmpi_persistent_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}

#endif /* MPI_PERSISTENT */
