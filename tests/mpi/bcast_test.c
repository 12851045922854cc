/*
 * bcast_test.c - AIP_Bcast_rma against MPI_Bcast, byte for byte.
 *
 * Every root with each of the three trees and auto, nodes as MPI finds them
 * and cut into nodes of 1, 2 and 3 ranks (so that both the shared-memory
 * reads and the puts between nodes run, whatever the machine); messages of
 * 0 bytes, one element, a chunk and an element either side, odd sizes, many
 * chunks; datatypes contiguous, with gaps (a vector), and different on the
 * root and the others (same signature), so that chunk boundaries cut
 * elements; the small window of 3 x 64 bytes and the default one.  Calls follow
 * each other directly or with other traffic on the same communicator in
 * between (window reuse).  The buffers are compared whole, gaps included:
 * bytes MPI_Bcast leaves alone must stay alone.  Then the errors: the same
 * class on every rank, buffers untouched, and the next call still right.
 *
 *   bcast_test [--seed N] [--quick 1]   (quick: roots 0 and p-1 only)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "test_util.h"

/* A window of 3 slots of 64 bytes: the smallest chunks, the most boundaries. */
#define SMALL_BUDGET (3 * 64)

typedef struct tester {
    MPI_Comm comm;
    int rank, size;
    unsigned long long seed;
    int passed, failed;
    MPI_Datatype gapped; /* 3 ints 2 apart: 12 bytes of data in 20 */
} tester;

/* How the ranks describe the message of `ints` ints. */
typedef enum { BYTES, GAPPED, ROOT_GAPPED, OTHERS_GAPPED, N_LAYOUTS } layout;
static const char *const layout_names[] = { "bytes", "gapped", "root gapped", "others gapped" };

static void describe(const tester *t, layout how, int root, int ints, int *count,
                     MPI_Datatype *type, size_t *span)
{
    int gapped = how == GAPPED || (how == ROOT_GAPPED && t->rank == root) ||
                 (how == OTHERS_GAPPED && t->rank != root);
    if (how == BYTES) {
        *count = 4 * ints;
        *type = MPI_BYTE;
    } else if (gapped) {
        *count = ints / 3;
        *type = t->gapped;
    } else {
        *count = ints / 3 * 3;
        *type = MPI_INT;
    }
    MPI_Aint lb, extent;
    MPI_Type_get_extent(*type, &lb, &extent);
    *span = (size_t)(*count * extent) + 16;
}

/* A case's result on this rank: counted here, agreed on at the end (a
 * collective per case would cost more than the case where ranks outnumber
 * cores). */
static void record(tester *t, int ok, const char *what)
{
    if (ok) {
        t->passed++;
        return;
    }
    t->failed++;
    fprintf(stderr, "FAIL: p=%d rank %d: %s\n", t->size, t->rank, what);
}

/* Traffic of another kind on the same communicator, or none. */
static void interleave(const tester *t, int k)
{
    int choice = (int)(test_hash(t->seed, 7, (uint64_t)k) % 3), value = k, sum;
    if (choice == 1) {
        MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, t->comm);
    } else if (choice == 2) {
        int right = (t->rank + 1) % t->size, left = (t->rank + t->size - 1) % t->size;
        MPI_Sendrecv(&value, 1, MPI_INT, right, 0, &sum, 1, MPI_INT, left, 0, t->comm,
                     MPI_STATUS_IGNORE);
    }
}

static void run_case(tester *t, const AIP_Options *options, int root, int ints, layout how,
                     int k)
{
    int count;
    MPI_Datatype type;
    size_t span;
    describe(t, how, root, ints, &count, &type, &span);
    char *got = malloc(span), *want = malloc(span);
    test_fill(want, span, t->seed + (unsigned)k, t->rank);
    memcpy(got, want, span);
    MPI_Bcast(want, count, type, root, t->comm);
    int err = AIP_Bcast_rma_opt(got, count, type, root, t->comm, options);

    char what[160];
    snprintf(what, sizeof what, "%s tree, nodes of %d, root %d, %d ints, %s, budget %lld",
             AIP_Bcast_algorithm_name(options->bcast_algorithm), options->ranks_per_node, root,
             ints, layout_names[how], options->aux_bytes);
    record(t, err == MPI_SUCCESS && memcmp(got, want, span) == 0, what);
    free(got);
    free(want);
    interleave(t, k);
}

static void correctness(tester *t, int quick)
{
    static const AIP_Bcast_algorithm trees[] = { AIP_BCAST_LINEAR, AIP_BCAST_BINOMIAL,
                                                 AIP_BCAST_BINARY, AIP_BCAST_AUTO };
    enum { N_TREES = sizeof trees / sizeof trees[0] };
    /* ints: 0, 1 element of 3, a 64-byte chunk -1/0/+1 element, odd, many chunks */
    static const int sizes[] = { 0, 3, 15, 18, 21, 39, 3 * 57 };
    enum { N_SIZES = sizeof sizes / sizeof sizes[0] };
    int k = 0;

    for (int per_node = 0; per_node <= 3; per_node++) {
        if (per_node == 3 && t->size < 4)
            continue;
        AIP_Options options = AIP_OPTIONS_INIT;
        options.ranks_per_node = per_node;
        options.aux_bytes = SMALL_BUDGET;
        /* Every tree from every root, back to back: many chunks, cut elements. */
        for (int a = 0; a < N_TREES; a++)
            for (int root = 0; root < t->size; root++)
                if (!quick || root == 0 || root == t->size - 1) {
                    options.bcast_algorithm = trees[a];
                    run_case(t, &options, root, sizes[N_SIZES - 1], ROOT_GAPPED, k++);
                }
        /* Every size and layout, the trees and roots taking turns. */
        for (int s = 0; s < N_SIZES; s++)
            for (int how = 0; how < N_LAYOUTS; how++) {
                options.bcast_algorithm = trees[(s + how) % N_TREES];
                run_case(t, &options, (s * N_LAYOUTS + how) % t->size, sizes[s], (layout)how,
                         k++);
            }
        /* The default budget: 128 KiB chunks, a message of three. */
        options.aux_bytes = AIP_AUX_BYTES_DEFAULT;
        for (int a = 0; a < N_TREES; a++) {
            options.bcast_algorithm = trees[a];
            run_case(t, &options, (a + 1) % t->size, (1 << 16) * 3 / 2 + 3,
                     a % 2 ? BYTES : OTHERS_GAPPED, k++);
        }
    }
}

/* ---- Errors ---- */

static void expect(tester *t, const char *what, int err, int want_class)
{
    int error_class = MPI_SUCCESS;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &error_class);
    char message[200];
    snprintf(message, sizeof message, "%s: class %d, expected %d", what, error_class, want_class);
    test_count(error_class == want_class, message, &t->passed, &t->failed, t->comm);
}

static void errors(tester *t)
{
    int data[64], saved[64];
    AIP_Options options = AIP_OPTIONS_INIT;
    const int last = t->size - 1;

    for (int i = 0; i < 64; i++)
        saved[i] = data[i] = t->rank * 100 + i;
    fprintf(stderr, "bcast_test: the error messages below are expected\n");
    expect(t, "root = p", AIP_Bcast_rma(data, 64, MPI_INT, t->size, t->comm), MPI_ERR_ROOT);
    expect(t, "root = -1 on the last rank",
           AIP_Bcast_rma(data, 64, MPI_INT, t->rank == last ? -1 : 0, t->comm), MPI_ERR_ROOT);
    if (t->size > 1)
        expect(t, "roots differ",
               AIP_Bcast_rma(data, 64, MPI_INT, t->rank == last ? 1 : 0, t->comm), MPI_ERR_ROOT);
    expect(t, "count -1 on the last rank",
           AIP_Bcast_rma(data, t->rank == last ? -1 : 64, MPI_INT, 0, t->comm), MPI_ERR_COUNT);
    expect(t, "MPI_DATATYPE_NULL on the last rank",
           AIP_Bcast_rma(data, 64, t->rank == last ? MPI_DATATYPE_NULL : MPI_INT, 0, t->comm),
           MPI_ERR_TYPE);
    if (t->size > 1)
        expect(t, "the last rank's count differs from the root's",
               AIP_Bcast_rma(data, t->rank == last ? 63 : 64, MPI_INT, 0, t->comm),
               MPI_ERR_TYPE);
    expect(t, "buf NULL on the last rank",
           AIP_Bcast_rma(t->rank == last ? NULL : data, 64, MPI_INT, 0, t->comm),
           MPI_ERR_BUFFER);
    options.bcast_algorithm = t->rank == last ? AIP_BCAST_BINARY : AIP_BCAST_LINEAR;
    if (t->size > 1)
        expect(t, "trees differ", AIP_Bcast_rma_opt(data, 64, MPI_INT, 0, t->comm, &options),
               MPI_ERR_ARG);
    options.bcast_algorithm = (AIP_Bcast_algorithm)99;
    expect(t, "an unknown tree", AIP_Bcast_rma_opt(data, 64, MPI_INT, 0, t->comm, &options),
           MPI_ERR_ARG);
    expect(t, "MPI_COMM_NULL", AIP_Bcast_rma(data, 64, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    if (t->size > 1) {
        MPI_Comm half, inter;
        int low = t->rank < t->size / 2;
        MPI_Comm_split(t->comm, low, t->rank, &half);
        MPI_Intercomm_create(half, 0, t->comm, low ? t->size / 2 : 0, 7, &inter);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        expect(t, "an intercommunicator", AIP_Bcast_rma(data, 64, MPI_INT, 0, inter),
               MPI_ERR_COMM);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    test_count(memcmp(data, saved, sizeof data) == 0, "buffers untouched by failed calls",
               &t->passed, &t->failed, t->comm);
    expect(t, "a valid call after the errors", AIP_Bcast_rma(data, 64, MPI_INT, last, t->comm),
           MPI_SUCCESS);
    int right = 1;
    for (int i = 0; i < 64; i++)
        right &= data[i] == last * 100 + i;
    test_count(right, "its result", &t->passed, &t->failed, t->comm);
}

int main(int argc, char **argv)
{
    tester t = { 0 };
    const char *quick = test_option(argc, argv, "--quick");

    MPI_Init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &t.comm);
    MPI_Comm_set_errhandler(t.comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t.comm, &t.rank);
    MPI_Comm_size(t.comm, &t.size);
    t.seed = test_seed(argc, argv, t.comm);
    MPI_Type_vector(3, 1, 2, MPI_INT, &t.gapped);
    MPI_Type_commit(&t.gapped);

    correctness(&t, quick && atoi(quick));
    errors(&t);

    /* The counts of record() agreed on: a case failed if it failed anywhere. */
    int cases = t.passed + t.failed;
    MPI_Allreduce(MPI_IN_PLACE, &t.failed, 1, MPI_INT, MPI_MAX, t.comm);
    int status = test_summary("bcast_test", cases - t.failed, t.failed, t.comm);
    MPI_Type_free(&t.gapped);
    MPI_Comm_free(&t.comm);
    MPI_Finalize();
    return status;
}
