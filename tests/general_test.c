/*
 * general_test - AIP_Alltoallv_general gives, byte for byte, what the MPI
 * library's out-of-place MPI_Alltoallv gives on a copy of the input, in
 * every receive region.
 *
 * Cases (general_layout.h): dense random counts with zeros and totals that
 * differ between ranks, sparse (1-3 peers per rank), one rank sending
 * everything, equal-sized "grains"; send and receive regions shuffled,
 * reversed, or receive regions exactly over other messages' send regions;
 * budgets 0, 64 bytes, 1 KiB, 1 MiB and more than the data; both aux
 * strategies with b = 1, 2, p/8 (0) and p; both request exchanges; the
 * datatypes MPI_BYTE, MPI_DOUBLE and a contiguous type of 3 ints.
 *
 *   general_test [--seed N] [--cases N]   random cases, each seeded from N
 *   general_test --memory MIB             one dense exchange of at least MIB
 *       MiB per rank with a 1 MiB budget: VmHWM may grow by less than the budget +
 *       4 MiB; the data is checked against its generating function (no copy)
 * Failures print the seed and the case, to replay them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alltoall_inplace.h"
#include "general_layout.h"
#include "test_util.h"

typedef struct test_type {
    const char *name;
    MPI_Datatype type;
    int size;
} test_type;

typedef struct general_case {
    layout_pattern pattern;
    layout_placement placement;
    AIP_Options options;
    const test_type *type;
} general_case;

/* The problem of one case on this rank, in elements. */
typedef struct problem {
    long long *count; /* p x p */
    int *scounts, *sdispls, *rcounts, *rdispls;
    long long elements; /* of the buffer */
} problem;

/* Allocate pr and place this rank's regions for the counts in pr->count. */
static void place_problem(int p, int rank, uint64_t seed, layout_placement placement,
                          problem *pr)
{
    long long *sd = malloc(sizeof(long long) * (size_t)p);
    long long *rd = malloc(sizeof(long long) * (size_t)p);
    pr->scounts = malloc(sizeof(int) * (size_t)p);
    pr->sdispls = malloc(sizeof(int) * (size_t)p);
    pr->rcounts = malloc(sizeof(int) * (size_t)p);
    pr->rdispls = malloc(sizeof(int) * (size_t)p);
    layout_place(p, rank, seed, placement, pr->count, sd, rd, &pr->elements);
    for (int j = 0; j < p; j++) {
        pr->scounts[j] = (int)pr->count[(size_t)rank * p + j];
        pr->rcounts[j] = (int)pr->count[(size_t)j * p + rank];
        pr->sdispls[j] = (int)sd[j];
        pr->rdispls[j] = (int)rd[j];
    }
    free(sd);
    free(rd);
}

static void make_problem(int p, int rank, uint64_t seed, const general_case *c,
                         long long max_count, problem *pr)
{
    pr->count = malloc(sizeof(long long) * (size_t)p * (size_t)p);
    layout_counts(p, seed, c->pattern, max_count, pr->count);
    place_problem(p, rank, seed, c->placement, pr);
}

static void free_problem(problem *pr)
{
    free(pr->count);
    free(pr->scounts);
    free(pr->sdispls);
    free(pr->rcounts);
    free(pr->rdispls);
}

static void describe(char *text, size_t size, unsigned long long seed, const general_case *c)
{
    snprintf(text, size, "seed=%llu pattern=%s placement=%s type=%s aux=%lld %s b=%d requests=%s",
             seed, layout_pattern_names[c->pattern], layout_placement_names[c->placement],
             c->type->name, c->options.aux_bytes, AIP_Aux_strategy_name(c->options.aux_strategy),
             c->options.aux_buffers, AIP_Requests_name(c->options.requests));
}

/* One case; returns 1 if it passed on every rank. */
static int run_case(int rank, int p, unsigned long long seed, const general_case *c)
{
    problem pr;
    /* small budgets: smaller messages, so that oversubscribed runs stay short */
    long long max_bytes = c->options.aux_bytes <= 1024 ? 1536 : 24000;
    make_problem(p, rank, seed, c, max_bytes / c->type->size, &pr);

    size_t bytes = (size_t)pr.elements * (size_t)c->type->size + 1;
    char *input = malloc(bytes), *expected = malloc(bytes), *buf = malloc(bytes);
    test_fill(input, bytes, seed, rank);
    memcpy(buf, input, bytes);
    memset(expected, 0, bytes);

    int ok = MPI_Alltoallv(input, pr.scounts, pr.sdispls, c->type->type, expected, pr.rcounts,
                           pr.rdispls, c->type->type, MPI_COMM_WORLD) == MPI_SUCCESS;
    int err = AIP_Alltoallv_general_opt(buf, pr.scounts, pr.sdispls, pr.rcounts, pr.rdispls,
                                        c->type->type, MPI_COMM_WORLD, &c->options);
    ok = ok && err == MPI_SUCCESS;
    for (int j = 0; ok && j < p; j++) {
        size_t at = (size_t)pr.rdispls[j] * (size_t)c->type->size;
        if (memcmp(buf + at, expected + at, (size_t)pr.rcounts[j] * (size_t)c->type->size)) {
            char text[256];
            describe(text, sizeof text, seed, c);
            fprintf(stderr, "rank %d: FAIL, the data from rank %d differs (%s)\n", rank, j,
                    text);
            ok = 0;
        }
    }
    if (err != MPI_SUCCESS)
        fprintf(stderr, "rank %d: FAIL, error %d\n", rank, err);
    free(input);
    free(expected);
    free(buf);
    free_problem(&pr);
    return test_agree(ok, MPI_COMM_WORLD);
}

/* Byte k of what rank `from` sends to rank `to`. */
static unsigned char byte_of(int from, int to, size_t k)
{
    return (unsigned char)(from * 37 + to * 11 + k + (k >> 9));
}

static int run_memory(int rank, int p, long long mib)
{
    const long long budget = 1 << 20, limit = budget + (4 << 20);
    AIP_Options options = AIP_OPTIONS_INIT;
    problem pr;

    options.aux_bytes = budget;
    /* every pair exchanges 1 to 5/4 of mib/p MiB, in shuffled places */
    long long share = (mib << 20) / p;
    pr.count = malloc(sizeof(long long) * (size_t)p * (size_t)p);
    for (size_t k = 0; k < (size_t)p * (size_t)p; k++)
        pr.count[k] = share + (long long)(test_hash(42, k, 0) % (uint64_t)(share / 4));
    place_problem(p, rank, 42, PLACE_SHUFFLED, &pr);
    char *buf = malloc((size_t)pr.elements + 1);
    if (!buf) {
        fprintf(stderr, "rank %d: cannot allocate %lld bytes\n", rank, pr.elements);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    memset(buf, 0, (size_t)pr.elements + 1); /* every page resident before the call */
    for (int j = 0; j < p; j++)
        for (int k = 0; k < pr.scounts[j]; k++)
            buf[pr.sdispls[j] + (size_t)k] = (char)byte_of(rank, j, (size_t)k);
    /* warm up MPI and the library's communicator, which a first call creates */
    int *zeros = calloc((size_t)p, sizeof(int));
    AIP_Alltoallv_general(buf, zeros, zeros, zeros, zeros, MPI_BYTE, MPI_COMM_WORLD);
    free(zeros);
    MPI_Barrier(MPI_COMM_WORLD);
    int reset = test_reset_hwm() == 0;
    long long before = reset ? test_vm_rss() : test_vm_hwm();
    double t0 = MPI_Wtime();
    int err = AIP_Alltoallv_general_opt(buf, pr.scounts, pr.sdispls, pr.rcounts, pr.rdispls,
                                        MPI_BYTE, MPI_COMM_WORLD, &options);
    double seconds = MPI_Wtime() - t0;
    long long growth = test_vm_hwm() - before;

    int ok = err == MPI_SUCCESS && growth < limit;
    for (int j = 0; ok && j < p; j++)
        for (int k = 0; k < pr.rcounts[j]; k++)
            if ((unsigned char)buf[pr.rdispls[j] + (size_t)k] != byte_of(j, rank, (size_t)k)) {
                fprintf(stderr, "rank %d: byte %d from rank %d is wrong\n", rank, k, j);
                ok = 0;
                break;
            }
    long long max_growth = growth, total = pr.elements, max_total = 0;
    MPI_Reduce(&growth, &max_growth, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&total, &max_total, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("general_test --memory: p=%d, buffers of up to %.0f MiB, budget 1 MiB: VmHWM "
               "grew by %.2f MiB at most (limit %.0f MiB, peak %s), %.2f s\n",
               p, max_total / 1048576.0, max_growth / 1048576.0, limit / 1048576.0,
               reset ? "reset before the call" : "of the whole run", seconds);
    free(buf);
    free_problem(&pr);
    int all = test_agree(ok, MPI_COMM_WORLD);
    return test_summary("general_test --memory", all, !all, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, p, passed = 0, failed = 0, ncases = 48;
    unsigned long long seed = (unsigned long long)time(NULL);
    long long memory_mib = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--seed"))
            seed = strtoull(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "--cases"))
            ncases = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--memory"))
            memory_mib = atoll(argv[a + 1]);
    }
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (memory_mib > 0) {
        int status = run_memory(rank, p, memory_mib);
        MPI_Finalize();
        return status;
    }
    if (rank == 0)
        printf("general_test: p=%d, seed %llu (replay with --seed %llu)\n", p, seed, seed);

    MPI_Datatype three_ints;
    MPI_Type_contiguous(3, MPI_INT, &three_ints);
    MPI_Type_commit(&three_ints);
    const test_type types[] = { { "MPI_BYTE", MPI_BYTE, 1 },
                                { "MPI_DOUBLE", MPI_DOUBLE, 8 },
                                { "3 x MPI_INT", three_ints, 12 } };
    const long long budgets[] = { 0, 64, 1024, 1 << 20, 1LL << 30 };
    const int buffers[] = { 1, 2, 0, p };

    for (int k = 0; k < ncases; k++) {
        unsigned long long case_seed = seed + (unsigned long long)k * 7919;
        general_case c = { (layout_pattern)(k % N_PATTERNS),
                           (layout_placement)(k / N_PATTERNS % N_PLACEMENTS), AIP_OPTIONS_INIT,
                           &types[k % 3] };
        c.options.aux_bytes = budgets[k % 5];
        c.options.aux_strategy = k % 2 ? AIP_AUX_STRATEGY_STATIC : AIP_AUX_STRATEGY_POOL;
        c.options.aux_buffers = buffers[k / 2 % 4];
        c.options.requests = k / 7 % 2 ? AIP_REQUESTS_ALLTOALL : AIP_REQUESTS_P2P;
        if (run_case(rank, p, case_seed, &c)) {
            passed++;
        } else {
            char text[256];
            describe(text, sizeof text, case_seed, &c);
            if (rank == 0)
                printf("FAIL: p=%d %s\n", p, text);
            failed++;
        }
    }
    MPI_Type_free(&three_ints);
    int status = test_summary("general_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
