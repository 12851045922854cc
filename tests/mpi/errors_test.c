/*
 * errors_test - bad arguments give every rank the same MPI error class
 * (through MPI_ERRORS_RETURN), a message on the rank that passed them, and
 * leave the buffer untouched: nothing is exchanged halfway.
 *
 *   errors_test             all cases (run on 1..4 ranks)
 *
 * With them, calls that are not errors but once went wrong in the check's
 * neighbourhood: datatypes of other extents but the same signature on
 * different ranks, and a plan whose node tables a later call replaced.
 *   errors_test --bad-env   a tunable (AIP_ALGORITHM, AIP_AUX_BYTES, ...)
 *                           holds garbage: every call must fail with MPI_ERR_ARG
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "test_util.h"

#define COUNT 4 /* elements per block */

typedef struct test_run {
    int rank, size, passed, failed;
    double *buf, *saved; /* size * COUNT doubles */
    int *counts, *displs;
    MPI_Datatype *types;
} test_run;

static void reset(test_run *t)
{
    for (int i = 0; i < t->size * COUNT; i++)
        t->buf[i] = t->saved[i] = t->rank * 1000.0 + i;
    for (int j = 0; j < t->size; j++) {
        t->counts[j] = COUNT;
        t->displs[j] = j * COUNT;
        t->types[j] = MPI_DOUBLE;
    }
}

/* The call returned `err` on this rank; every rank must get `expected`. */
static void expect(test_run *t, const char *what, int err, int expected)
{
    int error_class = MPI_SUCCESS;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &error_class);
    int ok = error_class == expected &&
             memcmp(t->buf, t->saved, sizeof(double) * (size_t)t->size * COUNT) == 0;
    if (!ok)
        fprintf(stderr, "rank %d: %s: got error class %d, expected %d%s\n", t->rank, what,
                error_class, expected, error_class == expected ? ", but the buffer changed" : "");
    if (test_agree(ok, MPI_COMM_WORLD)) {
        t->passed++;
    } else {
        t->failed++;
        if (t->rank == 0)
            fprintf(stderr, "FAIL: %s\n", what);
    }
    reset(t);
}

static void bad_arguments(test_run *t)
{
    const int last = t->size - 1;
    AIP_Options opt = AIP_OPTIONS_INIT;
    MPI_Datatype vector, short_int_pairs;
    AIP_Plan plan = NULL;
    int err;

    /* Counts. */
    err = AIP_Alltoall(t->buf, t->rank == last ? -1 : COUNT, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall with a negative count on the last rank", err, MPI_ERR_COUNT);
    if (t->rank == 0)
        t->counts[last] = -3;
    err = AIP_Alltoallv(t->buf, t->counts, t->displs, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoallv with a negative count on rank 0", err, MPI_ERR_COUNT);
    err = AIP_Alltoallv(t->buf, t->rank == last ? NULL : t->counts, t->displs, MPI_DOUBLE,
                        MPI_COMM_WORLD);
    expect(t, "AIP_Alltoallv with counts = NULL on the last rank", err, MPI_ERR_ARG);
    if (t->size > 1) {
        /* Rank 0 sends 3 elements to the last rank, which expects 4. */
        if (t->rank == 0)
            t->counts[last] = 3;
        err = AIP_Alltoallv(t->buf, t->counts, t->displs, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(t, "AIP_Alltoallv with counts that differ within a pair", err, MPI_ERR_TYPE);
    }

    /* Buffers. */
    err = AIP_Alltoall(t->rank == 0 ? NULL : t->buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall with buf = NULL on rank 0", err, MPI_ERR_BUFFER);
    err = AIP_Alltoall(t->rank == last ? MPI_IN_PLACE : t->buf, COUNT, MPI_DOUBLE,
                       MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall with buf = MPI_IN_PLACE on the last rank", err, MPI_ERR_BUFFER);
    err = AIP_Alltoall(NULL, 0, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall with buf = NULL and no data", err, MPI_SUCCESS);
    if (t->size > 1) {
        if (t->rank == last)
            t->displs[1] = 1; /* block 1 starts inside block 0 */
        err = AIP_Alltoallv(t->buf, t->counts, t->displs, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(t, "AIP_Alltoallv with overlapping blocks on the last rank", err, MPI_ERR_ARG);
    }

    /* Datatypes. */
    if (t->size > 1) {
        err = AIP_Alltoall(t->buf, COUNT, t->rank == 0 ? MPI_INT : MPI_DOUBLE, MPI_COMM_WORLD);
        expect(t, "AIP_Alltoall with MPI_INT on rank 0 and MPI_DOUBLE elsewhere", err,
               MPI_ERR_TYPE);
    }
    err = AIP_Alltoall(t->buf, COUNT, t->rank == last ? MPI_DATATYPE_NULL : MPI_DOUBLE,
                       MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall with MPI_DATATYPE_NULL on the last rank", err, MPI_ERR_TYPE);
    MPI_Type_vector(2, 1, 2, MPI_FLOAT, &vector); /* a float, a hole, a float */
    MPI_Type_commit(&vector);
    err = AIP_Alltoall(t->buf, COUNT / 2, vector, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall with a vector datatype with holes", err, MPI_ERR_TYPE);
    MPI_Type_free(&vector);
    MPI_Type_contiguous(2, MPI_SHORT_INT, &short_int_pairs); /* padding after the short */
    MPI_Type_commit(&short_int_pairs);
    t->types[0] = short_int_pairs;
    t->counts[0] = 1;
    err = AIP_Alltoallw(t->buf, t->counts, t->displs, t->types, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoallw with MPI_SHORT_INT (padded) for rank 0", err, MPI_ERR_TYPE);
    MPI_Type_free(&short_int_pairs);
    /* An invalid datatype must be reported before anything reads what it would describe
     * (the front end once used the unset type info of a failed lookup: run under valgrind).
     * Displacements in bytes, so that nothing but the datatype is wrong. */
#define BYTE_DISPLACEMENTS()                                                                    \
    for (int j = 0; j < t->size; j++)                                                           \
        t->displs[j] = j * COUNT * (int)sizeof(double)
    BYTE_DISPLACEMENTS();
    if (t->rank == last)
        t->types[0] = MPI_DATATYPE_NULL;
    err = AIP_Alltoallw(t->buf, t->counts, t->displs, t->types, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoallw with MPI_DATATYPE_NULL at index 0 on the last rank", err,
           MPI_ERR_TYPE);
    BYTE_DISPLACEMENTS();
    if (t->rank == 0)
        t->types[last] = MPI_DATATYPE_NULL;
    err = AIP_Alltoallw(t->buf, t->counts, t->displs, t->types, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoallw with MPI_DATATYPE_NULL at the last index on rank 0", err,
           MPI_ERR_TYPE);
    BYTE_DISPLACEMENTS();
    if (t->rank == 0)
        t->types[last] = MPI_DATATYPE_NULL;
    err = AIP_Alltoallw_init(t->counts, t->displs, t->types, MPI_COMM_WORLD, NULL, &plan);
    expect(t, "AIP_Alltoallw_init with MPI_DATATYPE_NULL at the last index on rank 0", err,
           MPI_ERR_TYPE);
    if (plan != NULL)
        expect(t, "AIP_Alltoallw_init that failed left a plan", MPI_ERR_OTHER, MPI_SUCCESS);
#undef BYTE_DISPLACEMENTS

    /* Options. */
    opt.algorithm = t->rank == last ? (AIP_Algorithm)99 : AIP_ALGORITHM_HSA;
    err = AIP_Alltoall_opt(t->buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD, &opt);
    expect(t, "algorithm 99 on the last rank", err, MPI_ERR_ARG);
    opt.algorithm = AIP_ALGORITHM_DEFAULT;
    opt.aux_bytes = t->rank == 0 ? -5 : AIP_AUX_BYTES_DEFAULT;
    err = AIP_Alltoall_opt(t->buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD, &opt);
    expect(t, "aux_bytes = -5 on rank 0", err, MPI_ERR_ARG);
    if (t->size > 1) {
        opt.aux_bytes = AIP_AUX_BYTES_DEFAULT;
        opt.algorithm = t->rank == 0 ? AIP_ALGORITHM_LSA : AIP_ALGORITHM_HSA;
        err = AIP_Alltoall_opt(t->buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD, &opt);
        expect(t, "LSA on rank 0, HSA elsewhere", err, MPI_ERR_ARG);
    }
    opt = (AIP_Options)AIP_OPTIONS_INIT;
    opt.algorithm = AIP_ALGORITHM_SA;
    opt.ranks_per_node = t->rank == last ? -2 : 2;
    err = AIP_Alltoall_opt(t->buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD, &opt);
    expect(t, "ranks_per_node = -2 on the last rank", err, MPI_ERR_ARG);
    if (t->size > 1) {
        opt.ranks_per_node = t->rank == 0 ? 1 : 2;
        err = AIP_Alltoall_opt(t->buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD, &opt);
        expect(t, "nodes of 1 rank on rank 0, of 2 elsewhere", err, MPI_ERR_ARG);
    }
}

/* AIP_Alltoall_oop: its buffers must be separate and present; the receive
 * buffer (t->buf) stays untouched on error. */
static void bad_out_of_place(test_run *t)
{
    size_t bytes = sizeof(double) * (size_t)t->size * COUNT;
    double *send = malloc(bytes);
    int err;

    memcpy(send, t->buf, bytes);
    err = AIP_Alltoall_oop(t->rank == 0 ? (const void *)t->buf : send, t->buf, COUNT,
                           MPI_DOUBLE, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall_oop with sendbuf = recvbuf on rank 0", err, MPI_ERR_BUFFER);
    err = AIP_Alltoall_oop(t->rank == 0 ? (const void *)(t->buf + 1) : send, t->buf, COUNT,
                           MPI_DOUBLE, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall_oop with overlapping buffers on rank 0", err, MPI_ERR_BUFFER);
    err = AIP_Alltoall_oop(t->rank == t->size - 1 ? NULL : send, t->buf, COUNT, MPI_DOUBLE,
                           MPI_COMM_WORLD);
    expect(t, "AIP_Alltoall_oop with sendbuf = NULL on the last rank", err, MPI_ERR_BUFFER);
    free(send);
}

/* Receive blocks in the reverse order of the send blocks. */
static void reset_receive(const test_run *t, int *rcounts, int *rdispls)
{
    for (int j = 0; j < t->size; j++) {
        rcounts[j] = COUNT;
        rdispls[j] = (t->size - 1 - j) * COUNT;
    }
}

/* AIP_Alltoallv_general: receive blocks described apart from the send blocks. */
static void bad_general(test_run *t)
{
    const int last = t->size - 1;
    int *rcounts = malloc(sizeof(int) * (size_t)t->size);
    int *rdispls = malloc(sizeof(int) * (size_t)t->size);
    AIP_Options opt = AIP_OPTIONS_INIT;
    int err;

#define GENERAL(what, expected)                                                                 \
    do {                                                                                        \
        err = AIP_Alltoallv_general_opt(t->buf, t->counts, t->displs, rcounts, rdispls,         \
                                        MPI_DOUBLE, MPI_COMM_WORLD, &opt);                      \
        expect(t, "AIP_Alltoallv_general with " what, err, expected);                           \
        reset_receive(t, rcounts, rdispls);                                                     \
        AIP_Options_init(&opt);                                                                 \
    } while (0)

    reset_receive(t, rcounts, rdispls);
    if (t->rank == last)
        rcounts[0] = -1;
    GENERAL("a negative receive count on the last rank", MPI_ERR_COUNT);
    if (t->rank == 0)
        t->displs[last] = -COUNT;
    GENERAL("a negative send displacement on rank 0", MPI_ERR_ARG);
    err = AIP_Alltoallv_general(t->buf, t->counts, t->displs, rcounts,
                                t->rank == last ? NULL : rdispls, MPI_DOUBLE, MPI_COMM_WORLD);
    expect(t, "AIP_Alltoallv_general with rdispls = NULL on the last rank", err, MPI_ERR_ARG);
    if (t->size > 1) {
        if (t->rank == last)
            t->displs[1] = 1; /* send block 1 starts inside send block 0 */
        GENERAL("overlapping send blocks on the last rank", MPI_ERR_ARG);
        if (t->rank == 0)
            rdispls[0] = rdispls[1] + 1;
        GENERAL("overlapping receive blocks on rank 0", MPI_ERR_ARG);
        if (t->rank == 0)
            t->counts[last] = 3; /* the last rank expects 4 */
        GENERAL("counts that differ within a pair", MPI_ERR_TYPE);
        opt.requests = t->rank == 0 ? AIP_REQUESTS_ALLTOALL : AIP_REQUESTS_P2P;
        GENERAL("alltoall requests on rank 0, p2p elsewhere", MPI_ERR_ARG);
    }
    opt.aux_strategy = t->rank == last ? (AIP_Aux_strategy)7 : AIP_AUX_STRATEGY_POOL;
    GENERAL("aux_strategy 7 on the last rank", MPI_ERR_ARG);
    opt.aux_buffers = t->rank == 0 ? -2 : 0;
    GENERAL("aux_buffers = -2 on rank 0", MPI_ERR_ARG);

    /* A good call exchanges, with the blocks received in the reverse order. */
    err = AIP_Alltoallv_general(t->buf, t->counts, t->displs, rcounts, rdispls, MPI_DOUBLE,
                                MPI_COMM_WORLD);
    int ok = err == MPI_SUCCESS;
    for (int j = 0; j < t->size; j++)
        for (int k = 0; k < COUNT; k++)
            ok &= t->buf[rdispls[j] + k] == j * 1000.0 + t->rank * COUNT + k;
    memcpy(t->saved, t->buf, sizeof(double) * (size_t)t->size * COUNT);
    expect(t, "a good AIP_Alltoallv_general after the bad ones", ok ? MPI_SUCCESS : MPI_ERR_OTHER,
           MPI_SUCCESS);
#undef GENERAL
    free(rcounts);
    free(rdispls);
}

static void bad_communicators(test_run *t)
{
    int err = AIP_Alltoall(t->buf, COUNT, MPI_DOUBLE, MPI_COMM_NULL);
    expect(t, "AIP_Alltoall on MPI_COMM_NULL", err, MPI_ERR_COMM);

    if (t->size > 1) {
        /* Two halves joined by an intercommunicator. */
        MPI_Comm half, inter;
        int low = t->rank < t->size / 2;
        MPI_Comm_split(MPI_COMM_WORLD, low, t->rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? t->size / 2 : 0, 7, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        err = AIP_Alltoall(t->buf, COUNT, MPI_DOUBLE, inter);
        expect(t, "AIP_Alltoall on an intercommunicator", err, MPI_ERR_COMM);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
}

/* The same bytes described by datatypes of other extents on different ranks
 * (legal: only the signatures must match).  Rank 0's blocks are ints 8 bytes
 * apart, the others' consecutive ints: the node-aware algorithms, which need
 * contiguous blocks, must be ruled out on every rank alike, or the ranks run
 * different algorithms (and wait for each other forever). */
static void mixed_extents(test_run *t)
{
    MPI_Datatype spaced;
    AIP_Options opt = AIP_OPTIONS_INIT;
    int ints[64]; /* two per rank: up to 32 ranks */

    if (t->size > 32)
        return;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &spaced);
    MPI_Type_commit(&spaced);
    opt.algorithm = AIP_ALGORITHM_AUTO;
    opt.ranks_per_node = 2;
    int stride = t->rank == 0 ? 2 : 1;
    for (int j = 0; j < t->size; j++)
        ints[stride * j] = t->rank * 100 + j;
    int err = AIP_Alltoall_opt(ints, 1, t->rank == 0 ? spaced : MPI_INT, MPI_COMM_WORLD, &opt);
    int ok = err == MPI_SUCCESS;
    for (int j = 0; j < t->size; j++)
        ok &= ints[stride * j] == j * 100 + t->rank;
    expect(t, "AIP_Alltoall with ints 8 bytes apart on rank 0, consecutive elsewhere",
           ok ? MPI_SUCCESS : MPI_ERR_OTHER, MPI_SUCCESS);
    MPI_Type_free(&spaced);
}

/* A plan keeps the node tables it runs on when a later call with another
 * grouping replaces them in the communicator's cache (run under valgrind). */
static void plan_outlives_nodes(test_run *t)
{
    AIP_Options opt = AIP_OPTIONS_INIT;
    AIP_Plan plan;
    MPI_Comm comm;

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    opt.algorithm = AIP_ALGORITHM_SA;
    opt.ranks_per_node = 2;
    int err = AIP_Alltoall_init(COUNT, MPI_DOUBLE, comm, &opt, &plan);
    opt.ranks_per_node = 1; /* another grouping: the cache's tables are replaced */
    if (err == MPI_SUCCESS)
        err = AIP_Alltoall_opt(t->buf, COUNT, MPI_DOUBLE, comm, &opt);
    if (err == MPI_SUCCESS) /* twice: back to the first exchange's order */
        err = AIP_Plan_execute(plan, t->buf);
    int ok = err == MPI_SUCCESS;
    for (int i = 0; i < t->size * COUNT; i++)
        ok &= t->buf[i] == t->saved[i];
    if (err == MPI_SUCCESS)
        AIP_Plan_free(&plan);
    MPI_Comm_free(&comm);
    expect(t, "a plan of nodes of 2 after a call on nodes of 1", ok ? MPI_SUCCESS : MPI_ERR_OTHER,
           MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    test_run t = { 0 };

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.size);
    t.buf = malloc(sizeof(double) * (size_t)t.size * COUNT);
    t.saved = malloc(sizeof(double) * (size_t)t.size * COUNT);
    t.counts = malloc(sizeof(int) * (size_t)t.size);
    t.displs = malloc(sizeof(int) * (size_t)t.size);
    t.types = malloc(sizeof(MPI_Datatype) * (size_t)t.size);
    reset(&t);

    if (argc > 1 && strcmp(argv[1], "--bad-env") == 0) {
        int err = AIP_Alltoall(t.buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD);
        expect(&t, "AIP_Alltoall with a bad tunable", err, MPI_ERR_ARG);
        err = AIP_Alltoallv_general(t.buf, t.counts, t.displs, t.counts, t.displs, MPI_DOUBLE,
                                    MPI_COMM_WORLD);
        expect(&t, "AIP_Alltoallv_general with a bad tunable", err, MPI_ERR_ARG);
    } else {
        bad_arguments(&t);
        bad_general(&t);
        bad_out_of_place(&t);
        bad_communicators(&t);
        mixed_extents(&t);
        plan_outlives_nodes(&t);
        /* After all that, a good call still works and exchanges. */
        int err = AIP_Alltoall(t.buf, COUNT, MPI_DOUBLE, MPI_COMM_WORLD);
        int ok = err == MPI_SUCCESS;
        for (int j = 0; j < t.size; j++)
            for (int k = 0; k < COUNT; k++)
                ok &= t.buf[j * COUNT + k] == j * 1000.0 + t.rank * COUNT + k;
        memcpy(t.saved, t.buf, sizeof(double) * (size_t)t.size * COUNT);
        expect(&t, "a good AIP_Alltoall after the bad ones", ok ? MPI_SUCCESS : MPI_ERR_OTHER,
               MPI_SUCCESS);
    }

    free(t.buf);
    free(t.saved);
    free(t.counts);
    free(t.displs);
    free(t.types);
    int status = test_summary("errors_test", t.passed, t.failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
