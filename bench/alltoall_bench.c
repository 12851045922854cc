/*
 * alltoall_bench.c - the generic all-to-all benchmark of Hofmann & Ruenger,
 * "In-place algorithms for all-to-all communication" (EuroMPI 2013), Sect. 4.1.
 *
 * Every process exchanges SIZE bytes of 64-bit integers with all processes in
 * a symmetric all-to-all: the block rank i sends to rank j is as large as the
 * block j sends to i, as MPI requires of MPI_IN_PLACE.  Block sizes are random
 * but every process holds SIZE bytes (build_random_layout), or with
 * -e all equal.  One run compares, on the same data,
 *
 *   mpi-oop           the MPI library's MPI_Alltoallv (MPI_Alltoall with -e)
 *                     into a separate receive buffer: the speed to beat, at
 *                     the price of a second buffer as large as the data;
 *   mpi-inplace       the same call with MPI_IN_PLACE;
 *   sendrecv-replace  the naive in-place loop: MPI_Sendrecv_replace with each
 *                     peer in linear-shift order;
 *   NAME              each schedule of this library's table (hsa, lsa, mpich:
 *                     AIP_Algorithm_at) with a 1 MiB aux budget;
 *   hsa+aux=B         HSA with an aux budget of B bytes (--aux).
 *
 * How to read the table.  The time of a repetition is the slowest rank's;
 * min, median and max are taken over the repetitions, and GB/s divides the
 * largest number of bytes a process sends to other processes by the median.
 * "extra MiB" is the largest growth of a process's peak resident memory while
 * the method ran (warm-up and timed calls) over what it held before: the
 * receive buffer of mpi-oop, the MPI library's temporary buffers, or our aux
 * budget.  "check" says whether every element was where it belongs after the
 * last repetition.  The ratios compare medians: hsa / mpi-oop below 1 means
 * that in place with 1 MiB is faster than out of place with a second buffer;
 * mpi-inplace / hsa above 1 means that HSA beats the MPI library's in-place
 * exchange.
 *
 * Exit status: 0; 1 if a check failed; 2 for bad options; 3 (MPI_Abort) after an
 * MPI error or when memory runs out.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "alltoall_inplace.h"
#include "bench_util.h"

#define DEFAULT_BYTES_PER_PROCESS (64LL << 20)
#define DEFAULT_REPS 10
#define DEFAULT_SEED 1
#define DEFAULT_AUX_LIST "16M,all"
#define LIBRARY_AUX_BYTES (1LL << 20) /* budget of the mpich, lsa and hsa rows */
#define MAX_AUX_BUDGETS 16
#define AUX_ALL (-1LL)   /* --aux "all": a budget as large as the largest buffer */

/* Symmetric scaling of the random weights (build_random_layout). */
#define BALANCE_MAX_ITERATIONS 1000
#define BALANCE_TOLERANCE 1e-10

/* ---- Methods ---- */

typedef enum method_family {
    FAMILY_MPI_OOP,
    FAMILY_MPI_INPLACE,
    FAMILY_SENDRECV_REPLACE,
    FAMILY_LIBRARY, /* one row per schedule of the library's table */
    FAMILY_HSA_AUX, /* one row per --aux budget */
    N_FAMILIES
} method_family;

/* The families' names in -a; the library's rows go by their algorithm's. */
static const char *const family_names[N_FAMILIES] = {
    [FAMILY_MPI_OOP] = "mpi-oop",
    [FAMILY_MPI_INPLACE] = "mpi-inplace",
    [FAMILY_SENDRECV_REPLACE] = "sendrecv-replace",
    [FAMILY_LIBRARY] = NULL,
    [FAMILY_HSA_AUX] = "hsa+aux",
};

/* One row of the table. */
typedef struct method {
    method_family family;
    char name[32];
    AIP_Algorithm algorithm; /* library rows; AIP_ALGORITHM_DEFAULT for the others */
    long long aux_bytes;     /* library rows: the budget; -1 for the others */
} method;

#define MAX_LIBRARY_ROWS 16
#define MAX_METHODS (N_FAMILIES + MAX_LIBRARY_ROWS + MAX_AUX_BUDGETS)

/* ---- Options ---- */

typedef struct options {
    long long bytes_per_process;
    int reps;
    int equal_blocks;
    uint64_t seed;
    const char *csv_path;   /* NULL: no CSV */
    unsigned selected;      /* bit (1 << family) for each family to run */
    unsigned algorithms;    /* FAMILY_LIBRARY: bit (1 << algorithm) for each one to run */
    int n_aux;
    long long aux_budgets[MAX_AUX_BUDGETS]; /* bytes, or AUX_ALL */
} options;

static void print_usage(FILE *out)
{
    fputs("usage: alltoall_bench [options]\n"
          "  -s, --size SIZE     bytes per process, suffix K, M or G (default 64M)\n"
          "  -r, --reps N        timed repetitions per method, after 1 warm-up (default 10)\n"
          "  -e, --equal         equal blocks (SIZE/p each); the MPI rows use MPI_Alltoall\n"
          "      --seed N        seed of the random block sizes (default 1)\n"
          "      --csv FILE      append one CSV row per method to FILE\n"
          "  -a, --methods LIST  comma-separated subset of mpi-oop, mpi-inplace,\n"
          "                      sendrecv-replace, any algorithm of the library (AIP_ALGORITHM's\n"
          "                      names), hsa+aux (default: all but the library's\n"
          "                      non-schedules)\n"
          "      --aux LIST      budgets of the hsa+aux rows, sizes or \"all\" (as large as\n"
          "                      the data); default " DEFAULT_AUX_LIST "\n"
          "  -h, --help          print this text\n",
          out);
}

/* Every schedule of the library's table, as a bit mask of algorithms. */
static unsigned library_schedules(void)
{
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;
    unsigned mask = 0;
    for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
        if (kind == AIP_KIND_SCHEDULE && algorithm < 32)
            mask |= 1u << algorithm;
    return mask;
}

static int parse_methods(const char *list, options *opt, char *why, size_t why_size)
{
    char item[32];
    int got;

    opt->selected = opt->algorithms = 0;
    while ((got = next_item(&list, item, sizeof item)) > 0) {
        AIP_Algorithm algorithm;
        int f = 0;
        while (f < N_FAMILIES && !(family_names[f] && strcmp(item, family_names[f]) == 0))
            f++;
        if (f < N_FAMILIES) {
            opt->selected |= 1u << f;
        } else if (AIP_Algorithm_from_name(item, &algorithm) == MPI_SUCCESS &&
                   algorithm != AIP_ALGORITHM_DEFAULT && algorithm < 32) {
            opt->selected |= 1u << FAMILY_LIBRARY;
            opt->algorithms |= 1u << algorithm;
        } else {
            snprintf(why, why_size, "unknown method \"%s\"", item);
            return 0;
        }
    }
    if (got < 0)
        snprintf(why, why_size, "a method name in \"-a\" is too long");
    return got == 0;
}

static int parse_aux_budgets(const char *list, options *opt, char *why, size_t why_size)
{
    char item[32];
    int got;

    opt->n_aux = 0;
    while ((got = next_item(&list, item, sizeof item)) > 0) {
        long long budget = AUX_ALL;
        if (strcmp(item, "all") != 0 && (budget = parse_bytes(item)) < 0) {
            snprintf(why, why_size, "aux budget \"%s\" is neither a size nor \"all\"", item);
            return 0;
        }
        if (opt->n_aux == MAX_AUX_BUDGETS) {
            snprintf(why, why_size, "more than %d aux budgets", MAX_AUX_BUDGETS);
            return 0;
        }
        opt->aux_budgets[opt->n_aux++] = budget;
    }
    if (got < 0)
        snprintf(why, why_size, "an aux budget in \"--aux\" is too long");
    return got == 0;
}

static int parse_methods_option(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_methods(value, opt, why, why_size);
}

static int parse_aux_option(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_aux_budgets(value, opt, why, why_size);
}

#define FIELD(name) offsetof(options, name)
static const bench_option option_table[] = {
    { "-s", "--size", OPTION_SIZE, FIELD(bytes_per_process), sizeof(element), LLONG_MAX, NULL },
    { "-r", "--reps", OPTION_INT, FIELD(reps), 1, 1000000, NULL },
    { NULL, "--seed", OPTION_U64, FIELD(seed), 0, UINT64_MAX, NULL },
    { NULL, "--csv", OPTION_STRING, FIELD(csv_path), 0, 0, NULL },
    { "-a", "--methods", OPTION_CUSTOM, 0, 0, 0, parse_methods_option },
    { NULL, "--aux", OPTION_CUSTOM, 0, 0, 0, parse_aux_option },
    { "-e", "--equal", OPTION_FLAG, FIELD(equal_blocks), 0, 0, NULL },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
#undef FIELD

static parse_status parse_options(int argc, char **argv, options *opt, char *why,
                                  size_t why_size)
{
    opt->bytes_per_process = DEFAULT_BYTES_PER_PROCESS;
    opt->reps = DEFAULT_REPS;
    opt->equal_blocks = 0;
    opt->seed = DEFAULT_SEED;
    opt->csv_path = NULL;
    opt->selected = (1u << N_FAMILIES) - 1;
    opt->algorithms = library_schedules();
    if (!parse_aux_budgets(DEFAULT_AUX_LIST, opt, why, why_size))
        return PARSE_ERROR;

    return bench_parse_options(argc, argv, option_table, opt, why, why_size);
}

/* What the options ask must fit the machine: p, and int element counts and displacements. */
static parse_status check_options_fit(const options *opt, int nprocs, char *why, size_t why_size)
{
    if (check_ranks_fit(nprocs, why, why_size) != PARSE_OK)
        return PARSE_ERROR;
    if (opt->bytes_per_process / (long long)sizeof(element) > INT_MAX) {
        snprintf(why, why_size, "SIZE must be below %lld bytes (MPI counts are int)",
                 ((long long)INT_MAX + 1) * (long long)sizeof(element));
        return PARSE_ERROR;
    }
    return PARSE_OK;
}

/* ---- Block sizes ---- */

/* How this rank's buffer is cut into blocks, one per peer, in rank order. */
typedef struct layout {
    int rank, nprocs;
    int equal;           /* -e: every block has equal_count elements */
    int equal_count;
    int *counts, *displs; /* in elements */
    long long elements;  /* this rank's total */
    long long min_bytes, max_bytes; /* per-process totals, over all ranks */
    long long max_sent_bytes;       /* over all ranks: total minus the block kept */
} layout;

/* The weight of the pair {i, j}, uniform in (0, 1]: a hash of the unordered
 * pair, so that every rank computes it without the p x p matrix. */
static double pair_weight(uint64_t seed, int i, int j)
{
    uint64_t lo = (uint64_t)(i < j ? i : j), hi = (uint64_t)(i < j ? j : i);
    uint64_t z = splitmix64(seed ^ splitmix64(lo << 32 | hi));
    return (double)((z >> 11) + 1) * 0x1p-53;
}

/*
 * Scales x with x_i * sum_j w(i,j) x_j = 1 for every i, so that the matrix
 * x_i w(i,j) x_j is symmetric with all row sums 1 (symmetric Sinkhorn-Knopp).
 * Each rank updates its own x_i from its row sum s_i and the ranks share the
 * new x.  The update x_i (1 + 1/s_i) / 2 has the fixed point and first-order
 * step of the usual x_i / sqrt(s_i) without needing libm.  Returns x (p entries).
 */
static double *balanced_scales(const layout *l, uint64_t seed, MPI_Comm comm)
{
    double *scale = allocate_or_abort(sizeof(double) * (size_t)l->nprocs, "scaling vector");

    for (int j = 0; j < l->nprocs; j++)
        scale[j] = 1.0;
    for (int iteration = 0; iteration < BALANCE_MAX_ITERATIONS; iteration++) {
        double weighted = 0.0;
        for (int j = 0; j < l->nprocs; j++)
            weighted += pair_weight(seed, l->rank, j) * scale[j];
        double row_sum = scale[l->rank] * weighted;
        double deviation = row_sum > 1.0 ? row_sum - 1.0 : 1.0 - row_sum;
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &deviation, 1, MPI_DOUBLE, MPI_MAX, comm),
                  "MPI_Allreduce (block sizes)");
        if (deviation < BALANCE_TOLERANCE)
            break;
        double mine = scale[l->rank] * (1.0 + 1.0 / row_sum) / 2.0;
        check_mpi(MPI_Allgather(&mine, 1, MPI_DOUBLE, scale, 1, MPI_DOUBLE, comm),
                  "MPI_Allgather (block sizes)");
    }
    return scale;
}

/*
 * Random symmetric block sizes: c(i,j) = floor(T x_i w(i,j) x_j) for i != j,
 * evaluated identically on both ranks of a pair, and the block a rank keeps
 * takes the rest of its T elements.  Its weight is drawn like the others, so
 * it is as large as a block sent on average.  Only if the scaling has not
 * converged can a row exceed T; the header reports the real totals.
 */
static void build_random_layout(layout *l, long long elements_per_process, uint64_t seed,
                                MPI_Comm comm)
{
    double *scale = balanced_scales(l, seed, comm);
    long long sent = 0;

    for (int j = 0; j < l->nprocs; j++) {
        if (j == l->rank)
            continue;
        int lo = j < l->rank ? j : l->rank, hi = j < l->rank ? l->rank : j;
        double share = pair_weight(seed, lo, hi) * (scale[lo] * scale[hi]);
        l->counts[j] = (int)((double)elements_per_process * share);
        sent += l->counts[j];
    }
    long long kept = elements_per_process - sent;
    l->counts[l->rank] = kept > 0 ? (int)kept : 0;
    free(scale);
}

static void build_equal_layout(layout *l, long long elements_per_process)
{
    l->equal_count = (int)(elements_per_process / l->nprocs);
    for (int j = 0; j < l->nprocs; j++)
        l->counts[j] = l->equal_count;
}

/* Displacements (blocks contiguous in rank order) and the totals of all ranks. */
static void summarise_layout(layout *l, MPI_Comm comm)
{
    long long elements = 0;

    for (int j = 0; j < l->nprocs; j++) {
        if (elements + l->counts[j] > INT_MAX)
            fail("the blocks hold more than INT_MAX elements (MPI counts are int)");
        l->displs[j] = (int)elements;
        elements += l->counts[j];
    }
    l->elements = elements;

    long long bytes = elements * (long long)sizeof(element);
    long long kept_bytes = (long long)l->counts[l->rank] * (long long)sizeof(element);
    long long maxima[2] = { bytes, bytes - kept_bytes }, maxima_all[2];
    check_mpi(MPI_Allreduce(&bytes, &l->min_bytes, 1, MPI_LONG_LONG, MPI_MIN, comm),
              "MPI_Allreduce (totals)");
    check_mpi(MPI_Allreduce(maxima, maxima_all, 2, MPI_LONG_LONG, MPI_MAX, comm),
              "MPI_Allreduce (totals)");
    l->max_bytes = maxima_all[0];
    l->max_sent_bytes = maxima_all[1];
}

static void build_layout(layout *l, const options *opt, MPI_Comm comm)
{
    long long elements_per_process = opt->bytes_per_process / (long long)sizeof(element);

    check_mpi(MPI_Comm_rank(comm, &l->rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &l->nprocs), "MPI_Comm_size");
    l->equal = opt->equal_blocks;
    l->equal_count = 0;
    l->counts = allocate_or_abort(sizeof(int) * (size_t)l->nprocs, "counts");
    l->displs = allocate_or_abort(sizeof(int) * (size_t)l->nprocs, "displacements");
    if (l->equal)
        build_equal_layout(l, elements_per_process);
    else
        build_random_layout(l, elements_per_process, opt->seed, comm);
    summarise_layout(l, comm);
}

static void free_layout(layout *l)
{
    free(l->counts);
    free(l->displs);
}

/* ---- Running a method ---- */

static int sendrecv_replace_alltoall(element *buf, const layout *l, MPI_Comm comm)
{
    for (int i = 0; i < l->nprocs; i++) {
        /* Linear shift: rank r meets j at i = r + j (mod p), as j meets r. */
        int peer = (i - l->rank + l->nprocs) % l->nprocs;
        if (peer == l->rank)
            continue;
        int err = MPI_Sendrecv_replace(buf + l->displs[peer], l->counts[peer], ELEMENT_MPI_TYPE,
                                       peer, 0, peer, 0, comm, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

static int library_alltoall(const method *m, element *buf, const layout *l, MPI_Comm comm)
{
    AIP_Options aip_options;

    AIP_Options_init(&aip_options);
    aip_options.algorithm = m->algorithm;
    aip_options.aux_bytes = m->aux_bytes;
    if (l->equal)
        return AIP_Alltoall_opt(buf, l->equal_count, ELEMENT_MPI_TYPE, comm, &aip_options);
    return AIP_Alltoallv_opt(buf, l->counts, l->displs, ELEMENT_MPI_TYPE, comm, &aip_options);
}

/* One exchange; the result is in recvbuf for mpi-oop and in buf for all others. */
static int exchange_once(const method *m, const layout *l, element *buf, element *recvbuf,
                         MPI_Comm comm)
{
    switch (m->family) {
    case FAMILY_MPI_OOP:
        if (l->equal)
            return MPI_Alltoall(buf, l->equal_count, ELEMENT_MPI_TYPE, recvbuf, l->equal_count,
                                ELEMENT_MPI_TYPE, comm);
        return MPI_Alltoallv(buf, l->counts, l->displs, ELEMENT_MPI_TYPE, recvbuf, l->counts,
                             l->displs, ELEMENT_MPI_TYPE, comm);
    case FAMILY_MPI_INPLACE: /* the send arguments are ignored; pass valid ones anyway */
        if (l->equal)
            return MPI_Alltoall(MPI_IN_PLACE, l->equal_count, ELEMENT_MPI_TYPE, buf, l->equal_count,
                                ELEMENT_MPI_TYPE, comm);
        return MPI_Alltoallv(MPI_IN_PLACE, l->counts, l->displs, ELEMENT_MPI_TYPE, buf, l->counts,
                             l->displs, ELEMENT_MPI_TYPE, comm);
    case FAMILY_SENDRECV_REPLACE:
        return sendrecv_replace_alltoall(buf, l, comm);
    default:
        return library_alltoall(m, buf, l, comm);
    }
}

typedef struct result {
    time_summary time;
    double extra_mib; /* < 0: unknown */
    int ok;
} result;

/* Re-initialised before every call, so that the check after the last one tests that call. */
static void prepare_data(const layout *l, element *buf, element *recvbuf)
{
    fill_send_regions(buf, l->rank, l->nprocs, l->counts, l->displs);
    if (recvbuf)
        poison_elements(recvbuf, (size_t)l->elements);
}

/*
 * Warm-up and timed calls of one method, the peak memory they add and the
 * check of the last call's result; collective.
 */
static result benchmark_method(const method *m, const layout *l, int reps, element *buf,
                               MPI_Comm comm)
{
    double *times = allocate_or_abort(sizeof(double) * (size_t)reps, "timings");
    element *recvbuf = NULL;
    result r;

    long long rss_before = start_peak_measurement();
    if (m->family == FAMILY_MPI_OOP) /* after the reset: its pages count */
        recvbuf = allocate_or_abort(sizeof(element) * (size_t)l->elements, "receive buffer");

    prepare_data(l, buf, recvbuf);
    check_mpi(MPI_Barrier(comm), "MPI_Barrier");
    check_mpi(exchange_once(m, l, buf, recvbuf, comm), m->name);
    for (int rep = 0; rep < reps; rep++) {
        prepare_data(l, buf, recvbuf);
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        double start = MPI_Wtime();
        check_mpi(exchange_once(m, l, buf, recvbuf, comm), m->name);
        times[rep] = MPI_Wtime() - start;
    }
    r.extra_mib = peak_growth_mib(rss_before, comm);

    long long misplaced = count_misplaced_regions(recvbuf ? recvbuf : buf, l->rank, l->nprocs,
                                                  l->counts, l->displs, NULL);
    r.time = summarise_slowest(times, reps, comm);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &misplaced, 1, MPI_LONG_LONG, MPI_SUM, comm),
              "MPI_Allreduce (check)");
    r.ok = misplaced == 0;

    free(recvbuf);
    free(times);
    return r;
}

/* ---- The rows to run ---- */

static method make_method(method_family family, const char *name, AIP_Algorithm algorithm,
                          long long aux_bytes)
{
    method m = { family, "", algorithm, aux_bytes };
    snprintf(m.name, sizeof m.name, "%s", name);
    return m;
}

/* The rows, in a fixed order whatever the order of -a (the library's in its
 * table's); "all" budgets become all_bytes. */
static int build_methods(const options *opt, long long all_bytes, method *methods)
{
    int n = 0;

    for (int f = 0; f < N_FAMILIES; f++) {
        if (!(opt->selected & (1u << f)))
            continue;
        if (f == FAMILY_LIBRARY) {
            AIP_Algorithm algorithm;
            AIP_Algorithm_kind kind;
            for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
                if (algorithm < 32 && (opt->algorithms & (1u << algorithm)) &&
                    n < N_FAMILIES + MAX_LIBRARY_ROWS)
                    methods[n++] = make_method(f, AIP_Algorithm_name(algorithm), algorithm,
                                               LIBRARY_AUX_BYTES);
        } else if (f != FAMILY_HSA_AUX) {
            methods[n++] = make_method(f, family_names[f], AIP_ALGORITHM_DEFAULT, -1);
        } else {
            for (int a = 0; a < opt->n_aux; a++) {
                long long budget = opt->aux_budgets[a];
                char name[32] = "hsa+aux=all";
                if (budget != AUX_ALL) {
                    char label[24];
                    format_bytes(budget, label, sizeof label);
                    snprintf(name, sizeof name, "hsa+aux=%s", label);
                }
                methods[n++] = make_method(f, name, AIP_ALGORITHM_HSA,
                                           budget == AUX_ALL ? all_bytes : budget);
            }
        }
    }
    return n;
}

/* ---- Output (rank 0) ---- */

static void print_header(const options *opt, const layout *l, int peak_reset_works)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    char size_text[24];

    mpi_library_version(version, sizeof version);
    format_bytes(opt->bytes_per_process, size_text, sizeof size_text);

    printf("alltoall_bench: symmetric all-to-all of 64-bit integers "
           "(Hofmann & Ruenger, EuroMPI 2013, Sect. 4.1)\n");
    printf("processes      %d\n", l->nprocs);
    printf("MPI library    %s\n", version);
    printf("bytes/process  %lld (%s)\n", opt->bytes_per_process, size_text);
    if (l->equal) {
        printf("pair sizes     equal, %lld bytes per block",
               (long long)l->equal_count * (long long)sizeof(element));
    } else {
        printf("pair sizes     random (seed %llu)", (unsigned long long)opt->seed);
    }
    printf("; totals %lld .. %lld bytes per process, at most %lld of them sent\n",
           l->min_bytes, l->max_bytes, l->max_sent_bytes);
    printf("repetitions    %d timed after 1 warm-up; a repetition takes the slowest rank's time\n",
           opt->reps);
    printf("extra memory   peak RSS growth during the method, largest over ranks %s\n",
           peak_reset_works ? "(VmHWM reset through /proc/self/clear_refs)"
                            : "(VmHWM could NOT be reset: it includes earlier peaks)");
    printf("\n%-20s %8s %10s %10s %10s %8s %10s  %s\n", "method", "aux", "min ms", "median ms",
           "max ms", "GB/s", "extra MiB", "check");
}

static double bandwidth_gbps(const layout *l, const result *r)
{
    return r->time.median_s > 0 ? (double)l->max_sent_bytes / r->time.median_s / 1e9 : 0.0;
}

static void print_row(const method *m, const layout *l, const result *r)
{
    char aux[24] = "-", extra[24] = "n/a";

    if (m->aux_bytes >= 0)
        format_bytes(m->aux_bytes, aux, sizeof aux);
    if (r->extra_mib >= 0)
        snprintf(extra, sizeof extra, "%.1f", r->extra_mib);
    printf("%-20s %8s %10.3f %10.3f %10.3f %8.2f %10s  %s\n", m->name, aux,
           r->time.min_s * 1e3, r->time.median_s * 1e3, r->time.max_s * 1e3,
           bandwidth_gbps(l, r), extra, r->ok ? "ok" : "FAIL");
    fflush(stdout);
}

/* Opens the CSV file for appending, with a header line if it is new or empty. */
static FILE *open_csv(const char *path)
{
    FILE *csv = fopen(path, "a");
    if (!csv)
        fail("cannot open %s: %s", path, strerror(errno));
    if (fseek(csv, 0, SEEK_END) == 0 && ftell(csv) == 0)
        fputs("mpi,p,bytes_per_proc,mode,method,aux_bytes,min_s,median_s,max_s,gbps,extra_mib,"
              "check\n",
              csv);
    return csv;
}

static void write_csv_row(FILE *csv, const method *m, const layout *l, const result *r)
{
    char aux[24] = "", extra[24] = "";

    if (m->aux_bytes >= 0)
        snprintf(aux, sizeof aux, "%lld", m->aux_bytes);
    if (r->extra_mib >= 0)
        snprintf(extra, sizeof extra, "%.3f", r->extra_mib);
    fprintf(csv, "%s,%d,%lld,%s,%s,%s,%.9f,%.9f,%.9f,%.4f,%s,%s\n", MPI_FLAVOUR, l->nprocs,
            l->max_bytes, l->equal ? "equal" : "random", m->name, aux, r->time.min_s,
            r->time.median_s, r->time.max_s, bandwidth_gbps(l, r), extra, r->ok ? "ok" : "FAIL");
    fflush(csv);
}

/* The median of the first row of a family (and algorithm, for the library's);
 * -1 if it did not run. */
static double median_of(const method *methods, const result *results, int n,
                        method_family family, AIP_Algorithm algorithm)
{
    for (int i = 0; i < n; i++)
        if (methods[i].family == family && methods[i].algorithm == algorithm)
            return results[i].time.median_s;
    return -1.0;
}

static void print_ratios(const method *methods, const result *results, int n)
{
    double oop = median_of(methods, results, n, FAMILY_MPI_OOP, AIP_ALGORITHM_DEFAULT);
    double inplace = median_of(methods, results, n, FAMILY_MPI_INPLACE, AIP_ALGORITHM_DEFAULT);
    double hsa = median_of(methods, results, n, FAMILY_LIBRARY, AIP_ALGORITHM_HSA);

    if (hsa <= 0 || (oop <= 0 && inplace <= 0))
        return;
    printf("\nratios (median):");
    if (oop > 0)
        printf(" hsa / mpi-oop = %.2f%s", hsa / oop, inplace > 0 ? "," : "");
    if (inplace > 0)
        printf(" mpi-inplace / hsa = %.2f", inplace / hsa);
    printf("\n");
}

/* ---- Main ---- */

static int run_benchmark(const options *opt, MPI_Comm comm)
{
    layout l;
    method methods[MAX_METHODS];
    result results[MAX_METHODS];
    FILE *csv = NULL;
    int failed = 0;

    build_layout(&l, opt, comm);
    int n = build_methods(opt, l.max_bytes, methods);
    if (l.rank == 0 && opt->csv_path)
        csv = open_csv(opt->csv_path);

    element *buf = allocate_or_abort(sizeof(element) * (size_t)l.elements, "data buffer");
    prepare_data(&l, buf, NULL); /* resident before any memory is measured */
    int peak_reset_works = probe_peak_reset(comm);
    if (l.rank == 0)
        print_header(opt, &l, peak_reset_works);

    for (int i = 0; i < n; i++) {
        results[i] = benchmark_method(&methods[i], &l, opt->reps, buf, comm);
        failed |= !results[i].ok;
        if (l.rank == 0)
            print_row(&methods[i], &l, &results[i]);
        if (csv)
            write_csv_row(csv, &methods[i], &l, &results[i]);
    }
    if (l.rank == 0)
        print_ratios(methods, results, n);

    if (csv && fclose(csv) != 0)
        fprintf(stderr, "alltoall_bench: writing %s failed: %s\n", opt->csv_path,
                strerror(errno));
    free(buf);
    free_layout(&l);
    return failed;
}

/* bench_main's view of the options. */
static parse_status parse(int argc, char **argv, int nprocs, void *opt, char *why,
                          size_t why_size)
{
    parse_status status = parse_options(argc, argv, opt, why, why_size);
    return status == PARSE_OK ? check_options_fit(opt, nprocs, why, why_size) : status;
}

static int run(const void *opt, MPI_Comm comm)
{
    return run_benchmark(opt, comm);
}

int main(int argc, char **argv)
{
    static const bench_main_ops ops = { "alltoall_bench", parse, print_usage, run };
    options opt;
    return bench_main(argc, argv, &ops, &opt);
}
