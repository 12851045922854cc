/*
 * plan_test - plans (AIP_*_init, AIP_Plan_execute): made once, executed
 * several times on different buffers, each execution gives byte for byte
 * what the MPI library's out-of-place collective gives on a copy of the
 * input; and an execution makes no collective call of the argument check,
 * no communicator duplication, nothing but the exchange.
 *
 * Cases, for every algorithm of the library's table (AIP_Algorithm_at) and
 * auto, on nodes of two consecutive ranks (so that sa, rd and l run where
 * p is even and above 2): AIP_Alltoall_init (doubles, a budget of a few
 * chunks), AIP_Alltoallv_init (random symmetric counts, blocks in random
 * order with gaps); AIP_Alltoallv_general_init for the general layouts
 * (send and receive regions of different sizes and places, overlapping);
 * an init whose arguments disagree (every rank returns MPI_ERR_TYPE and no
 * plan).
 *
 * What a plan holds (--heap): AIP_Plan_bytes against the heap growth of a
 * second init of each case (the first one made the communicator's caches),
 * with malloc's overhead per allocation of the library as the only slack.
 * glibc's per-thread cache must be off (plan.sh sets GLIBC_TUNABLES), since
 * mallinfo2 counts the chunks it keeps as in use; the sanitizers' malloc
 * reports no heap, so their runs leave --heap out.
 * Plans outlive their communicator, as MPI's persistent requests do: made
 * on a duplicate that is freed before they execute, exact, and their errors
 * go to the handler the communicator had.  Plans that differ between ranks
 * (erroneous, but cheap to catch): ranks 0 and 1 execute plans of blocks
 * of different sizes, and both return an error instead of wrong data.
 *
 * The MPI calls that would betray setup work during an execution are
 * counted by definitions in this program that the library's calls resolve
 * to (the PMPI profiling interface): MPI_Allreduce (the argument check),
 * MPI_Comm_dup and MPI_Comm_split (communicators), MPI_Allgather (nodes).
 *
 *   plan_test [--seed N] [--heap]
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alltoall_inplace.h"
#include "call/alloc.h" /* the library's allocations, counted */
#include "test_util.h"

#define EXECUTIONS 3

/* ---- Counting the setup calls (PMPI) ---- */

static long setup_calls;

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    setup_calls++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    setup_calls++;
    return PMPI_Comm_dup(comm, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    setup_calls++;
    return PMPI_Comm_split(comm, color, key, newcomm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    setup_calls++;
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

/* ---- Layouts ---- */

typedef struct test_run {
    int rank, size, passed, failed;
    unsigned long long seed;
    MPI_Comm comm;
    int heap; /* --heap: check AIP_Plan_bytes against the heap */
} test_run;

/* ---- Executions ---- */

/* Runs the plan EXECUTIONS times, each on a fresh buffer of `elements`
 * doubles with new data, against MPI_Alltoallv(w) of the same layout on a
 * copy; sends/recvs: counts and displacements in doubles. */
static void check_executions(test_run *t, AIP_Plan plan, const char *what, size_t elements,
                             const int *scounts, const int *sdispls, const int *rcounts,
                             const int *rdispls)
{
    size_t bytes = elements * sizeof(double);
    int ok = 1;
    char name[160];

    for (int e = 0; e < EXECUTIONS; e++) {
        double *buf = malloc(bytes), *input = malloc(bytes), *expected = malloc(bytes);
        test_fill(buf, bytes, t->seed * 31 + (uint64_t)e, t->rank);
        memcpy(input, buf, bytes);
        memcpy(expected, buf, bytes);
        MPI_Alltoallv(input, scounts, sdispls, MPI_DOUBLE, expected, rcounts, rdispls,
                      MPI_DOUBLE, t->comm);
        long before = setup_calls;
        int err = AIP_Plan_execute(plan, buf);
        long during = setup_calls - before;
        ok &= err == MPI_SUCCESS && during == 0 &&
              first_differing_region(buf, expected, t->size, rcounts, rdispls, sizeof(double)) <
                  0;
        if (err != MPI_SUCCESS || during)
            fprintf(stderr, "rank %d: %s execution %d: error %d, %ld setup calls\n", t->rank,
                    what, e, err, during);
        free(buf);
        free(input);
        free(expected);
    }
    snprintf(name, sizeof name, "%s, %d executions on fresh buffers (seed %llu)", what,
             EXECUTIONS, t->seed);
    test_count(test_agree(ok, t->comm), name, &t->passed, &t->failed, t->comm);
}

/* ---- What a plan holds ---- */

/* glibc's bytes per allocation beyond those asked for (header and rounding). */
#define MALLOC_SLACK 32

static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

/* Whether the heap's growth shows a small allocation that reuses a freed
 * chunk (not with a thread cache, nor under a sanitizer's malloc). */
static int heap_measurable(void)
{
    char *volatile probe = malloc(64); /* volatile: not optimised away */
    free(probe);
    size_t before = heap_in_use();
    probe = malloc(64);
    size_t grown = heap_in_use() - before;
    free(probe);
    return grown >= 64 && grown <= 64 + MALLOC_SLACK;
}

/* An init of a case, with its arguments. */
typedef int (*init_fn)(const void *args, MPI_Comm comm, AIP_Plan *plan);

/* AIP_Plan_bytes against the heap's growth during an init of the case, to
 * within malloc's slack on the library's allocations.  Tried up to three
 * times: MPI may grow its own pools during one (for messages that arrive
 * before their receive is posted). */
static void check_held(test_run *t, init_fn init, const void *args, const char *what)
{
    int ok = 0;
    char name[200];

    if (!t->heap)
        return;
    for (int attempt = 0; attempt < 3 && !ok; attempt++) {
        AIP_Plan plan;
        aip_fault_alloc_arm(-1, 0); /* counts the library's allocations, fails none */
        size_t before = heap_in_use();
        if (init(args, t->comm, &plan) != MPI_SUCCESS)
            break;
        size_t grown = heap_in_use() - before, held = AIP_Plan_bytes(plan);
        long allocations = aip_fault_alloc_count();
        ok = held <= grown && grown <= held + MALLOC_SLACK * (size_t)allocations;
        if (!ok && attempt == 2)
            fprintf(stderr,
                    "rank %d: %s: AIP_Plan_bytes %zu, heap grew by %zu in %ld allocations\n",
                    t->rank, what, held, grown, allocations);
        AIP_Plan_free(&plan);
        ok = test_agree(ok, t->comm); /* inits are collective: all try again, or none */
    }
    snprintf(name, sizeof name, "%s: AIP_Plan_bytes is what the plan holds", what);
    test_count(ok, name, &t->passed, &t->failed, t->comm);
}

static int init_alltoall(const void *options, MPI_Comm comm, AIP_Plan *plan)
{
    return AIP_Alltoall_init(37, MPI_DOUBLE, comm, options, plan);
}

typedef struct general_args {
    const int *scounts, *sdispls, *rcounts, *rdispls;
} general_args;

static int init_general(const void *args, MPI_Comm comm, AIP_Plan *plan)
{
    const general_args *a = args;
    return AIP_Alltoallv_general_init(a->scounts, a->sdispls, a->rcounts, a->rdispls,
                                      MPI_DOUBLE, comm, NULL, plan);
}

static AIP_Options options_for(AIP_Algorithm algorithm)
{
    AIP_Options options = AIP_OPTIONS_INIT;
    options.algorithm = algorithm;
    options.aux_bytes = 4096; /* chunks of 2 KiB: blocks of up to 2.4 KiB take two */
    options.ranks_per_node = 2;
    return options;
}

static void symmetric_cases(test_run *t, AIP_Algorithm algorithm, int c)
{
    int p = t->size;
    int *counts = malloc(sizeof(int) * 4 * (size_t)p), *displs = counts + p;
    int *equal = displs + p, *equal_displs = equal + p;
    AIP_Options options = options_for(algorithm);
    AIP_Plan plan;
    char what[96];

    /* AIP_Alltoall: p blocks of 37 doubles */
    for (int j = 0; j < p; j++) {
        equal[j] = 37;
        equal_displs[j] = 37 * j;
    }
    snprintf(what, sizeof what, "AIP_Alltoall_init %s", AIP_Algorithm_name(algorithm));
    long before = setup_calls;
    if (init_alltoall(&options, t->comm, &plan) == MPI_SUCCESS) {
        /* the init's agreement is seen: counting works, so zero during executions means it */
        test_count(setup_calls > before, "the setup calls of an init are counted", &t->passed,
                   &t->failed, t->comm);
        check_executions(t, plan, what, 37 * (size_t)p, equal, equal_displs, equal,
                         equal_displs);
        AIP_Plan_free(&plan);
        test_count(plan == NULL, "AIP_Plan_free clears the handle", &t->passed, &t->failed,
                   t->comm);
        check_held(t, init_alltoall, &options, what); /* the communicator's caches made */
    } else
        test_count(0, what, &t->passed, &t->failed, t->comm);

    /* AIP_Alltoallv: symmetric random counts */
    for (int j = 0; j < p; j++)
        counts[j] = test_pair_count(t->seed + (uint64_t)c, t->rank < j ? t->rank : j,
                                    t->rank < j ? j : t->rank);
    size_t elements = (size_t)test_place_regions(t->seed + (uint64_t)c, t->rank, p, counts,
                                                 displs);
    snprintf(what, sizeof what, "AIP_Alltoallv_init %s", AIP_Algorithm_name(algorithm));
    if (AIP_Alltoallv_init(counts, displs, MPI_DOUBLE, t->comm, &options, &plan) ==
        MPI_SUCCESS) {
        check_executions(t, plan, what, elements, counts, displs, counts, displs);
        AIP_Plan_free(&plan);
    } else
        test_count(0, what, &t->passed, &t->failed, t->comm);
    free(counts);
}

/* Send regions packed in one random order, receive regions in another, over
 * the same buffer: they overlap each other. */
static void general_case(test_run *t, int c)
{
    int p = t->size;
    int *scounts = malloc(sizeof(int) * 4 * (size_t)p), *sdispls = scounts + p;
    int *rcounts = sdispls + p, *rdispls = rcounts + p;
    AIP_Plan plan;

    for (int j = 0; j < p; j++) {
        scounts[j] = test_pair_count(t->seed + (uint64_t)c, t->rank, j);
        rcounts[j] = test_pair_count(t->seed + (uint64_t)c, j, t->rank);
    }
    int send_elements = test_place_regions(t->seed + (uint64_t)c, t->rank, p, scounts, sdispls);
    int recv_elements =
        test_place_regions(t->seed + (uint64_t)c + 7, t->rank, p, rcounts, rdispls);
    size_t elements = (size_t)(send_elements > recv_elements ? send_elements : recv_elements);
    if (AIP_Alltoallv_general_init(scounts, sdispls, rcounts, rdispls, MPI_DOUBLE, t->comm,
                                   NULL, &plan) == MPI_SUCCESS) {
        test_count(AIP_Plan_algorithm(plan) == AIP_ALGORITHM_GENERAL, "general runs general",
                   &t->passed, &t->failed, t->comm);
        check_executions(t, plan, "AIP_Alltoallv_general_init", elements, scounts, sdispls,
                         rcounts, rdispls);
        AIP_Plan_free(&plan);
        general_args args = { scounts, sdispls, rcounts, rdispls };
        check_held(t, init_general, &args, "AIP_Alltoallv_general_init");
    } else
        test_count(0, "AIP_Alltoallv_general_init", &t->passed, &t->failed, t->comm);
    free(scounts);
}

/* Counts that disagree between ranks 0 and 1: every rank MPI_ERR_TYPE, no plan. */
static void error_case(test_run *t)
{
    AIP_Plan plan = (AIP_Plan)&plan; /* not NULL: init must clear it */
    int count = t->rank == 1 ? 2 : 1, error_class = MPI_SUCCESS;
    if (t->size < 2)
        return;
    int err = AIP_Alltoall_init(count, MPI_INT, t->comm, NULL, &plan);
    MPI_Error_class(err, &error_class);
    test_count(test_agree(error_class == MPI_ERR_TYPE && plan == NULL, t->comm),
               "mismatched counts: MPI_ERR_TYPE on every rank, no plan", &t->passed,
               &t->failed, t->comm);
}

/* Plans on a communicator freed before they execute: exact, and an error of
 * an execution goes to the handler the communicator had (MPI_ERRORS_RETURN,
 * copied by the duplication). */
static void outlives_comm_case(test_run *t, AIP_Algorithm algorithm)
{
    int p = t->size, *counts = malloc(sizeof(int) * 2 * (size_t)p), *displs = counts + p;
    AIP_Options options = options_for(algorithm);
    AIP_Plan plan, second;
    MPI_Comm comm;
    char what[96];

    for (int j = 0; j < p; j++) {
        counts[j] = 37;
        displs[j] = 37 * j;
    }
    snprintf(what, sizeof what, "%s plan executed after MPI_Comm_free of its communicator",
             AIP_Algorithm_name(algorithm));
    PMPI_Comm_dup(t->comm, &comm);
    int made = AIP_Alltoall_init(37, MPI_DOUBLE, comm, &options, &plan) == MPI_SUCCESS;
    made &= AIP_Alltoall_init(37, MPI_DOUBLE, comm, &options, &second) == MPI_SUCCESS;
    MPI_Comm_free(&comm);
    if (!test_agree(made, t->comm)) {
        test_count(0, what, &t->passed, &t->failed, t->comm);
        free(counts);
        return;
    }
    check_executions(t, plan, what, 37 * (size_t)p, counts, displs, counts, displs);
    AIP_Plan_free(&plan);
    int error_class = MPI_SUCCESS, err = AIP_Plan_execute(second, NULL);
    MPI_Error_class(err, &error_class);
    test_count(test_agree(error_class == MPI_ERR_BUFFER, t->comm),
               "buf NULL after MPI_Comm_free: MPI_ERR_BUFFER, returned by the communicator's "
               "handler",
               &t->passed, &t->failed, t->comm);
    check_executions(t, second, what, 37 * (size_t)p, counts, displs, counts, displs);
    AIP_Plan_free(&second);
    free(counts);
}

/* Ranks 0 and 1 execute plans of blocks of 8 and 7 doubles (one chunk each):
 * both must return an error, not wrong data; no rank may hang. */
static void different_plans_case(test_run *t, AIP_Algorithm algorithm)
{
    int p = t->size;
    AIP_Options options = options_for(algorithm);
    AIP_Plan eight, seven;
    char what[120];

    if (p < 2)
        return;
    int made = AIP_Alltoall_init(8, MPI_DOUBLE, t->comm, &options, &eight) == MPI_SUCCESS;
    made &= AIP_Alltoall_init(7, MPI_DOUBLE, t->comm, &options, &seven) == MPI_SUCCESS;
    snprintf(what, sizeof what, "%s: ranks 0 and 1 execute different plans: both return an error",
             AIP_Algorithm_name(algorithm));
    if (!test_agree(made, t->comm)) {
        test_count(0, what, &t->passed, &t->failed, t->comm);
        return;
    }
    double *buf = calloc(8 * (size_t)p, sizeof(double));
    fprintf(stderr, "plan_test: errors of different plans below are expected\n");
    int err = AIP_Plan_execute(t->rank == 1 ? seven : eight, buf);
    if (t->rank <= 1 && err == MPI_SUCCESS)
        fprintf(stderr, "rank %d: %s: MPI_SUCCESS\n", t->rank, what);
    test_count(test_agree(t->rank > 1 || err != MPI_SUCCESS, t->comm), what, &t->passed,
               &t->failed, t->comm);
    free(buf);
    AIP_Plan_free(&eight);
    AIP_Plan_free(&seven);
}

int main(int argc, char **argv)
{
    test_run t = { 0 };
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;

    MPI_Init(&argc, &argv);
    t.seed = (unsigned long long)time(NULL);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            t.seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--heap") == 0)
            t.heap = 1;
    MPI_Bcast(&t.seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    PMPI_Comm_dup(MPI_COMM_WORLD, &t.comm);
    MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
    /* MPICH raises errors of completing a request (a truncated message of
     * different_plans_case) on MPI_COMM_WORLD's handler, whatever the request. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t.comm, &t.rank);
    MPI_Comm_size(t.comm, &t.size);
    if (t.heap)
        test_count(test_agree(heap_measurable(), t.comm),
                   "the heap's growth is measurable (glibc.malloc.tcache_count=0)", &t.passed,
                   &t.failed, t.comm);

    for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
        if (algorithm != AIP_ALGORITHM_DEFAULT)
            symmetric_cases(&t, algorithm, i);
    for (int c = 100; c < 103; c++)
        general_case(&t, c);
    error_case(&t);
    outlives_comm_case(&t, AIP_ALGORITHM_HSA);
    outlives_comm_case(&t, AIP_ALGORITHM_AUTO);
    outlives_comm_case(&t, AIP_ALGORITHM_GENERAL);
    for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
        if (kind == AIP_KIND_SCHEDULE || kind == AIP_KIND_ROUTED)
            different_plans_case(&t, algorithm);

    int status = test_summary("plan_test", t.passed, t.failed, t.comm);
    MPI_Comm_free(&t.comm);
    MPI_Finalize();
    return status;
}
