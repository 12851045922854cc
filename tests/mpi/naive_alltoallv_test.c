/*
 * naive_alltoallv_test - the benchmarks' naive in-place Alltoallv
 * (bench/naive_alltoallv.c) gives, byte for byte, what the MPI library's
 * out-of-place MPI_Alltoallv gives on a copy of the input, in every receive
 * region, as general_test checks AIP_Alltoallv_general: the naive scheme is
 * the baseline of bench/alltoallv_bench, and a wrong baseline would make
 * its timings meaningless.
 *
 * Cases (general_layout.h): every pattern (dense with zeros and unequal
 * totals, sparse, one sender, equal grains) with every placement (shuffled
 * with gaps, reversed, receive regions exactly over other messages' send
 * regions), with an aux budget of 0 (the scheme's smallest buffer,
 * NAIVE_AUX_MIN bytes: many rounds), 1000 bytes or 1 MiB (more than the
 * data) and the datatype MPI_BYTE, MPI_DOUBLE or 3 contiguous ints, both
 * turning with the case and with p, so that the runs on p = 1..8 give every
 * shape every budget and type; then an exchange of nothing but zero counts.
 * Every rank must report the same number of rounds (all leave in the same
 * round).  Last, a datatype with a gap must be refused with MPI_ERR_TYPE.
 * A round costs an MPI_Alltoall, tens of milliseconds on 8 oversubscribed
 * MPICH ranks, hence one budget per shape and messages of at most 1536 bytes.
 *
 *   naive_alltoallv_test [--seed N] [--cases N (12; 36: every shape with
 *                        every budget)]
 * Failures print the seed and the case, to replay them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../bench/naive_alltoallv.h"
#include "general_layout.h"
#include "test_util.h"

typedef struct naive_case {
    layout_pattern pattern;
    layout_placement placement;
    long long aux_bytes;
    const layout_type *type;
    int empty; /* every count zero */
} naive_case;

static void describe(char *text, size_t size, unsigned long long seed, const naive_case *c)
{
    snprintf(text, size, "seed=%llu pattern=%s placement=%s type=%s aux=%lld%s", seed,
             layout_pattern_names[c->pattern], layout_placement_names[c->placement],
             c->type->name, c->aux_bytes, c->empty ? " (all counts zero)" : "");
}

/* What naive_exchange needs and tells. */
typedef struct naive_call {
    long long aux_bytes, rounds;
} naive_call;

static int naive_exchange(void *buf, const layout_problem *pr, MPI_Datatype type,
                          void *context)
{
    naive_call *call = context;
    return naive_alltoallv(buf, pr->scounts, pr->sdispls, pr->rcounts, pr->rdispls, type,
                           MPI_COMM_WORLD, call->aux_bytes, &call->rounds);
}

/* One case; returns 1 if it passed on every rank. */
static int run_case(int rank, int p, unsigned long long seed, const naive_case *c,
                    const char *what)
{
    layout_problem pr;
    naive_call call = { c->aux_bytes, -1 };
    long long max_count = 1536 / c->type->size; /* a few KiB per rank: seconds at p = 8 */
    if (c->empty) {
        pr.count = calloc((size_t)p * (size_t)p, sizeof(long long));
        layout_problem_place(p, rank, seed, c->placement, &pr);
    } else {
        layout_problem_make(p, rank, seed, c->pattern, c->placement, max_count, &pr);
    }
    int ok = layout_check_exchange(&pr, c->type, seed, naive_exchange, &call, what);
    layout_problem_free(&pr);

    /* All ranks leave in the same round, the first in which nobody expects data. */
    long long fewest, most;
    MPI_Allreduce(&call.rounds, &fewest, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&call.rounds, &most, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (fewest != most) {
        if (rank == 0)
            fprintf(stderr, "FAIL, ranks took %lld to %lld rounds (%s)\n", fewest, most, what);
        ok = 0;
    }
    return ok;
}

/* A type whose extent exceeds its size cannot be moved as bytes: MPI_ERR_TYPE. */
static int refuses_gaps(int p)
{
    MPI_Datatype gapped;
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &gapped);
    MPI_Type_commit(&gapped);
    int *zeros = calloc((size_t)p, sizeof(int)), buf[2] = { 0, 0 };
    int err = naive_alltoallv(buf, zeros, zeros, zeros, zeros, gapped, MPI_COMM_WORLD, 0, NULL);
    free(zeros);
    MPI_Type_free(&gapped);
    return test_agree(err == MPI_ERR_TYPE, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int rank, p, passed = 0, failed = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    unsigned long long seed = test_seed(argc, argv, MPI_COMM_WORLD);
    const char *cases = test_option(argc, argv, "--cases");
    int ncases = cases ? atoi(cases) : N_PATTERNS * N_PLACEMENTS;
    if (rank == 0)
        printf("naive_alltoallv_test: p=%d, seed %llu (replay with --seed %llu)\n", p, seed,
               seed);

    layout_type types[N_LAYOUT_TYPES];
    layout_types_create(types);
    const long long budgets[] = { 0, 1000, 1 << 20 };
    const int n_shapes = N_PATTERNS * N_PLACEMENTS, n_budgets = 3;

    /* The shapes in turn, each round of them with the next budget; last, nothing to move. */
    for (int k = 0; k <= ncases; k++) {
        unsigned long long case_seed = seed + (unsigned long long)k * 7919;
        naive_case c = { (layout_pattern)(k % N_PATTERNS),
                         (layout_placement)(k / N_PATTERNS % N_PLACEMENTS),
                         budgets[(k + k / n_shapes + p) % n_budgets],
                         &types[(k + 2 * p) % N_LAYOUT_TYPES], k == ncases };
        char what[256];
        describe(what, sizeof what, case_seed, &c);
        test_count(run_case(rank, p, case_seed, &c, what), what, &passed, &failed,
                   MPI_COMM_WORLD);
    }
    test_count(refuses_gaps(p), "a datatype with a gap was not refused with MPI_ERR_TYPE",
               &passed, &failed, MPI_COMM_WORLD);
    layout_types_free(types);
    int status = test_summary("naive_alltoallv_test", passed, failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
