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

#include "alltoall_inplace.h"
#include "general_layout.h"
#include "test_util.h"

typedef struct general_case {
    layout_pattern pattern;
    layout_placement placement;
    AIP_Options options;
    const layout_type *type;
} general_case;

static void describe(char *text, size_t size, unsigned long long seed, const general_case *c)
{
    snprintf(text, size, "seed=%llu pattern=%s placement=%s type=%s aux=%lld %s b=%d requests=%s",
             seed, layout_pattern_names[c->pattern], layout_placement_names[c->placement],
             c->type->name, c->options.aux_bytes, AIP_Aux_strategy_name(c->options.aux_strategy),
             c->options.aux_buffers, AIP_Requests_name(c->options.requests));
}

/* The exchange under test; context: its AIP_Options. */
static int general_exchange(void *buf, const layout_problem *pr, MPI_Datatype type,
                            void *context)
{
    return AIP_Alltoallv_general_opt(buf, pr->scounts, pr->sdispls, pr->rcounts, pr->rdispls,
                                     type, MPI_COMM_WORLD, context);
}

/* One case; returns 1 if it passed on every rank. */
static int run_case(int rank, int p, unsigned long long seed, const general_case *c,
                    const char *what)
{
    layout_problem pr;
    AIP_Options options = c->options;
    /* small budgets: smaller messages, so that oversubscribed runs stay short */
    long long max_bytes = c->options.aux_bytes <= 1024 ? 1536 : 24000;
    layout_problem_make(p, rank, seed, c->pattern, c->placement, max_bytes / c->type->size, &pr);
    int ok = layout_check_exchange(&pr, c->type, seed, general_exchange, &options, what);
    layout_problem_free(&pr);
    return ok;
}

static int run_memory(int rank, int p, long long mib)
{
    const long long budget = 1 << 20, limit = budget + (4 << 20);
    AIP_Options options = AIP_OPTIONS_INIT;
    layout_problem pr;

    options.aux_bytes = budget;
    /* every pair exchanges 1 to 5/4 of mib/p MiB, in shuffled places */
    long long share = (mib << 20) / p;
    pr.count = malloc(sizeof(long long) * (size_t)p * (size_t)p);
    for (size_t k = 0; k < (size_t)p * (size_t)p; k++)
        pr.count[k] = share + (long long)(test_hash(42, k, 0) % (uint64_t)(share / 4));
    layout_problem_place(p, rank, 42, PLACE_SHUFFLED, &pr);
    unsigned char *buf = malloc((size_t)pr.elements + 1);
    if (!buf) {
        fprintf(stderr, "rank %d: cannot allocate %lld bytes\n", rank, pr.elements);
        MPI_Abort(MPI_COMM_WORLD, 99);
    }
    memset(buf, 0, (size_t)pr.elements + 1); /* every page resident before the call */
    for (int j = 0; j < p; j++)
        fill_message_bytes(buf + pr.sdispls[j], rank, j, (size_t)pr.scounts[j]);
    /* warm up MPI and the library's communicator, which a first call creates */
    int *zeros = calloc((size_t)p, sizeof(int));
    AIP_Alltoallv_general(buf, zeros, zeros, zeros, zeros, MPI_BYTE, MPI_COMM_WORLD);
    free(zeros);
    MPI_Barrier(MPI_COMM_WORLD);
    int reset = proc_reset_peak();
    long long before = proc_status_bytes(reset ? "VmRSS" : "VmHWM");
    double t0 = MPI_Wtime();
    int err = AIP_Alltoallv_general_opt(buf, pr.scounts, pr.sdispls, pr.rcounts, pr.rdispls,
                                        MPI_BYTE, MPI_COMM_WORLD, &options);
    double seconds = MPI_Wtime() - t0;
    long long growth = proc_status_bytes("VmHWM") - before;

    int ok = err == MPI_SUCCESS && growth < limit;
    for (int j = 0; ok && j < p; j++) {
        size_t k;
        if (count_wrong_bytes(buf + pr.rdispls[j], j, rank, (size_t)pr.rcounts[j], &k) > 0) {
            fprintf(stderr, "rank %d: byte %zu from rank %d is wrong\n", rank, k, j);
            ok = 0;
        }
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
    layout_problem_free(&pr);
    int all = test_agree(ok, MPI_COMM_WORLD);
    return test_summary("general_test --memory", all, !all, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, p, passed = 0, failed = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    unsigned long long seed = test_seed(argc, argv, MPI_COMM_WORLD);
    const char *cases = test_option(argc, argv, "--cases");
    const char *memory = test_option(argc, argv, "--memory");
    int ncases = cases ? atoi(cases) : 48;
    long long memory_mib = memory ? atoll(memory) : 0;
    if (memory_mib > 0) {
        int status = run_memory(rank, p, memory_mib);
        MPI_Finalize();
        return status;
    }
    if (rank == 0)
        printf("general_test: p=%d, seed %llu (replay with --seed %llu)\n", p, seed, seed);

    layout_type types[N_LAYOUT_TYPES];
    layout_types_create(types);
    const long long budgets[] = { 0, 64, 1024, 1 << 20, 1LL << 30 };
    const int buffers[] = { 1, 2, 0, p };

    for (int k = 0; k < ncases; k++) {
        unsigned long long case_seed = seed + (unsigned long long)k * 7919;
        general_case c = { (layout_pattern)(k % N_PATTERNS),
                           (layout_placement)(k / N_PATTERNS % N_PLACEMENTS), AIP_OPTIONS_INIT,
                           &types[k % N_LAYOUT_TYPES] };
        c.options.aux_bytes = budgets[k % 5];
        c.options.aux_strategy = k % 2 ? AIP_AUX_STRATEGY_STATIC : AIP_AUX_STRATEGY_POOL;
        c.options.aux_buffers = buffers[k / 2 % 4];
        c.options.requests = k / 7 % 2 ? AIP_REQUESTS_ALLTOALL : AIP_REQUESTS_P2P;
        char what[256];
        describe(what, sizeof what, case_seed, &c);
        test_count(run_case(rank, p, case_seed, &c, what), what, &passed, &failed,
                   MPI_COMM_WORLD);
    }
    layout_types_free(types);
    int status = test_summary("general_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
