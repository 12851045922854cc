/*
 * fault_test - the library under faults: each of its allocations failing in
 * turn, and each of its MPI point-to-point calls failing in turn.
 *
 *   fault_test --alloc   walk the allocations of every case: the k-th one on
 *                        rank r fails (the AIP_FAULT_ALLOC hook, call/alloc.h),
 *                        for every k the clean call makes (counted by the
 *                        hook, not guessed) and every r (on more than 2 ranks
 *                        one r per k, in turn: ranks_to_fail); every rank
 *                        must return MPI_ERR_NO_MEM with its buffer untouched
 *                        (the library's promise for errors found before the
 *                        exchange)
 *   fault_test --mpi     walk failures of MPI_Isend, MPI_Irecv, MPI_Testsome,
 *                        MPI_Waitall and MPI_Waitany (wrappers below, over
 *                        PMPI; the library's calls resolve to them): the n-th
 *                        call on rank r returns MPI_ERR_INTERN without doing
 *                        anything, r chosen as above; what must follow is
 *                        exchange.h's promise for errors during the exchange
 *                        (check_mpi_fault)
 *   fault_test --count   print each case's allocations per rank
 *   ... --only TEXT      the cases whose names contain TEXT
 *   ... --function NAME  with --mpi: failures of that function only
 *   fault_test --env [--expect-no-mem]
 *                        one AIP_Alltoall under AIP_FAULT_ALLOC as the
 *                        environment sets it: it must succeed, or with
 *                        --expect-no-mem return MPI_ERR_NO_MEM on every rank
 *
 * Cases: every algorithm of the table through AIP_Alltoall (node-aware ones
 * on nodes of 2 ranks), the general algorithm through AIP_Alltoallv_general
 * (both request exchanges), AIP_Alltoall_oop, AIP_Alltoallv and
 * AIP_Alltoallw with derived datatypes, plans (executed, or started and
 * tested until complete), first calls on a new communicator (building its
 * private duplicate and its node tables), and
 * AIP_Bcast_rma (making its windows on a new communicator).
 * Results are compared bit for bit with MPI_Alltoall, MPI_Alltoallv and
 * MPI_Alltoallw; the test script puts a time limit on each run, so that a
 * rank left waiting fails the test.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "call/alloc.h"
#include "test_util.h"

#define COUNT 8      /* ints per block of AIP_Alltoall: 32 bytes, what auto gives l */
#define SMALL_AUX 48 /* chunks of 24 bytes: blocks go in two, general in several phases */
#define INJECTED MPI_ERR_INTERN

/* ---- MPI calls that fail on demand (used by the library, resolved here). ---- */

enum { F_ISEND, F_IRECV, F_TESTSOME, F_WAITALL, F_WAITANY, N_FUNCTIONS };
static const char *const function_names[] = { "MPI_Isend", "MPI_Irecv", "MPI_Testsome",
                                               "MPI_Waitall", "MPI_Waitany" };
/* MPI_Testsome is called until transfers complete: how often depends on timing. */
static const int walk_cap[] = { 1000, 1000, 4, 1000, 1000 };
static int walked_functions[N_FUNCTIONS]; /* --function */

static struct {
    int counting;             /* inside a library call */
    long calls[N_FUNCTIONS];  /* this rank's calls since reset */
    int function;             /* which fails: N_FUNCTIONS for none */
    long index;               /* its index-th call on this rank (from 1) */
    int fired;
} mpi_faults = { .function = N_FUNCTIONS };

static int fails_now(int function)
{
    if (!mpi_faults.counting)
        return 0;
    long index = ++mpi_faults.calls[function];
    if (function != mpi_faults.function || index != mpi_faults.index)
        return 0;
    mpi_faults.fired = 1;
    return 1;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    if (fails_now(F_ISEND)) {
        *request = MPI_REQUEST_NULL;
        return INJECTED;
    }
    return PMPI_Isend(buf, count, datatype, dest, tag, comm, request);
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    if (fails_now(F_IRECV)) {
        *request = MPI_REQUEST_NULL;
        return INJECTED;
    }
    return PMPI_Irecv(buf, count, datatype, source, tag, comm, request);
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    if (fails_now(F_TESTSOME)) { /* nothing tested: the requests stay active */
        *outcount = 0;
        return INJECTED;
    }
    return PMPI_Testsome(incount, requests, outcount, indices, statuses);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (fails_now(F_WAITALL))
        return INJECTED;
    return PMPI_Waitall(count, requests, statuses);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    if (fails_now(F_WAITANY)) { /* none completed */
        *index = MPI_UNDEFINED;
        return INJECTED;
    }
    return PMPI_Waitany(count, requests, index, status);
}

/* Start counting (and fail the index-th call of `function` here; N_FUNCTIONS: none). */
static void mpi_faults_arm(int function, long index)
{
    memset(mpi_faults.calls, 0, sizeof mpi_faults.calls);
    mpi_faults.function = function;
    mpi_faults.index = index;
    mpi_faults.fired = 0;
}

/* ---- The cases. ---- */

typedef enum { ALLTOALL, ALLTOALL_OOP, ALLTOALLV, ALLTOALLW, GENERAL, BCAST } call_kind;
#define BCAST_ROOT(size) (1 % (size))

typedef struct fault_case {
    const char *name;
    call_kind kind;
    AIP_Algorithm algorithm;
    int ranks_per_node;
    long long aux_bytes;
    AIP_Requests requests;
    int plan;       /* AIP_*_init, AIP_Plan_execute (NONBLOCKING: AIP_Plan_start and
                     * AIP_Plan_test until complete), AIP_Plan_free */
    int fresh_comm; /* each run on a new communicator: the first call builds its caches
                     * (allocations only: the build sends no point-to-point message, and
                     * its collectives make a run cost ~0.4 s under MPICH on 5 ranks) */
} fault_case;

#define BIG_AUX AIP_AUX_BYTES_DEFAULT
enum { NONBLOCKING = 2 };
/* Besides one case per algorithm of the library's table (make_cases). */
static const fault_case fixed_cases[] = {
    { "l, its leaders' space in the budget", ALLTOALL, AIP_ALGORITHM_L, 2, BIG_AUX, 0, 0, 0 },
    { "auto", ALLTOALL, AIP_ALGORITHM_AUTO, 2, BIG_AUX, 0, 0, 0 },
    { "AIP_Alltoallv_general", GENERAL, AIP_ALGORITHM_DEFAULT, 0, SMALL_AUX, AIP_REQUESTS_P2P, 0,
      0 },
    { "AIP_Alltoallv_general, alltoall requests", GENERAL, AIP_ALGORITHM_DEFAULT, 0, SMALL_AUX,
      AIP_REQUESTS_ALLTOALL, 0, 0 },
    { "AIP_Alltoall_oop", ALLTOALL_OOP, AIP_ALGORITHM_HSA, 0, SMALL_AUX, 0, 0, 0 },
    { "AIP_Alltoallv, derived type", ALLTOALLV, AIP_ALGORITHM_LSA, 0, SMALL_AUX, 0, 0, 0 },
    { "AIP_Alltoallw, derived types", ALLTOALLW, AIP_ALGORITHM_HSA, 0, SMALL_AUX, 0, 0, 0 },
    { "plan hsa", ALLTOALL, AIP_ALGORITHM_HSA, 0, SMALL_AUX, 0, 1, 0 },
    { "plan sa", ALLTOALL, AIP_ALGORITHM_SA, 2, SMALL_AUX, 0, 1, 0 },
    { "plan l", ALLTOALL, AIP_ALGORITHM_L, 2, BIG_AUX, 0, 1, 0 },
    { "plan hypercube", ALLTOALL, AIP_ALGORITHM_HYPERCUBE, 0, BIG_AUX, 0, 1, 0 },
    { "plan AIP_Alltoallv_general", GENERAL, AIP_ALGORITHM_DEFAULT, 0, SMALL_AUX, 0, 1, 0 },
    { "plan AIP_Alltoallw", ALLTOALLW, AIP_ALGORITHM_MPICH, 0, SMALL_AUX, 0, 1, 0 },
    /* jobs advanced by tests only: each step begun where a test finds the last complete */
    { "nonblocking plan l", ALLTOALL, AIP_ALGORITHM_L, 2, BIG_AUX, 0, NONBLOCKING, 0 },
    { "nonblocking plan hypercube", ALLTOALL, AIP_ALGORITHM_HYPERCUBE, 0, BIG_AUX, 0,
      NONBLOCKING, 0 },
    { "nonblocking plan AIP_Alltoallv_general", GENERAL, AIP_ALGORITHM_DEFAULT, 0, SMALL_AUX, 0,
      NONBLOCKING, 0 },
    { "first sa on a new communicator", ALLTOALL, AIP_ALGORITHM_SA, 2, SMALL_AUX, 0, 0, 1 },
    { "first auto on a new communicator", ALLTOALL, AIP_ALGORITHM_AUTO, 0, BIG_AUX, 0, 0, 1 },
    { "first plan l on a new communicator", ALLTOALL, AIP_ALGORITHM_L, 2, BIG_AUX, 0, 1, 1 },
    { "first AIP_Alltoallv_general on a new communicator", GENERAL, AIP_ALGORITHM_DEFAULT, 0,
      SMALL_AUX, 0, 0, 1 },
    /* AIP_Bcast_rma, binary tree among nodes of one rank (puts between them): its
     * windows are made by the first call on a communicator */
    { "AIP_Bcast_rma", BCAST, AIP_ALGORITHM_DEFAULT, 1, SMALL_AUX, 0, 0, 0 },
    { "first AIP_Bcast_rma on a new communicator", BCAST, AIP_ALGORITHM_DEFAULT, 2, SMALL_AUX,
      0, 0, 1 },
};
enum { MAX_CASES = 64 };
static fault_case cases[MAX_CASES];
static int n_cases;

/* One AIP_Alltoall case per algorithm that runs in the library's table
 * (AIP_Algorithm_at), the node-aware ones on nodes of 2 ranks, in a small
 * budget (l's leaders then do not fit: "l, ..." above runs l itself); then
 * the fixed cases. */
static void make_cases(void)
{
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;
    for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
        if (kind != AIP_KIND_CHOICE && n_cases < MAX_CASES)
            cases[n_cases++] = (fault_case){ AIP_Algorithm_name(algorithm), ALLTOALL, algorithm,
                                             kind == AIP_KIND_NODE_AWARE ? 2 : 0, SMALL_AUX,
                                             0, 0, 0 };
    for (size_t i = 0; i < sizeof fixed_cases / sizeof fixed_cases[0] && n_cases < MAX_CASES; i++)
        cases[n_cases++] = fixed_cases[i];
}

/* A case's layout and data on this rank: buf is exchanged, input what it held,
 * reference what MPI's own collective gives; `checked` marks the ints a
 * successful call defines (a general call leaves the rest undefined). */
typedef struct layout {
    int rank, size;
    size_t n; /* ints in buf */
    int *buf, *input, *reference, *send_copy;
    unsigned char *checked;
    int *counts, *displs, *rcounts, *rdispls; /* in the call's own units */
    MPI_Datatype *types;
    MPI_Datatype pair; /* two ints */
} layout;

static int value_of(int rank, size_t i)
{
    return (int)(test_hash(20240611u, (uint64_t)rank, i) & 0x7fffffff);
}

/* Counts of the symmetric calls: the same for the pair (r, j) on both sides. */
static int pair_count(int r, int j)
{
    return 1 + (r + j) % 3;
}

/* Bytes rank r sends to rank j in the general call (some pairs send nothing). */
static int general_count(int r, int j)
{
    return (r * 7 + j * 3) % 5;
}

static void layout_make(layout *d, const fault_case *c, int rank, int size)
{
    size_t p = (size_t)size;
    memset(d, 0, sizeof *d);
    d->rank = rank;
    d->size = size;
    d->counts = calloc(p, sizeof(int));
    d->displs = calloc(p, sizeof(int));
    d->rcounts = calloc(p, sizeof(int));
    d->rdispls = calloc(p, sizeof(int));
    d->types = calloc(p, sizeof(MPI_Datatype));
    MPI_Type_contiguous(2, MPI_INT, &d->pair);
    MPI_Type_commit(&d->pair);

    size_t sent = 0, received = 0;
    switch (c->kind) {
    case ALLTOALL:
    case ALLTOALL_OOP:
    case BCAST:
        d->n = p * COUNT;
        break;
    case ALLTOALLV: /* blocks of pairs, in the reverse order of the ranks */
        for (int j = size - 1; j >= 0; j--) {
            d->counts[j] = pair_count(rank, j);
            d->displs[j] = (int)(sent / 2);
            sent += 2 * (size_t)d->counts[j];
        }
        d->n = sent;
        break;
    case ALLTOALLW: /* ints for odd ranks, pairs for even ones; bytes as displacements */
        for (int j = 0; j < size; j++) {
            int ints = 2 * pair_count(rank, j);
            d->types[j] = j % 2 ? MPI_INT : d->pair;
            d->counts[j] = j % 2 ? ints : ints / 2;
            d->displs[j] = (int)(sent * sizeof(int));
            sent += (size_t)ints;
        }
        d->n = sent;
        break;
    case GENERAL: /* send blocks in rank order, receive blocks in the reverse order */
        for (int j = 0; j < size; j++) {
            d->counts[j] = general_count(rank, j);
            d->displs[j] = (int)sent;
            sent += (size_t)d->counts[j];
        }
        for (int j = size - 1; j >= 0; j--) {
            d->rcounts[j] = general_count(j, rank);
            d->rdispls[j] = (int)received;
            received += (size_t)d->rcounts[j];
        }
        d->n = sent > received ? sent : received;
        break;
    }
    size_t bytes = (d->n ? d->n : 1) * sizeof(int);
    d->buf = malloc(bytes);
    d->input = malloc(bytes);
    d->reference = malloc(bytes);
    d->send_copy = malloc(bytes);
    d->checked = calloc(d->n ? d->n : 1, 1);
    for (size_t i = 0; i < d->n; i++)
        d->input[i] = value_of(rank, i);

    /* MPI's result, out of place. */
    memcpy(d->reference, d->input, bytes); /* in place, bytes outside the blocks stay */
    switch (c->kind) {
    case ALLTOALL:
    case ALLTOALL_OOP:
        MPI_Alltoall(d->input, COUNT, MPI_INT, d->reference, COUNT, MPI_INT, MPI_COMM_WORLD);
        memset(d->checked, 1, d->n);
        break;
    case ALLTOALLV:
        MPI_Alltoallv(d->input, d->counts, d->displs, d->pair, d->reference, d->counts, d->displs,
                      d->pair, MPI_COMM_WORLD);
        memset(d->checked, 1, d->n);
        break;
    case ALLTOALLW:
        MPI_Alltoallw(d->input, d->counts, d->displs, d->types, d->reference, d->counts,
                      d->displs, d->types, MPI_COMM_WORLD);
        memset(d->checked, 1, d->n);
        break;
    case GENERAL:
        MPI_Alltoallv(d->input, d->counts, d->displs, MPI_INT, d->reference, d->rcounts,
                      d->rdispls, MPI_INT, MPI_COMM_WORLD);
        for (int j = 0; j < size; j++)
            memset(d->checked + d->rdispls[j], 1, (size_t)d->rcounts[j]);
        break;
    case BCAST:
        MPI_Bcast(d->reference, (int)d->n, MPI_INT, BCAST_ROOT(size), MPI_COMM_WORLD);
        memset(d->checked, 1, d->n);
        break;
    }
}

static void layout_free(layout *d)
{
    MPI_Type_free(&d->pair);
    free(d->counts);
    free(d->displs);
    free(d->rcounts);
    free(d->rdispls);
    free(d->types);
    free(d->buf);
    free(d->input);
    free(d->reference);
    free(d->send_copy);
    free(d->checked);
}

static int exact(const layout *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->checked[i] && d->buf[i] != d->reference[i])
            return 0;
    return 1;
}

static int untouched(const layout *d)
{
    return memcmp(d->buf, d->input, d->n * sizeof(int)) == 0;
}

static AIP_Options options_of(const fault_case *c)
{
    AIP_Options options = AIP_OPTIONS_INIT;
    options.algorithm = c->algorithm;
    options.ranks_per_node = c->ranks_per_node;
    options.aux_bytes = c->aux_bytes;
    options.requests = c->requests;
    options.bcast_algorithm = AIP_BCAST_BINARY;
    return options;
}

/* Make the plan of a case (plan cases only). */
static int plan_init(const fault_case *c, layout *d, MPI_Comm comm, AIP_Plan *plan)
{
    AIP_Options options = options_of(c);
    switch (c->kind) {
    case ALLTOALL: return AIP_Alltoall_init(COUNT, MPI_INT, comm, &options, plan);
    case ALLTOALLV:
        return AIP_Alltoallv_init(d->counts, d->displs, d->pair, comm, &options, plan);
    case ALLTOALLW:
        return AIP_Alltoallw_init(d->counts, d->displs, d->types, comm, &options, plan);
    case GENERAL:
        return AIP_Alltoallv_general_init(d->counts, d->displs, d->rcounts, d->rdispls, MPI_INT,
                                          comm, &options, plan);
    default: return MPI_ERR_ARG;
    }
}

/* Execute a plan case's plan on buf: AIP_Plan_execute, or start and test until it is
 * complete, giving the core away between tests (ranks may outnumber cores). */
static int execute(const fault_case *c, AIP_Plan plan, void *buf)
{
    int err, flag = 0;
    if (c->plan != NONBLOCKING)
        return AIP_Plan_execute(plan, buf);
    for (err = AIP_Plan_start(plan, buf); err == MPI_SUCCESS && !flag; sched_yield())
        err = AIP_Plan_test(plan, &flag);
    return err;
}

/* One call of a case on buf (reset to the input first); returns its error. */
static int call_once(const fault_case *c, layout *d, MPI_Comm comm)
{
    AIP_Options options = options_of(c);
    memcpy(d->buf, d->input, d->n * sizeof(int));
    switch (c->kind) {
    case ALLTOALL: return AIP_Alltoall_opt(d->buf, COUNT, MPI_INT, comm, &options);
    case ALLTOALL_OOP:
        memcpy(d->send_copy, d->input, d->n * sizeof(int));
        return AIP_Alltoall_oop_opt(d->send_copy, d->buf, COUNT, MPI_INT, comm, &options);
    case ALLTOALLV:
        return AIP_Alltoallv_opt(d->buf, d->counts, d->displs, d->pair, comm, &options);
    case ALLTOALLW:
        return AIP_Alltoallw_opt(d->buf, d->counts, d->displs, d->types, comm, &options);
    case GENERAL:
        return AIP_Alltoallv_general_opt(d->buf, d->counts, d->displs, d->rcounts, d->rdispls,
                                         MPI_INT, comm, &options);
    case BCAST:
        return AIP_Bcast_rma_opt(d->buf, (int)d->n, MPI_INT, BCAST_ROOT(d->size), comm,
                                 &options);
    }
    return MPI_ERR_ARG;
}

/* A communicator of all ranks that returns errors. */
static MPI_Comm new_comm(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    return comm;
}

static int class_of(int err)
{
    int error_class = MPI_SUCCESS;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &error_class);
    return error_class;
}

typedef struct tally {
    int passed, failed, rank;
    long runs;
    long walked[N_FUNCTIONS], fired[N_FUNCTIONS]; /* MPI faults asked for, and met */
    long partner_failed;                          /* ranks told so by an empty message */
} tally;

static void count_case(tally *t, int ok, const char *what, const fault_case *c, int at_rank,
                       long index)
{
    if (ok) {
        t->passed++;
        return;
    }
    t->failed++;
    if (t->rank == 0)
        fprintf(stderr, "FAIL: %s: %s, failing #%ld on rank %d\n", c->name, what, index, at_rank);
}

/*
 * Which ranks a walk makes fail at the k-th allocation (or call): each rank
 * that makes k of them, one run each, on 2 ranks; on more, one of them, in
 * turn.  Every k is walked on every p either way; on more ranks than cores a
 * run costs a blocking collective of ~50 ms under MPICH, and the failure
 * takes the same path whichever rank has it (the allocations and calls of
 * the ranks are alike but for l's leaders, which `counts` tells apart).
 */
static int ranks_to_fail(const long *counts, int size, long k, int turn, int *ranks)
{
    int n = 0;
    for (int r = 0; r < size; r++)
        if (counts[r] >= k)
            ranks[n++] = r;
    if (size > 2 && n > 1) {
        ranks[0] = ranks[(k + turn) % n];
        n = 1;
    }
    return n;
}

/* A walk's runs: what each rank saw, judged together once the walk is done
 * (a collective per run would cost more than the run where ranks outnumber
 * cores). */
typedef struct walk {
    long nruns;
    int *at_rank;
    long *index;
    int *good;
} walk;

static void walk_init(walk *w, const long *counts, int size, int limit)
{
    long most = 0;
    for (int r = 0; r < size; r++)
        most += counts[r] < limit ? counts[r] : limit;
    w->nruns = 0;
    w->at_rank = malloc(sizeof(int) * (size_t)(most + 1));
    w->index = malloc(sizeof(long) * (size_t)(most + 1));
    w->good = malloc(sizeof(int) * (size_t)(most + 1));
}

static void walk_judge(walk *w, tally *t, const fault_case *c, const char *what)
{
    MPI_Allreduce(MPI_IN_PLACE, w->good, (int)w->nruns, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    for (long i = 0; i < w->nruns; i++)
        count_case(t, w->good[i], what, c, w->at_rank[i], w->index[i]);
    t->runs += w->nruns;
    free(w->at_rank);
    free(w->index);
    free(w->good);
}

/* ---- Allocation faults. ---- */

/* One call of a case with the k-th allocation on rank `at_rank` failing (k = 0: none);
 * for a plan, the allocations of its making (executing it must make none). */
static int alloc_run(const fault_case *c, layout *d, MPI_Comm persistent, int at_rank, long k,
                     long *allocations, int *execute_allocated)
{
    MPI_Comm comm = c->fresh_comm ? new_comm() : persistent;
    int err;

    *execute_allocated = 0;
    aip_fault_alloc_arm(at_rank, k);
    if (c->plan) {
        AIP_Plan plan = NULL;
        memcpy(d->buf, d->input, d->n * sizeof(int));
        err = plan_init(c, d, comm, &plan);
        *allocations = aip_fault_alloc_count();
        if (err == MPI_SUCCESS) {
            aip_fault_alloc_arm(-1, 0);
            err = execute(c, plan, d->buf);
            *execute_allocated = aip_fault_alloc_count() != 0;
            AIP_Plan_free(&plan);
        } else if (plan) {
            err = MPI_ERR_OTHER; /* a failed init must leave no plan */
        }
    } else {
        err = call_once(c, d, comm);
        *allocations = aip_fault_alloc_count();
    }
    aip_fault_alloc_arm(-1, 0);
    if (c->fresh_comm)
        MPI_Comm_free(&comm);
    return err;
}

static void walk_allocations(const fault_case *c, int turn, layout *d, MPI_Comm comm, tally *t,
                             int print)
{
    long allocations, *counts = malloc(sizeof(long) * (size_t)d->size);
    int execute_allocated, *ranks = malloc(sizeof(int) * (size_t)d->size);
    walk w;

    /* A first call fills the communicator's caches (unless fresh); the second is counted. */
    int err = alloc_run(c, d, comm, -1, 0, &allocations, &execute_allocated);
    err |= alloc_run(c, d, comm, -1, 0, &allocations, &execute_allocated);
    int ok = test_agree(err == MPI_SUCCESS && exact(d) && !execute_allocated, MPI_COMM_WORLD);
    count_case(t, ok, "the clean call (or AIP_Plan_execute allocated)", c, -1, 0);
    MPI_Allgather(&allocations, 1, MPI_LONG, counts, 1, MPI_LONG, MPI_COMM_WORLD);
    if (print && d->rank == 0) {
        printf("%s (p=%d): allocations per rank:", c->name, d->size);
        for (int r = 0; r < d->size; r++)
            printf(" %ld", counts[r]);
        printf("\n");
    }
    walk_init(&w, counts, d->size, 1 << 30);
    /* A nonblocking plan makes the allocations of its blocking twin's case, and its
     * execution none (checked above): no walk of its own */
    for (long k = 1; ok && !print && c->plan != NONBLOCKING; k++) {
        int n = ranks_to_fail(counts, d->size, k, turn, ranks);
        if (n == 0)
            break;
        for (int i = 0; i < n; i++, w.nruns++) {
            int error_class = class_of(alloc_run(c, d, comm, ranks[i], k, &allocations,
                                                 &execute_allocated));
            w.at_rank[w.nruns] = ranks[i];
            w.index[w.nruns] = k;
            /* every rank MPI_ERR_NO_MEM (so all the same class), the buffer as it was */
            w.good[w.nruns] = error_class == MPI_ERR_NO_MEM && untouched(d);
            if (!w.good[w.nruns])
                fprintf(stderr, "rank %d: %s, allocation %ld failing on rank %d: class %d%s\n",
                        d->rank, c->name, k, ranks[i], error_class,
                        untouched(d) ? "" : ", the buffer changed");
        }
    }
    walk_judge(&w, t, c, "not MPI_ERR_NO_MEM on every rank with the buffer untouched");
    free(counts);
    free(ranks);
}

/* ---- MPI faults. ---- */

/* One call of a case, the index-th call of `function` on rank at_rank failing. */
static int mpi_run(const fault_case *c, layout *d, MPI_Comm persistent, int function,
                   int at_rank, long index)
{
    MPI_Comm comm = c->fresh_comm ? new_comm() : persistent;
    AIP_Plan plan = NULL;
    int err = MPI_SUCCESS;

    mpi_faults_arm(function, d->rank == at_rank ? index : 0);
    if (c->plan) {
        if ((err = plan_init(c, d, comm, &plan)) == MPI_SUCCESS) {
            memcpy(d->buf, d->input, d->n * sizeof(int));
            mpi_faults.counting = 1;
            err = execute(c, plan, d->buf);
            mpi_faults.counting = 0;
            AIP_Plan_free(&plan);
        }
    } else {
        mpi_faults.counting = 1;
        err = call_once(c, d, comm);
        mpi_faults.counting = 0;
    }
    if (c->fresh_comm)
        MPI_Comm_free(&comm);
    return err;
}

/* exchange.h's promise: the rank where MPI failed returns MPI's class; every
 * other rank returns MPI_SUCCESS with an exact result, or MPI_ERR_OTHER (its
 * partner failed); no rank waits forever (the script's time limit); and the
 * next call works (no message of the failed one is left to it). */
static int check_mpi_fault(const fault_case *c, layout *d, MPI_Comm comm, tally *t, int function,
                           int at_rank, long index)
{
    int err = mpi_run(c, d, comm, function, at_rank, index);
    int error_class = class_of(err), fired = mpi_faults.fired;
    int ok = fired ? error_class == INJECTED
                   : error_class == MPI_ERR_OTHER || (error_class == MPI_SUCCESS && exact(d));
    t->walked[function] += d->rank == at_rank;
    t->fired[function] += fired;
    t->partner_failed += error_class == MPI_ERR_OTHER;
    if (!ok)
        fprintf(stderr, "rank %d: %s, %s #%ld failing on rank %d: class %d%s\n", d->rank, c->name,
                function_names[function], index, at_rank, error_class,
                error_class == MPI_SUCCESS ? " but the result differs" : "");
    err = mpi_run(c, d, comm, N_FUNCTIONS, -1, 0);
    if (err != MPI_SUCCESS || !exact(d)) {
        fprintf(stderr, "rank %d: %s, %s #%ld failing on rank %d: the next call %s\n", d->rank,
                c->name, function_names[function], index, at_rank,
                err != MPI_SUCCESS ? "failed" : "differs");
        ok = 0;
    }
    return ok;
}

static void walk_mpi_calls(const fault_case *c, int turn, layout *d, MPI_Comm comm, tally *t)
{
    long *counts = malloc(sizeof(long) * N_FUNCTIONS * (size_t)d->size);
    long *calls = malloc(sizeof(long) * (size_t)d->size);
    int *ranks = malloc(sizeof(int) * (size_t)d->size);

    int err = mpi_run(c, d, comm, N_FUNCTIONS, -1, 0); /* fills the caches */
    err |= mpi_run(c, d, comm, N_FUNCTIONS, -1, 0);
    count_case(t, test_agree(err == MPI_SUCCESS && exact(d), MPI_COMM_WORLD), "the clean call",
               c, -1, 0);
    MPI_Allgather(mpi_faults.calls, N_FUNCTIONS, MPI_LONG, counts, N_FUNCTIONS, MPI_LONG,
                  MPI_COMM_WORLD);
    for (int f = 0; f < N_FUNCTIONS; f++) {
        walk w;
        for (int r = 0; r < d->size; r++)
            calls[r] = walked_functions[f] ? counts[r * N_FUNCTIONS + f] : 0;
        walk_init(&w, calls, d->size, walk_cap[f]);
        for (long n = 1; n <= walk_cap[f]; n++) {
            int nranks = ranks_to_fail(calls, d->size, n, turn + f, ranks);
            if (nranks == 0)
                break;
            for (int i = 0; i < nranks; i++, w.nruns++) {
                w.at_rank[w.nruns] = ranks[i];
                w.index[w.nruns] = n;
                w.good[w.nruns] = check_mpi_fault(c, d, comm, t, f, ranks[i], n);
            }
        }
        walk_judge(&w, t, c, "the promise for errors during the exchange");
    }
    free(counts);
    free(calls);
    free(ranks);
}

int main(int argc, char **argv)
{
    tally t = { 0 };
    int size;
    const char *mode = argc > 1 ? argv[1] : "--alloc";
    const char *only = "", *function = "";
    for (int a = 2; a + 1 < argc; a++) {
        if (strcmp(argv[a], "--only") == 0)
            only = argv[++a];
        else if (strcmp(argv[a], "--function") == 0)
            function = argv[++a];
    }
    for (int f = 0; f < N_FUNCTIONS; f++)
        walked_functions[f] = !*function || strcmp(function, function_names[f]) == 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = new_comm();
    make_cases();

    if (strcmp(mode, "--env") == 0) { /* the environment arms the hook, not this program */
        int expect_no_mem = argc > 2 && strcmp(argv[argc - 1], "--expect-no-mem") == 0;
        layout d;
        layout_make(&d, &cases[0], t.rank, size);
        int error_class = class_of(call_once(&cases[0], &d, comm));
        int ok = expect_no_mem ? error_class == MPI_ERR_NO_MEM && untouched(&d)
                               : error_class == MPI_SUCCESS && exact(&d);
        count_case(&t, test_agree(ok, MPI_COMM_WORLD), "under AIP_FAULT_ALLOC", &cases[0], -1, 0);
        layout_free(&d);
    }
    for (int i = 0; strcmp(mode, "--env") != 0 && i < n_cases; i++) {
        /* --mpi walks the point-to-point calls of the exchanges; the broadcast
         * makes none (its errors mid-way are MPI's RMA errors, bcast_rma.c) */
        if (!strstr(cases[i].name, only) ||
            ((cases[i].fresh_comm || cases[i].kind == BCAST) && strcmp(mode, "--mpi") == 0))
            continue;
        layout d;
        layout_make(&d, &cases[i], t.rank, size);
        if (strcmp(mode, "--mpi") == 0)
            walk_mpi_calls(&cases[i], i, &d, comm, &t);
        else
            walk_allocations(&cases[i], i, &d, comm, &t, strcmp(mode, "--count") == 0);
        layout_free(&d);
    }
    if (t.rank == 0)
        printf("fault_test %s (p=%d): %ld faulty runs\n", mode, size, t.runs);
    if (strcmp(mode, "--mpi") == 0) {
        MPI_Allreduce(MPI_IN_PLACE, t.walked, N_FUNCTIONS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, t.fired, N_FUNCTIONS, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &t.partner_failed, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (int f = 0; t.rank == 0 && f < N_FUNCTIONS; f++)
            printf("  %s: %ld failures asked for, %ld happened\n", function_names[f], t.walked[f],
                   t.fired[f]);
        if (t.rank == 0)
            printf("  ranks told by an empty message that a partner failed: %ld\n",
                   t.partner_failed);
    }
    MPI_Comm_free(&comm);
    int status = test_summary("fault_test", t.passed, t.failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
