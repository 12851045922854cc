/*
 * bcast_random_test.c - AIP_Bcast_rma in random sequences of calls, as a
 * program would make them, against MPI_Bcast byte for byte.
 *
 * Each broadcast draws its root, size (0 to 1 MiB, every scale alike, at
 * most 16 chunks), tree and datatypes (bytes, ints, a vector with gaps, the
 * vector on the root against ints elsewhere and the reverse); about every
 * remake-th one draws nodes of 0-3 ranks and a budget anew, so that the
 * windows are remade.  Between the broadcasts come MPI_Bcast, AIP_Alltoall
 * and MPI_Allreduce on the same communicator.  A watchdog (test_util.h)
 * turns a hang into a failure that names the call each rank was in.
 *
 * --split 1: each sequence on a fresh half of MPI_COMM_WORLD (even and odd
 * ranks: {0, 2} and {1} on 3 ranks), the halves at once; now and then all
 * ranks broadcast on MPI_COMM_WORLD, whose windows (between nodes of one
 * rank) outlive every half.
 * --threads T: T threads, each with its own duplicate of MPI_COMM_WORLD,
 * run their sequences at the same time (MPI_THREAD_MULTIPLE).
 *
 * Under MPICH 4.0.2 both hung before the windows kept the communicator they
 * were made on (bcast_windows.c): a window made on a communicator that took
 * a freed one's context id received another window's synchronisation.
 *
 *   bcast_random_test [--seed N] [--sequences S] [--calls C] [--remake R]
 *                     [--split 1] [--threads T] [--watchdog SECONDS]
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "test_util.h"

#define MAX_THREADS 8
#define MAX_BYTES (1 << 20)

typedef struct runner {
    int slot; /* the thread's watchdog note */
    unsigned long long seed;
    int sequences, calls, split;
    int remake;                 /* about every remake-th broadcast draws these anew: */
    int ranks_per_node, budget; /* the grouping, and an index into budgets[] */
    MPI_Comm comm;              /* with --threads: this thread's duplicate */
    MPI_Datatype gapped;
    char *got, *want;           /* room for the largest message, gaps included */
    int passed, failed;
} runner;

/* The draws of one call: the same on every rank of the communicator. */
typedef struct draw {
    unsigned long long key;
    int at;
} draw;

static uint64_t next(draw *d)
{
    return test_hash(d->key, 0x62636173u, (uint64_t)d->at++);
}

/* The test's own waits: where ranks outnumber cores, a rank waiting in a
 * blocking call of MPICH spins on a core another rank needs (a half waiting
 * for the other takes both cores). */
static void polite_wait(MPI_Request *request)
{
    int done = 0;
    while (MPI_Test(request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        sched_yield();
}

static void polite_barrier(MPI_Comm comm)
{
    MPI_Request request;
    MPI_Ibarrier(comm, &request);
    polite_wait(&request);
}

/* How the ranks describe a message of `ints` ints (a multiple of 3). */
typedef enum { BYTES, INTS, GAPPED, ROOT_GAPPED, OTHERS_GAPPED, N_LAYOUTS } layout;
static const char *const layout_names[] = { "bytes", "ints", "gapped", "root gapped",
                                            "others gapped" };

static void describe(const runner *r, layout how, int rank, int root, int ints, int *count,
                     MPI_Datatype *type, size_t *span)
{
    int gapped = how == GAPPED || (how == ROOT_GAPPED && rank == root) ||
                 (how == OTHERS_GAPPED && rank != root);
    if (how == BYTES) {
        *count = 4 * ints;
        *type = MPI_BYTE;
    } else if (gapped) {
        *count = ints / 3;
        *type = r->gapped;
    } else {
        *count = ints;
        *type = MPI_INT;
    }
    MPI_Aint lb, extent;
    MPI_Type_get_extent(*type, &lb, &extent);
    *span = (size_t)*count * (size_t)extent + 16;
}

static void record(runner *r, int ok, int rank, const char *what)
{
    if (ok) {
        r->passed++;
        return;
    }
    r->failed++;
    fprintf(stderr, "FAIL: rank %d: %s\n", rank, what);
}

/* One AIP_Bcast_rma_opt of the draws in d, against MPI_Bcast on a copy. */
static void broadcast(runner *r, MPI_Comm comm, int rank, int size, draw *d, const char *call)
{
    static const AIP_Bcast_algorithm trees[] = { AIP_BCAST_LINEAR, AIP_BCAST_BINOMIAL,
                                                 AIP_BCAST_BINARY, AIP_BCAST_AUTO };
    static const long long budgets[] = { 3 * 64, 4 << 10, 64 << 10, AIP_AUX_BYTES_DEFAULT };
    AIP_Options options = AIP_OPTIONS_INIT;
    options.bcast_algorithm = trees[next(d) % 4];
    /* The windows' budget and grouping stay for a while: remaking them costs
     * collective calls, which spin where ranks outnumber cores (MPICH). */
    if (next(d) % (uint64_t)r->remake == 0) {
        r->ranks_per_node = (int)(next(d) % 4);
        r->budget = (int)(next(d) % 4);
    }
    options.ranks_per_node = r->ranks_per_node;
    int b = r->budget;
    if (comm == MPI_COMM_WORLD && r->split) { /* windows between nodes, made once */
        options.ranks_per_node = 1;
        b = 3;
    }
    options.aux_bytes = budgets[b];
    /* At most 16 chunks (of a third of the budget, bcast_windows.c): each
     * costs synchronisations, which spin where ranks outnumber cores. */
    static const int max_bytes[] = { 16 * 64, 16 * 1344, 16 * 21824, MAX_BYTES };
    int root = (int)(next(d) % (uint64_t)size);
    layout how = (layout)(next(d) % N_LAYOUTS);
    /* Elements of 3 ints: 2^e to 2^(e+1) - 1 of them, e uniform (sizes spread
     * over every scale), at most max_bytes; and now and then nothing. */
    int most = max_bytes[b] / 12, scales = 0;
    while (2 << scales <= most)
        scales++;
    uint64_t u = next(d);
    int e = (int)(u % (uint64_t)(scales + 1)), elements = (1 << e) + (int)(u / 64 % (1u << e));
    int ints = next(d) % 16 == 0 ? 0 : 3 * (elements < most ? elements : most);

    int count;
    MPI_Datatype type;
    size_t span;
    describe(r, how, rank, root, ints, &count, &type, &span);
    test_fill(r->want, span, d->key, rank);
    memcpy(r->got, r->want, span);
    test_note(r->slot, "%s: AIP_Bcast_rma %s tree, nodes of %d, budget %lld, root %d, %d ints, %s",
              call, AIP_Bcast_algorithm_name(options.bcast_algorithm), options.ranks_per_node,
              options.aux_bytes, root, ints, layout_names[how]);
    MPI_Request reference;
    MPI_Ibcast(r->want, count, type, root, comm, &reference);
    polite_wait(&reference);
    int err = AIP_Bcast_rma_opt(r->got, count, type, root, comm, &options);
    size_t first = span, differ = 0;
    for (size_t i = 0; i < span; i++)
        if (r->got[i] != r->want[i] && differ++ == 0)
            first = i;
    char what[400];
    snprintf(what, sizeof what, "%s: error %d, %zu of %zu bytes differ from MPI_Bcast's, from %zu",
             test_last_note(r->slot), err, differ, span, first);
    record(r, err == MPI_SUCCESS && differ == 0, rank, what);
}

/* Other traffic on the same communicator. */
static void other_call(runner *r, MPI_Comm comm, int rank, int size, draw *d, int kind,
                       const char *call)
{
    if (kind == 0) { /* MPI_Bcast alone */
        int bytes = (int)(next(d) % 5000), root = (int)(next(d) % (uint64_t)size);
        test_note(r->slot, "%s: MPI_Bcast of %d bytes from %d", call, bytes, root);
        MPI_Bcast(r->want, bytes, MPI_BYTE, root, comm);
    } else if (kind == 1) { /* AIP_Alltoall against MPI_Alltoall */
        int n = (int)(next(d) % 200) + 1;
        size_t bytes = (size_t)n * (size_t)size * sizeof(double);
        test_note(r->slot, "%s: AIP_Alltoall of %d doubles a block", call, n);
        test_fill(r->want, bytes, d->key, rank);
        memcpy(r->got, r->want, bytes);
        MPI_Request reference;
        MPI_Ialltoall(MPI_IN_PLACE, n, MPI_DOUBLE, r->want, n, MPI_DOUBLE, comm, &reference);
        polite_wait(&reference);
        int err = AIP_Alltoall(r->got, n, MPI_DOUBLE, comm);
        char what[160];
        snprintf(what, sizeof what, "%s: AIP_Alltoall of %d doubles a block (error %d)", call, n,
                 err);
        record(r, err == MPI_SUCCESS && memcmp(r->got, r->want, bytes) == 0, rank, what);
    } else { /* MPI_Allreduce */
        long long value = rank, sum = 0;
        test_note(r->slot, "%s: MPI_Allreduce", call);
        MPI_Allreduce(&value, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm);
        record(r, sum == (long long)size * (size - 1) / 2, rank, "MPI_Allreduce");
    }
}

static void run_sequence(runner *r, int s)
{
    int world_rank, world_size, rank, size;
    MPI_Comm comm = r->comm;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (r->split) {
        polite_barrier(MPI_COMM_WORLD);
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &comm);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    }
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int c = 0; c < r->calls; c++) {
        /* The halves draw alike: the same kinds of calls at once. */
        draw d = { test_hash(r->seed, (uint64_t)r->slot, (uint64_t)s * 1000 + (uint64_t)c), 0 };
        int kind = (int)(next(&d) % 20), on_world = kind == 12 && r->split;
        char call[96];
        if (on_world) /* whose windows outlive the halves */
            snprintf(call, sizeof call, "MPI_COMM_WORLD, sequence %d call %d", s, c);
        else
            snprintf(call, sizeof call, "%s %d of %d ranks, sequence %d call %d",
                     r->split ? "half" : "thread", r->split ? world_rank % 2 : r->slot, size, s,
                     c);
        if (on_world) {
            test_note(r->slot, "%s: waiting for the other half", call);
            polite_barrier(MPI_COMM_WORLD);
            broadcast(r, MPI_COMM_WORLD, world_rank, world_size, &d, call);
        } else if (kind <= 12) {
            broadcast(r, comm, rank, size, &d, call);
        } else {
            other_call(r, comm, rank, size, &d, kind < 15 ? 0 : kind < 17 ? 1 : 2, call);
        }
    }
    if (r->split)
        MPI_Comm_free(&comm); /* and the windows with it */
}

static void *run(void *arg)
{
    runner *r = arg;
    for (int s = 0; s < r->sequences; s++)
        run_sequence(r, s);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *option;
    int sequences = (option = test_option(argc, argv, "--sequences")) ? atoi(option) : 20;
    int calls = (option = test_option(argc, argv, "--calls")) ? atoi(option) : 120;
    int split = (option = test_option(argc, argv, "--split")) ? atoi(option) : 0;
    int threads = (option = test_option(argc, argv, "--threads")) ? atoi(option) : 1;
    int remake = (option = test_option(argc, argv, "--remake")) ? atoi(option) : 8;
    int limit = (option = test_option(argc, argv, "--watchdog")) ? atoi(option) : 50;
    int provided = MPI_THREAD_SINGLE, world_rank, world_size;

    if (threads < 1 || threads > MAX_THREADS || (split && threads > 1) || remake < 1) {
        fprintf(stderr, "bcast_random_test: --threads 1..%d, not with --split; --remake >= 1\n",
                MAX_THREADS);
        return 2;
    }
    MPI_Init_thread(&argc, &argv, threads > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                    &provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (threads > 1 && provided < MPI_THREAD_MULTIPLE) {
        if (world_rank == 0)
            printf("bcast_random_test: SKIP, no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return TEST_SKIP;
    }
    unsigned long long seed = test_seed(argc, argv, MPI_COMM_WORLD);
    test_watchdog(limit, "bcast_random_test", world_rank);

    runner runners[MAX_THREADS];
    pthread_t ids[MAX_THREADS];
    MPI_Datatype gapped;
    MPI_Type_vector(3, 1, 2, MPI_INT, &gapped); /* 3 ints 2 apart: 12 bytes of data in 20 */
    MPI_Type_commit(&gapped);
    for (int t = 0; t < threads; t++) {
        runner *r = &runners[t];
        memset(r, 0, sizeof *r);
        r->slot = t;
        r->seed = seed;
        r->sequences = sequences;
        r->calls = calls;
        r->remake = remake;
        r->split = split;
        r->gapped = gapped;
        r->comm = MPI_COMM_WORLD;
        if (threads > 1) {
            MPI_Comm_dup(MPI_COMM_WORLD, &r->comm);
            MPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
        }
        /* The vector's layout spans 5 ints for 3: room for a message of MAX_BYTES. */
        r->got = malloc(2 * (size_t)MAX_BYTES + 64);
        r->want = malloc(2 * (size_t)MAX_BYTES + 64);
    }
    if (threads == 1) {
        run(&runners[0]);
    } else {
        for (int t = 0; t < threads; t++)
            pthread_create(&ids[t], NULL, run, &runners[t]);
        for (int t = 0; t < threads; t++)
            pthread_join(ids[t], NULL);
    }
    int passed = 0, failed = 0;
    for (int t = 0; t < threads; t++) {
        passed += runners[t].passed;
        failed += runners[t].failed;
        free(runners[t].got);
        free(runners[t].want);
        if (threads > 1)
            MPI_Comm_free(&runners[t].comm);
    }
    MPI_Type_free(&gapped);
    test_watchdog(0, NULL, world_rank);
    /* Rank 0's count, failed if any rank failed (the halves count different calls). */
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("seed %llu, %d sequences of %d calls%s, %d thread(s)\n", seed, sequences, calls,
               split ? " on halves" : "", threads);
    int status = test_summary("bcast_random_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
