/*
 * pmpi_ialltoall_test - a plain MPI program's in-place MPI_Ialltoall, run on
 * MPI alone and under the PMPI layer (pmpi.sh, which checks from AIP_DEBUG
 * that ours ran).  Every result is compared byte for byte with MPI's
 * out-of-place MPI_Alltoall on a copy.
 *
 * The cases, each on a fresh duplicate of MPI_COMM_WORLD, so that the
 * layer's first call on a communicator (its settings and private duplicate
 * still to be agreed, without waiting) is tried every time:
 *   - start alone: rank 0 calls MPI_Ialltoall and only then sends rank 1 the
 *     message rank 1 waits for before its own call; a call that waited for
 *     the other ranks would hang (the time limit fails it);
 *   - rounds: two calls in flight on two communicators beside ring
 *     messages, completed by each of MPI's request functions in turn
 *     (request_completion.h), the requests freed (MPI_REQUEST_NULL) as MPI
 *     frees its own;
 *   - interleaved: a blocking in-place MPI_Alltoall on the same
 *     communicator while an MPI_Ialltoall is in flight, which rank 0 alone
 *     has tested meanwhile, both exact;
 *   - a gapped datatype, which the layer declines and runs by MPI's rules;
 *   - with --layer, the rules: a count that differs between ranks is
 *     MPI_ERR_TYPE from MPI_Wait on every rank (the request freed), and
 *     MPI_Request_free or MPI_Cancel of a call under way MPI_ERR_REQUEST.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "../test_util.h"
#include "request_completion.h"

static int passed, failed;
static uint64_t seed;
static int layer; /* --layer: the PMPI layer is preloaded */

/* count ints per block on comm: the data filled from key, MPI's out-of-place result (on
 * MPI_COMM_WORLD, whose duplicate comm is: no call on comm before the case's own). */
typedef struct exchange {
    int count;
    size_t n;
    int *buf, *expected;
} exchange;

static exchange prepared(int count, MPI_Comm comm, uint64_t key)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    exchange x = { count, (size_t)count * p, NULL, NULL };
    x.buf = malloc((x.n + 1) * sizeof *x.buf);
    x.expected = malloc((x.n + 1) * sizeof *x.buf);
    test_fill(x.buf, x.n * sizeof *x.buf, key, rank);
    MPI_Alltoall(x.buf, count, MPI_INT, x.expected, count, MPI_INT, MPI_COMM_WORLD);
    return x;
}

static int exact(const exchange *x)
{
    return memcmp(x->buf, x->expected, x->n * sizeof *x->buf) == 0;
}

static void release(exchange *x)
{
    free(x->buf);
    free(x->expected);
}

static MPI_Comm fresh(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    return comm;
}

/* Rank 0 calls first and only then lets rank 1 call. */
static void start_alone_case(int count)
{
    MPI_Comm comm = fresh();
    int rank, p, token = 0, ok = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    exchange x = prepared(count, comm, seed + 10);
    MPI_Request request;
    if (rank == 1)
        MPI_Recv(&token, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ok &= MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x.buf, count, MPI_INT, comm,
                        &request) == MPI_SUCCESS;
    if (rank == 0 && p > 1)
        MPI_Send(&token, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
    ok &= MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS && request == MPI_REQUEST_NULL;
    char what[96];
    snprintf(what, sizeof what, "start alone: rank 0's MPI_Ialltoall (%d ints) returns first",
             count);
    test_count(ok && exact(&x), what, &passed, &failed, MPI_COMM_WORLD);
    release(&x);
    MPI_Comm_free(&comm);
}

/* Two calls in flight on two communicators among ring messages, completed every way. */
static void rounds_case(int count)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int round = 0; round < COMPLETIONS; round++) {
        enum completion how = (enum completion)round;
        MPI_Comm first = fresh(), second = fresh();
        exchange a = prepared(count, first, seed + 100 + (uint64_t)round),
                 b = prepared(count + 3, second, seed + 200 + (uint64_t)round);
        int ring_in = -1, ring_out = rank * 1000 + round;
        MPI_Request requests[4];
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a.buf, a.count, MPI_INT, first,
                      &requests[0]);
        MPI_Irecv(&ring_in, 1, MPI_INT, (rank + p - 1) % p, 7, MPI_COMM_WORLD, &requests[1]);
        MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.buf, b.count, MPI_INT, second,
                      &requests[2]);
        MPI_Isend(&ring_out, 1, MPI_INT, (rank + 1) % p, 7, MPI_COMM_WORLD, &requests[3]);
        static const int none_persistent[4] = { 0 };
        int ok = complete_requests(requests, 4, how, none_persistent) && exact(&a) && exact(&b) &&
                 ring_in == (rank + p - 1) % p * 1000 + round;
        char what[128];
        snprintf(what, sizeof what, "round %d: two MPI_Ialltoall (%d ints) completed by %s",
                 round, count, completion_name[how]);
        test_count(ok, what, &passed, &failed, MPI_COMM_WORLD);
        release(&a);
        release(&b);
        MPI_Comm_free(&first);
        MPI_Comm_free(&second);
    }
}

/* A blocking in-place MPI_Alltoall on the communicator of an MPI_Ialltoall in flight,
 * which rank 0 has tested until its agreement is surely in and the others have not: the
 * two must not take each other's messages. */
static void interleaved_case(int count)
{
    MPI_Comm comm = fresh();
    exchange a = prepared(count, comm, seed + 300), b = prepared(count + 1, comm, seed + 301);
    MPI_Request request;
    int rank, flag = 0;
    MPI_Comm_rank(comm, &rank);
    int ok = MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a.buf, a.count, MPI_INT, comm,
                           &request) == MPI_SUCCESS;
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has called it */
    for (int k = 0; rank == 0 && k < 200 && !flag; k++) {
        ok &= MPI_Test(&request, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        usleep(1000);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the others inside MPI meanwhile, which progresses it */
    ok &= MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.buf, b.count, MPI_INT, comm) ==
          MPI_SUCCESS;
    ok &= MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    test_count(ok && exact(&a) && exact(&b),
               "interleaved: a blocking MPI_Alltoall while an MPI_Ialltoall is in flight",
               &passed, &failed, MPI_COMM_WORLD);
    release(&a);
    release(&b);
    MPI_Comm_free(&comm);
}

/* A datatype with a gap (the layer declines it, and runs MPI's semantics): MPI's result. */
static void gapped_case(void)
{
    MPI_Comm comm = fresh();
    int rank, p, count = 3;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    MPI_Datatype pair_with_gap, gapped;
    MPI_Type_vector(2, 1, 2, MPI_INT, &pair_with_gap); /* 2 ints of 3 */
    MPI_Type_create_resized(pair_with_gap, 0, 4 * sizeof(int), &gapped);
    MPI_Type_commit(&gapped);
    size_t n = (size_t)p * count * 4;
    int *buf = malloc(n * sizeof *buf), *expected = malloc(n * sizeof *buf);
    test_fill(buf, n * sizeof *buf, seed + 400, rank);
    memcpy(expected, buf, n * sizeof *buf);
    MPI_Alltoall(buf, count, gapped, expected, count, gapped, MPI_COMM_WORLD);
    MPI_Request request;
    int ok = MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, gapped, comm,
                           &request) == MPI_SUCCESS;
    MPI_Type_free(&gapped); /* allowed while the call is under way */
    ok &= MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    test_count(ok && memcmp(buf, expected, n * sizeof *buf) == 0,
               "MPI_Ialltoall of a gapped datatype (MPI's semantics)", &passed, &failed,
               MPI_COMM_WORLD);
    MPI_Type_free(&pair_with_gap);
    free(buf), free(expected);
    MPI_Comm_free(&comm);
}

static int class_of(int err)
{
    int error_class = err;
    MPI_Error_class(err, &error_class);
    return error_class;
}

/* The layer's rules (MPI's own need not follow them). */
static void rules_case(void)
{
    MPI_Comm comm = fresh();
    int rank, p, count = 64, ok = 1;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int *buf = calloc((size_t)p * (count + 1), sizeof *buf);
    MPI_Request request, saved;

    /* rank 0 calls alone first: its call is under way until the others call */
    if (rank == 0) {
        ok &= MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, MPI_INT, comm,
                            &request) == MPI_SUCCESS;
        saved = request;
        ok &= class_of(MPI_Request_free(&request)) == MPI_ERR_REQUEST && request == saved;
        ok &= class_of(MPI_Cancel(&request)) == MPI_ERR_REQUEST;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        ok &= MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, MPI_INT, comm,
                            &request) == MPI_SUCCESS;
    ok &= MPI_Wait(&request, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    test_count(ok, "rules: free and cancel while exchanging are MPI_ERR_REQUEST", &passed,
               &failed, MPI_COMM_WORLD);

    /* counts that differ: the same class from the completion on every rank */
    if (p > 1) {
        ok = MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, rank == 0 ? count + 1 : count,
                           MPI_INT, comm, &request) == MPI_SUCCESS;
        ok &= class_of(MPI_Wait(&request, MPI_STATUS_IGNORE)) == MPI_ERR_TYPE &&
              request == MPI_REQUEST_NULL;
        test_count(ok, "rules: counts that differ are MPI_ERR_TYPE from MPI_Wait on every rank",
                   &passed, &failed, MPI_COMM_WORLD);
    }
    free(buf);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    seed = test_seed(argc, argv, MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("pmpi_ialltoall_test: --seed %llu\n", (unsigned long long)seed);
    for (int i = 1; i < argc; i++)
        layer |= strcmp(argv[i], "--layer") == 0;
    start_alone_case(1000);
    start_alone_case(5);
    rounds_case(700);
    interleaved_case(300);
    gapped_case();
    if (layer)
        rules_case();
    int status = test_summary("pmpi_ialltoall_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
