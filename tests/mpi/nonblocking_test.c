/*
 * nonblocking_test - nonblocking executions of plans (AIP_Plan_start,
 * AIP_Plan_test, AIP_Plan_wait): each gives byte for byte what the MPI
 * library's out-of-place collective gives on a copy of its input, with
 * other plans in flight and other communication interleaved at random.
 *
 * Rounds, for every algorithm of the library's table and auto (on nodes of
 * two consecutive ranks), each with three plans in flight at once and a
 * budget of a few small chunks, so that an exchange takes many tests (l's
 * is larger, so that its leaders hold their nodes' buffers):
 *   A  AIP_Alltoall_init of a random count, on a duplicate `one` of
 *      MPI_COMM_WORLD;
 *   B  AIP_Alltoallv_init of random symmetric counts in random places, on
 *      `one` too: two executions in flight on one communicator;
 *   C  AIP_Alltoall_init on another duplicate, `two`.
 * Every rank starts A, B and C in that order, then takes its own random
 * steps: a test of a random plan, a test of its ring messages (point to
 * point on MPI_COMM_WORLD, posted before the starts), or its next blocking
 * collective, in the same order on every rank: MPI_Allreduce on a third
 * duplicate, a blocking AIP_Alltoall on `one` while A and B are in flight,
 * MPI_Allreduce again.  Then it waits for A, B and C in an order of its own,
 * so that partners complete them in different orders.  A data error on any
 * rank fails the round on all.
 *
 * And the rules of the calls, on hsa: testing or waiting on a plan that
 * is not executing returns at once (flag 1); starting or freeing a plan
 * that is executing fails with MPI_ERR_REQUEST and leaves it executing,
 * right when it completes.  On every algorithm that runs as a job (all but
 * the general one with AIP_REQUESTS=alltoall): AIP_Plan_start returns before
 * the partners have started (rank 0 starts alone, then tells them); on hsa
 * it allocates nothing.
 *
 *   nonblocking_test [--seed N] [--rounds N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "call/alloc.h" /* the library's allocations, counted */
#include "test_util.h"

enum { PLANS = 3, COLLECTIVES = 3 };

typedef struct test_run {
    int rank, size, passed, failed, rounds;
    unsigned long long seed;
    MPI_Comm one, two, three; /* duplicates of MPI_COMM_WORLD */
} test_run;

/* One plan of a round: its layout, its buffer and what MPI says it must hold. */
typedef struct planned {
    AIP_Plan plan;
    int *counts, *displs; /* in doubles, p each */
    double *buf, *expected;
    size_t elements;
} planned;

static AIP_Options options_for(AIP_Algorithm algorithm)
{
    AIP_Options options = AIP_OPTIONS_INIT;
    options.algorithm = algorithm;
    options.aux_bytes = 2048; /* chunks of 512 bytes: blocks take up to 5 */
    if (algorithm == AIP_ALGORITHM_L) /* else sa runs: a leader needs its node's buffers */
        options.aux_bytes = 256 << 10;
    options.ranks_per_node = 2;
    return options;
}

/* A random number of this rank for round r, step k: its own choices. */
static unsigned pick(const test_run *t, int r, int k, unsigned range)
{
    return (unsigned)(test_hash(t->seed + 7919u * (uint64_t)r, (uint64_t)t->rank, (uint64_t)k) %
                      range);
}

/* The layout of plan `which` of round r: equal blocks (A, C), or random
 * symmetric counts in a random order of the peers with gaps (B). */
static void lay_out(const test_run *t, int r, int which, planned *x)
{
    int p = t->size;
    uint64_t key = t->seed + 131u * (uint64_t)r + (uint64_t)which;
    int equal = 1 + (int)(test_hash(key, 0, 0) % 300);

    x->counts = malloc(sizeof(int) * 2 * (size_t)p);
    x->displs = x->counts + p;
    for (int j = 0; j < p; j++) {
        int lo = j < t->rank ? j : t->rank, hi = j < t->rank ? t->rank : j;
        x->counts[j] = which == 1 ? test_pair_count(key, lo, hi) : equal;
        x->displs[j] = equal * j;
    }
    x->elements = which == 1
                      ? (size_t)test_place_regions(key, t->rank, p, x->counts, x->displs)
                      : (size_t)equal * (size_t)p;
}

/* Plan `which` made on comm, its buffer filled and its expected result computed. */
static int prepare(const test_run *t, int r, int which, AIP_Algorithm algorithm, MPI_Comm comm,
                   planned *x)
{
    AIP_Options options = options_for(algorithm);
    size_t bytes;

    lay_out(t, r, which, x);
    bytes = x->elements * sizeof(double);
    x->buf = malloc(bytes);
    x->expected = malloc(bytes);
    double *input = malloc(bytes);
    test_fill(x->buf, bytes, t->seed * 31 + 3u * (uint64_t)r + (uint64_t)which, t->rank);
    memcpy(input, x->buf, bytes);
    memcpy(x->expected, x->buf, bytes);
    MPI_Alltoallv(input, x->counts, x->displs, MPI_DOUBLE, x->expected, x->counts, x->displs,
                  MPI_DOUBLE, comm);
    free(input);
    return which == 1 ? AIP_Alltoallv_init(x->counts, x->displs, MPI_DOUBLE, comm, &options,
                                           &x->plan)
                      : AIP_Alltoall_init(x->counts[0], MPI_DOUBLE, comm, &options, &x->plan);
}

static int exact(const test_run *t, const planned *x)
{
    return first_differing_region(x->buf, x->expected, t->size, x->counts, x->displs,
                                  sizeof(double)) < 0;
}

static void release(planned *x)
{
    AIP_Plan_free(&x->plan);
    free(x->counts);
    free(x->buf);
    free(x->expected);
}

/* A blocking AIP_Alltoall on `one` while A and B are in flight there. */
static int blocking_call(const test_run *t, int r, AIP_Algorithm algorithm)
{
    int p = t->size, count = 1 + (int)(test_hash(t->seed + (uint64_t)r, 5, 5) % 200), ok;
    size_t elements = (size_t)p * (size_t)count, bytes = elements * sizeof(double);
    double *buf = malloc(bytes), *expected = malloc(bytes);
    AIP_Options options = options_for(algorithm);

    test_fill(buf, bytes, t->seed + 17u * (uint64_t)r, t->rank);
    MPI_Alltoall(buf, count, MPI_DOUBLE, expected, count, MPI_DOUBLE, t->three);
    ok = AIP_Alltoall_opt(buf, count, MPI_DOUBLE, t->one, &options) == MPI_SUCCESS &&
         memcmp(buf, expected, bytes) == 0;
    free(buf);
    free(expected);
    return ok;
}

static void round_of(test_run *t, AIP_Algorithm algorithm, int r)
{
    MPI_Comm comms[PLANS] = { t->one, t->one, t->two };
    planned x[PLANS];
    int ok = 1, ring_in = -1, ring_out = t->rank, flags[PLANS] = { 0 };
    int left = (t->rank + t->size - 1) % t->size, right = (t->rank + 1) % t->size;
    MPI_Request ring[2];
    MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's constant */
    char what[128];

    for (int i = 0; i < PLANS; i++)
        ok &= prepare(t, r, i, algorithm, comms[i], &x[i]) == MPI_SUCCESS;
    MPI_Irecv(&ring_in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &ring[0]);
    MPI_Isend(&ring_out, 1, MPI_INT, right, 9, MPI_COMM_WORLD, &ring[1]);
    for (int i = 0; i < PLANS; i++)
        ok &= AIP_Plan_start(x[i].plan, x[i].buf) == MPI_SUCCESS;

    int collectives = 0, ring_done = 0;
    for (int k = 0; collectives < COLLECTIVES; k++) {
        unsigned action = pick(t, r, k, 8);
        if (action < 5) { /* test a plan */
            int i = (int)pick(t, r, k + 100000, PLANS);
            ok &= AIP_Plan_test(x[i].plan, &flags[i]) == MPI_SUCCESS;
        } else if (action < 7) {
            if (!ring_done)
                MPI_Testall(2, ring, &ring_done, statuses);
        } else if (collectives++ == 1) {
            ok &= blocking_call(t, r, algorithm);
        } else {
            int mine = k, sum;
            MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, t->three);
        }
    }
    int first = (int)pick(t, r, -1, PLANS), second = (first + 1 + (int)pick(t, r, -2, 2)) % PLANS;
    int order[PLANS] = { first, second, 3 - first - second };
    for (int i = 0; i < PLANS; i++)
        ok &= AIP_Plan_wait(x[order[i]].plan) == MPI_SUCCESS;
    MPI_Waitall(2, ring, statuses);
    ok &= ring_in == left;
    for (int i = 0; i < PLANS; i++) {
        int flag = 0; /* complete: a test says so */
        ok &= exact(t, &x[i]) && AIP_Plan_test(x[i].plan, &flag) == MPI_SUCCESS && flag;
        release(&x[i]);
    }
    snprintf(what, sizeof what, "%s: round %d, three plans in flight, random steps (seed %llu)",
             AIP_Algorithm_name(algorithm), r, t->seed);
    test_count(test_agree(ok, MPI_COMM_WORLD), what, &t->passed, &t->failed, MPI_COMM_WORLD);
}

/* Start returns before the partners start, on a plan of `which` (A or B) that
 * algorithm runs: rank 0 starts first and tells the others only then, so a start
 * that waited for its partners would never return (the test's time limit). */
static void start_alone(test_run *t, int which, AIP_Algorithm algorithm)
{
    planned x;
    int token = 1, ok = prepare(t, 1, which, algorithm, t->one, &x) == MPI_SUCCESS;
    char what[96];

    ok &= AIP_Plan_algorithm(x.plan) == algorithm;
    if (t->rank == 0) {
        ok &= AIP_Plan_start(x.plan, x.buf) == MPI_SUCCESS;
        for (int j = 1; j < t->size; j++)
            MPI_Send(&token, 1, MPI_INT, j, 10, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ok &= AIP_Plan_start(x.plan, x.buf) == MPI_SUCCESS;
    }
    ok &= AIP_Plan_wait(x.plan) == MPI_SUCCESS && exact(t, &x);
    release(&x);
    snprintf(what, sizeof what, "%s: start returns before the partners start",
             AIP_Algorithm_name(algorithm));
    test_count(test_agree(ok, MPI_COMM_WORLD), what, &t->passed, &t->failed, MPI_COMM_WORLD);
}

/* The rules of the calls, on one hsa plan. */
static void rules(test_run *t)
{
    planned x;
    int ok, flag = 0, err;
    long allocations;

    ok = prepare(t, 0, 1, AIP_ALGORITHM_HSA, t->one, &x) == MPI_SUCCESS;
    ok &= AIP_Plan_test(x.plan, &flag) == MPI_SUCCESS && flag == 1;
    ok &= AIP_Plan_wait(x.plan) == MPI_SUCCESS;
    test_count(test_agree(ok, MPI_COMM_WORLD), "a plan not executing: test and wait return at once",
               &t->passed, &t->failed, MPI_COMM_WORLD);

    aip_fault_alloc_arm(-1, 0); /* counts the library's allocations, fails none */
    ok = AIP_Plan_start(x.plan, x.buf) == MPI_SUCCESS;
    allocations = aip_fault_alloc_count();
    err = AIP_Plan_start(x.plan, x.buf);
    int class = MPI_SUCCESS;
    MPI_Error_class(err, &class);
    ok &= class == MPI_ERR_REQUEST;
    AIP_Plan kept = x.plan;
    err = AIP_Plan_free(&x.plan);
    MPI_Error_class(err, &class);
    ok &= class == MPI_ERR_REQUEST && x.plan == kept;
    ok &= AIP_Plan_wait(x.plan) == MPI_SUCCESS && exact(t, &x);
    release(&x);
    test_count(test_agree(ok && allocations == 0, MPI_COMM_WORLD),
               "start allocates nothing; start and free of an executing plan: MPI_ERR_REQUEST, "
               "and it completes exact",
               &t->passed, &t->failed, MPI_COMM_WORLD);

    start_alone(t, 1, AIP_ALGORITHM_HSA);
    /* sa and rd on equal blocks (A), on nodes of two ranks; one node, or ranks
     * that do not fill their nodes alike, and they give way to hsa */
    if (t->size >= 4 && t->size % 2 == 0) {
        start_alone(t, 0, AIP_ALGORITHM_SA);
        start_alone(t, 0, AIP_ALGORITHM_RD);
        start_alone(t, 0, AIP_ALGORITHM_L);
    }
    if (t->size >= 2) { /* stages with a final pass home where p is no power of two; phases */
        start_alone(t, 0, AIP_ALGORITHM_HYPERCUBE);
        start_alone(t, 1, AIP_ALGORITHM_GENERAL);
    }
}

int main(int argc, char **argv)
{
    test_run t = { 0 };
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;
    const char *rounds = test_option(argc, argv, "--rounds");

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.size);
    t.seed = test_seed(argc, argv, MPI_COMM_WORLD);
    t.rounds = rounds ? atoi(rounds) : 3;
    MPI_Comm_dup(MPI_COMM_WORLD, &t.one);
    MPI_Comm_dup(MPI_COMM_WORLD, &t.two);
    MPI_Comm_dup(MPI_COMM_WORLD, &t.three);
    MPI_Comm_set_errhandler(t.one, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(t.two, MPI_ERRORS_RETURN);

    for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
        if (kind != AIP_KIND_CHOICE || algorithm == AIP_ALGORITHM_AUTO)
            for (int r = 0; r < t.rounds; r++)
                round_of(&t, algorithm, r);
    rules(&t);

    MPI_Comm_free(&t.one);
    MPI_Comm_free(&t.two);
    MPI_Comm_free(&t.three);
    int status = test_summary("nonblocking_test", t.passed, t.failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
