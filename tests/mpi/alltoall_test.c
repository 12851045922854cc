/*
 * alltoall_test - AIP_Alltoall, AIP_Alltoallv and AIP_Alltoallw give, byte
 * for byte, what the MPI library's out-of-place MPI_Alltoall(v/w) gives on a
 * copy of the input, including the bytes between blocks (left untouched).
 *
 * For every API, algorithm (the table's schedules, auto) and budget (0, 1 KiB,
 * 1 MiB, 1 GiB: from "a few bytes per chunk" to "larger than the buffer"),
 * with the datatypes MPI_DOUBLE, MPI_BYTE and a contiguous derived type
 * (3 ints) in turn:
 * random symmetric counts with zeros, blocks placed in random order with
 * random gaps, most blocks far larger than the small budgets (many chunks).
 * Alltoallw pairs a type with a contiguous type of two of them on the other
 * side: the same signature, different datatypes.
 *
 *   alltoall_test [--seed N] [--large] [--env]
 *   --large  a few pairs of blocks of several MiB, budgets 1 MiB and 1 GiB
 *   --env    the algorithm and budget come from AIP_ALGORITHM and
 *            AIP_AUX_BYTES (options left at their defaults), which
 *            AIP_Options_resolve must report
 * Failures print the seed and the case, to replay them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alltoall_inplace.h"
#include "call/parse_bytes.h"
#include "test_util.h"

typedef enum { API_ALLTOALL, API_ALLTOALLV, API_ALLTOALLW } api_kind;
static const char *api_names[] = { "AIP_Alltoall", "AIP_Alltoallv", "AIP_Alltoallw" };

typedef struct test_type {
    const char *name;
    MPI_Datatype type; /* its element */
    MPI_Datatype pair; /* contiguous(2, type), for the other side of an alltoallw pair */
    int size;
} test_type;

/* One case: how the blocks of this rank are laid out. */
typedef struct layout {
    int *counts, *displs;  /* displs: in extents (alltoallv) or bytes (alltoallw) */
    MPI_Datatype *types;   /* alltoallw */
    size_t bytes;          /* of the whole buffer */
    int size;              /* of the communicator */
} layout;

typedef struct test_run {
    int rank, size, large, passed, failed;
    unsigned long long seed;
} test_run;

/*
 * Elements rank i and rank j exchange: symmetric; zero for a fifth of the
 * pairs, then blocks of up to max_bytes, a tenth of that for most of them.
 * The few large pairs become rarer as p grows so that each rank moves about
 * the same volume whatever p (oversubscribed runs stay short).
 */
static int pair_count(const test_run *t, uint64_t case_seed, int i, int j, int elem_size,
                      size_t max_bytes)
{
    int lo = i < j ? i : j, hi = i < j ? j : i;
    uint64_t u = test_hash(case_seed, (uint64_t)lo, (uint64_t)hi);
    int roll = (int)(u % 1000), large_per_mille = t->size > 4 ? 1200 / t->size : 300;
    uint64_t max_count = max_bytes / (size_t)elem_size;
    u >>= 10;
    if (t->large && (lo + hi) % 3 == 0 && lo != hi)
        return (int)((3u << 20) / (unsigned)elem_size + u % 4096); /* ~3 MiB */
    if (roll < 200)
        return 0;
    if (roll < 200 + large_per_mille)
        return 1 + (int)(u % max_count);
    return 1 + (int)(u % (max_count / 10 + 1));
}

/*
 * Blocks from far smaller to 16 times larger than the budget's chunks, and
 * at most 16 KiB: a bounded number of messages per pair, whatever the budget.
 */
static size_t max_block_bytes(long long aux_bytes)
{
    if (aux_bytes <= 0)
        return 2048;
    return aux_bytes < 1024 ? (size_t)aux_bytes * 16 : 16384;
}

static void make_layout(const test_run *t, uint64_t case_seed, api_kind api,
                        const test_type *tt, size_t max_bytes, layout *l)
{
    size_t pos = 0;
    int *order = malloc(sizeof(int) * (size_t)t->size);
    uint64_t *keys = malloc(sizeof(uint64_t) * (size_t)t->size);

    l->counts = malloc(sizeof(int) * (size_t)t->size);
    l->displs = malloc(sizeof(int) * (size_t)t->size);
    l->types = malloc(sizeof(MPI_Datatype) * (size_t)t->size);
    l->size = t->size;

    if (api == API_ALLTOALL) {
        int count = (int)(test_hash(case_seed, 1, 2) % (max_bytes / (size_t)tt->size + 1));
        for (int j = 0; j < t->size; j++) {
            l->counts[j] = count;
            l->displs[j] = j * count;
        }
        l->bytes = (size_t)t->size * count * tt->size;
        free(order);
        free(keys);
        return;
    }
    /* Blocks in a random order, with random gaps between them. */
    for (int j = 0; j < t->size; j++) {
        order[j] = j;
        keys[j] = test_hash(case_seed, (uint64_t)t->rank + 1000, (uint64_t)j);
    }
    for (int a = 1; a < t->size; a++) /* insertion sort by key: p is small */
        for (int b = a; b > 0 && keys[order[b]] < keys[order[b - 1]]; b--) {
            int x = order[b];
            order[b] = order[b - 1];
            order[b - 1] = x;
        }
    for (int k = 0; k < t->size; k++) {
        int j = order[k];
        int count = pair_count(t, case_seed, t->rank, j, tt->size, max_bytes);
        size_t gap = test_hash(case_seed, (uint64_t)t->rank, (uint64_t)j + 5000) % 5;
        if (api == API_ALLTOALLV) {
            l->counts[j] = count;
            l->displs[j] = (int)(pos + gap);
            pos += gap + (size_t)count;
        } else {
            /* The lower rank of a pair sends 2c elements, the higher c pairs of them. */
            int lower = t->rank < j || (t->rank == j);
            l->types[j] = lower ? tt->type : tt->pair;
            l->counts[j] = lower ? 2 * count : count;
            l->displs[j] = (int)(pos + gap); /* bytes: unaligned on purpose */
            pos += gap + (size_t)2 * count * tt->size;
        }
    }
    l->bytes = api == API_ALLTOALLV ? pos * tt->size : pos;
    free(order);
    free(keys);
}

static void free_layout(layout *l)
{
    free(l->counts);
    free(l->displs);
    free(l->types);
}

static int run_reference(api_kind api, const layout *l, const test_type *tt, const char *in,
                         char *out)
{
    switch (api) {
    case API_ALLTOALL:
        return MPI_Alltoall(in, l->counts[0], tt->type, out, l->counts[0], tt->type,
                            MPI_COMM_WORLD);
    case API_ALLTOALLV:
        return MPI_Alltoallv(in, l->counts, l->displs, tt->type, out, l->counts, l->displs,
                             tt->type, MPI_COMM_WORLD);
    default:
        if (l->size == 1) {
            /* Open MPI 4.1's single-process MPI_Alltoallw (coll/self) writes past the
             * buffer for byte displacements (valgrind shows it); the exchange with
             * oneself is a send-receive. */
            return MPI_Sendrecv(in + l->displs[0], l->counts[0], l->types[0], 0, 0,
                                out + l->displs[0], l->counts[0], l->types[0], 0, 0,
                                MPI_COMM_SELF, MPI_STATUS_IGNORE);
        }
        return MPI_Alltoallw(in, l->counts, l->displs, l->types, out, l->counts, l->displs,
                             l->types, MPI_COMM_WORLD);
    }
}

static int run_inplace(api_kind api, const layout *l, const test_type *tt, void *buf,
                       const AIP_Options *opt)
{
    switch (api) {
    case API_ALLTOALL:
        return AIP_Alltoall_opt(buf, l->counts[0], tt->type, MPI_COMM_WORLD, opt);
    case API_ALLTOALLV:
        return AIP_Alltoallv_opt(buf, l->counts, l->displs, tt->type, MPI_COMM_WORLD, opt);
    default:
        return AIP_Alltoallw_opt(buf, l->counts, l->displs, l->types, MPI_COMM_WORLD, opt);
    }
}

static void run_case(test_run *t, api_kind api, const test_type *tt, const AIP_Options *opt)
{
    uint64_t case_seed = test_hash(t->seed, (uint64_t)api, (uint64_t)(t->passed + t->failed));
    layout l;
    make_layout(t, case_seed, api, tt, max_block_bytes(opt->aux_bytes), &l);

    size_t bytes = l.bytes ? l.bytes : 1;
    unsigned char *input = malloc(bytes), *expected = malloc(bytes), *buf = malloc(bytes);
    test_fill(input, bytes, case_seed, t->rank);
    memcpy(expected, input, bytes); /* gaps keep their bytes */
    memcpy(buf, input, bytes);

    int ok = run_reference(api, &l, tt, (const char *)input, (char *)expected) == MPI_SUCCESS;
    int err = run_inplace(api, &l, tt, buf, opt);
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: %s returned error %d\n", t->rank, api_names[api], err);
        ok = 0;
    } else if (memcmp(buf, expected, bytes) != 0) {
        size_t at = 0;
        while (buf[at] == expected[at])
            at++;
        fprintf(stderr, "rank %d: byte %zu of %zu differs from the out-of-place result\n",
                t->rank, at, l.bytes);
        ok = 0;
    }
    if (test_agree(ok, MPI_COMM_WORLD)) {
        t->passed++;
    } else {
        t->failed++;
        if (t->rank == 0)
            fprintf(stderr, "FAIL seed=%llu case %d: %s %s algorithm=%s aux_bytes=%lld\n",
                    t->seed, t->passed + t->failed - 1, api_names[api], tt->name,
                    AIP_Algorithm_name(opt->algorithm), opt->aux_bytes);
    }
    free(input);
    free(expected);
    free(buf);
    free_layout(&l);
}

/* --env: what AIP_Options_resolve says must be what the environment says. */
static int check_environment(const test_run *t)
{
    AIP_Options resolved;
    AIP_Algorithm expected;
    const char *alg = getenv("AIP_ALGORITHM"), *aux = getenv("AIP_AUX_BYTES");
    int ok = alg && aux && AIP_Algorithm_from_name(alg, &expected) == MPI_SUCCESS &&
             AIP_Options_resolve(NULL, &resolved) == MPI_SUCCESS &&
             resolved.algorithm == expected && resolved.aux_bytes == aip_parse_bytes(aux);
    if (!ok && t->rank == 0)
        fprintf(stderr, "FAIL: AIP_ALGORITHM=%s AIP_AUX_BYTES=%s not what the options resolve to\n",
                alg ? alg : "(unset)", aux ? aux : "(unset)");
    return ok;
}

int main(int argc, char **argv)
{
    test_run t = { 0 };
    int env_mode = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.size);
    t.seed = (unsigned long long)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            t.seed = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--large") == 0)
            t.large = 1;
        else if (strcmp(argv[i], "--env") == 0)
            env_mode = 1;
    }
    MPI_Bcast(&t.seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    if (t.rank == 0)
        printf("alltoall_test: p=%d seed=%llu%s%s\n", t.size, t.seed, t.large ? " --large" : "",
               env_mode ? " --env" : "");

    test_type types[3] = {
        { "MPI_DOUBLE", MPI_DOUBLE, MPI_DATATYPE_NULL, 8 },
        { "MPI_BYTE", MPI_BYTE, MPI_DATATYPE_NULL, 1 },
        { "contiguous(3, MPI_INT)", MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, 12 },
    };
    MPI_Type_contiguous(3, MPI_INT, &types[2].type);
    MPI_Type_commit(&types[2].type);
    for (int k = 0; k < 3; k++) {
        MPI_Type_contiguous(2, types[k].type, &types[k].pair);
        MPI_Type_commit(&types[k].pair);
    }

    /* The schedules of the library's table, and auto (node_test, general_test and
     * hypercube.sh run the others). */
    AIP_Algorithm algorithms[16];
    int n_algorithms = test_algorithms_of_kind(AIP_KIND_SCHEDULE, algorithms, 16);
    const long long small_budgets[] = { 0, 1024, 1 << 20, 1LL << 30 };
    const long long large_budgets[] = { 1 << 20, 1LL << 30 };
    const long long *budgets = t.large ? large_budgets : small_budgets;
    int n_budgets = t.large ? 2 : 4;
    int n_types = t.large ? 2 : 3;

    if (env_mode) {
        AIP_Options opt = AIP_OPTIONS_INIT;
        if (test_agree(check_environment(&t), MPI_COMM_WORLD))
            t.passed++;
        else
            t.failed++;
        for (int api = API_ALLTOALL; api <= API_ALLTOALLW; api++)
            for (int k = 0; k < 3; k++)
                run_case(&t, (api_kind)api, &types[k], &opt);
    } else {
        /*
         * Every (API, algorithm, budget); the datatype rotates with them.  The
         * datatype matters to the front end (block offsets and sizes), the
         * algorithm and budget to the executor, which sees only bytes: each
         * API still meets each datatype with several algorithms and budgets,
         * in a third of the runs of the full product (MPICH oversubscribed is
         * slow).
         */
        for (int api = API_ALLTOALL; api <= API_ALLTOALLW; api++) {
            if (t.large && api != API_ALLTOALLV)
                continue;
            for (int a = 0; a < n_algorithms; a++)
                for (int b = 0; b < n_budgets; b++) {
                    AIP_Options opt = AIP_OPTIONS_INIT;
                    opt.algorithm = algorithms[a];
                    opt.aux_bytes = budgets[b];
                    run_case(&t, (api_kind)api, &types[(a + b) % n_types], &opt);
                }
        }
    }

    for (int k = 0; k < 3; k++)
        MPI_Type_free(&types[k].pair);
    MPI_Type_free(&types[2].type);
    int status = test_summary("alltoall_test", t.passed, t.failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
