/*
 * alltoallv_bench.c - the benchmark of the general in-place MPI_Alltoallv,
 * AIP_Alltoallv_general (Hofmann & Ruenger, "An In-place Algorithm for
 * Irregular All-to-All Communication with Limited Memory", EuroMPI 2010,
 * Sect. 4).
 *
 * As in the paper, every process holds SIZE bytes of 64-bit integers that are
 * "randomly partitioned into blocks and sent to other processes": random send
 * counts that add up to SIZE, the send regions tiling the buffer in a random
 * order of destinations; the receive counts are what the others send (one
 * MPI_Alltoall), and the receive regions tile the buffer in another random
 * order, so that a message arrives where other messages wait to be sent.  A
 * process receives about, not exactly, what it sends, so its buffer is
 * max(sent, received) long.  Dense: every process sends to all p processes
 * (itself included, as MPI_Alltoallv does); sparse (-k K): to K random other
 * processes.
 *
 * One run times, on the same exchange,
 *
 *   mpi-oop  the MPI library's MPI_Alltoallv into a separate receive buffer:
 *            the speed to beat, at the price of a second buffer;
 *   inplace  AIP_Alltoallv_general with each combination of the budgets
 *            (--budget), strategies (--strategy), numbers of static buffers
 *            (-b) and request exchanges (--requests) asked for;
 *   naive    the simplest correct bounded-memory scheme we know (below), with
 *            each budget: what the in-place algorithm must beat.
 *
 * The naive scheme, in one line: pack all outgoing messages against the end
 * of the buffer, then fill the receive regions from the lowest up, one at a
 * time, in rounds: each process asks (MPI_Alltoall) the sender of its current
 * region for as many bytes as fit below the packed data, or into the aux
 * buffer when none fit, the bytes move (Isend/Irecv), and the senders re-pack.
 * naive_alltoallv.c says why it is correct and never stalls;
 * tests/mpi/naive_alltoallv_test checks it against MPI_Alltoallv.
 *
 * How to read the output: one line per variant and configuration, columns
 * separated by blanks, comments starting with '#' (gnuplot and awk read it
 * as it is).  A repetition's time is the slowest rank's; min, median and max
 * are over the repetitions; vs_oop divides the median by mpi-oop's.
 * extra_mib is the largest growth of a rank's peak resident memory (VmHWM)
 * while the variant ran: mpi-oop's receive buffer, or the aux budget.  check
 * is "ok" when the result of the warm-up call and of the last repetition
 * equal mpi-oop's byte for byte in every receive region (mpi-oop's own result
 * is checked element by element against what each rank sent).
 *
 * Exit status: 0; 1 if a check failed; 2 for bad options; 3 (MPI_Abort) after
 * an MPI error or when memory runs out.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "alltoall_inplace.h"
#include "bench_util.h"
#include "naive_alltoallv.h"

#define DEFAULT_BYTES_PER_PROCESS (16LL << 20)
#define DEFAULT_REPS 5
#define DEFAULT_SEED 1
#define DEFAULT_BUDGETS "1%"
#define DEFAULT_STRATEGIES "pool"
#define DEFAULT_BUFFERS "0"
#define DEFAULT_REQUESTS "p2p"
#define MAX_LIST 16      /* items of each option list */

/* ---- Options ---- */

typedef enum variant_kind { VARIANT_OOP, VARIANT_INPLACE, VARIANT_NAIVE, N_KINDS } variant_kind;
static const char *const kind_names[N_KINDS] = { "mpi-oop", "inplace", "naive" };

/* A budget as given: bytes, or a percentage of SIZE (percent >= 0). */
typedef struct budget_spec {
    long long bytes;
    double percent;
} budget_spec;

typedef struct options {
    long long bytes_per_process;
    int reps;
    int sparse_k; /* 0: dense */
    uint64_t seed;
    unsigned kinds; /* bit (1 << kind) for each variant to run */
    int n_budgets, n_strategies, n_buffers, n_requests;
    budget_spec budgets[MAX_LIST];
    AIP_Aux_strategy strategies[MAX_LIST];
    int buffers[MAX_LIST];
    AIP_Requests requests[MAX_LIST];
} options;

static void print_usage(FILE *out)
{
    fputs("usage: alltoallv_bench [options]\n"
          "  -s, --size SIZE       bytes each process sends, suffix K, M or G (default 16M)\n"
          "  -r, --reps N          timed repetitions per variant, after 1 warm-up (default 5)\n"
          "  -k, --sparse K        each process sends to K random other processes\n"
          "                        (default 0: dense, to all processes)\n"
          "      --seed N          seed of the random sizes and orders (default 1)\n"
          "  -a, --variants LIST   comma-separated subset of mpi-oop, inplace, naive\n"
          "                        (default all; mpi-oop's result is the reference anyway)\n"
          "      --budget LIST     aux budgets of inplace and naive: sizes (1M) or\n"
          "                        percentages of SIZE (0.1%, 100%); default " DEFAULT_BUDGETS "\n"
          "      --strategy LIST   static, pool or default ($AIP_AUX_STRATEGY); default "
          DEFAULT_STRATEGIES "\n"
          "  -b, --buffers LIST    b of the static strategy; 0 = the library's max(1, p/8)\n"
          "                        (default " DEFAULT_BUFFERS ")\n"
          "      --requests LIST   p2p, alltoall or default ($AIP_REQUESTS); default "
          DEFAULT_REQUESTS "\n"
          "  -h, --help            print this text\n"
          "inplace runs every combination of the lists (b only with static).\n",
          out);
}

/* "1%", "0.1%", "100%" -> percent >= 0; else a size -> bytes.  0 if malformed. */
static int parse_budget(const char *text, budget_spec *budget)
{
    size_t length = strlen(text);

    if (length > 1 && text[length - 1] == '%') {
        char *end;
        budget->percent = strtod(text, &end);
        budget->bytes = -1;
        return end == text + length - 1 && budget->percent >= 0 && budget->percent <= 1e6;
    }
    budget->percent = -1;
    budget->bytes = parse_bytes(text);
    return budget->bytes >= 0;
}

/*
 * Parses the comma-separated `list` of option `name`, calling parse_one for
 * each item; *n counts them.  0 with a reason if an item is bad or too many.
 */
static int parse_list(const char *name, const char *list, int *n,
                      int (*parse_one)(const char *item, int index, options *opt),
                      options *opt, char *why, size_t why_size)
{
    char item[32];
    int got;

    *n = 0;
    while ((got = next_item(&list, item, sizeof item)) > 0) {
        if (*n == MAX_LIST) {
            snprintf(why, why_size, "more than %d items in %s", MAX_LIST, name);
            return 0;
        }
        if (!parse_one(item, *n, opt)) {
            snprintf(why, why_size, "\"%s\" is not valid in %s", item, name);
            return 0;
        }
        (*n)++;
    }
    if (got < 0)
        snprintf(why, why_size, "an item of %s is too long", name);
    return got == 0 && *n > 0;
}

static int parse_one_budget(const char *item, int i, options *opt)
{
    return parse_budget(item, &opt->budgets[i]);
}

static int parse_one_strategy(const char *item, int i, options *opt)
{
    return AIP_Aux_strategy_from_name(item, &opt->strategies[i]) == MPI_SUCCESS;
}

static int parse_one_buffers(const char *item, int i, options *opt)
{
    unsigned long long number;
    if (!parse_number(item, 0, INT_MAX, &number))
        return 0;
    opt->buffers[i] = (int)number;
    return 1;
}

static int parse_one_requests(const char *item, int i, options *opt)
{
    return AIP_Requests_from_name(item, &opt->requests[i]) == MPI_SUCCESS;
}

static int parse_one_kind(const char *item, int i, options *opt)
{
    (void)i;
    for (int k = 0; k < N_KINDS; k++)
        if (strcmp(item, kind_names[k]) == 0) {
            opt->kinds |= 1u << k;
            return 1;
        }
    return 0;
}

static int parse_variants(const char *value, void *opt, char *why, size_t why_size)
{
    int n;
    ((options *)opt)->kinds = 0;
    return parse_list("-a", value, &n, parse_one_kind, opt, why, why_size);
}

static int parse_budgets(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_list("--budget", value, &((options *)opt)->n_budgets, parse_one_budget, opt,
                      why, why_size);
}

static int parse_strategies(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_list("--strategy", value, &((options *)opt)->n_strategies, parse_one_strategy,
                      opt, why, why_size);
}

static int parse_buffers(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_list("-b", value, &((options *)opt)->n_buffers, parse_one_buffers, opt, why,
                      why_size);
}

static int parse_requests(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_list("--requests", value, &((options *)opt)->n_requests, parse_one_requests,
                      opt, why, why_size);
}

#define FIELD(name) offsetof(options, name)
static const bench_option option_table[] = {
    { "-s", "--size", OPTION_SIZE, FIELD(bytes_per_process), sizeof(element), LLONG_MAX, NULL },
    { "-r", "--reps", OPTION_INT, FIELD(reps), 1, 1000000, NULL },
    { "-k", "--sparse", OPTION_INT, FIELD(sparse_k), 0, ELEMENT_MAX_RANKS, NULL },
    { NULL, "--seed", OPTION_U64, FIELD(seed), 0, UINT64_MAX, NULL },
    { "-a", "--variants", OPTION_CUSTOM, 0, 0, 0, parse_variants },
    { NULL, "--budget", OPTION_CUSTOM, 0, 0, 0, parse_budgets },
    { NULL, "--strategy", OPTION_CUSTOM, 0, 0, 0, parse_strategies },
    { "-b", "--buffers", OPTION_CUSTOM, 0, 0, 0, parse_buffers },
    { NULL, "--requests", OPTION_CUSTOM, 0, 0, 0, parse_requests },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
#undef FIELD

static parse_status parse_options(int argc, char **argv, options *opt, char *why,
                                  size_t why_size)
{
    opt->bytes_per_process = DEFAULT_BYTES_PER_PROCESS;
    opt->reps = DEFAULT_REPS;
    opt->sparse_k = 0;
    opt->seed = DEFAULT_SEED;
    opt->kinds = (1u << N_KINDS) - 1;
    if (!parse_budgets(DEFAULT_BUDGETS, opt, why, why_size) ||
        !parse_strategies(DEFAULT_STRATEGIES, opt, why, why_size) ||
        !parse_buffers(DEFAULT_BUFFERS, opt, why, why_size) ||
        !parse_requests(DEFAULT_REQUESTS, opt, why, why_size))
        return PARSE_ERROR;
    return bench_parse_options(argc, argv, option_table, opt, why, why_size);
}

/* What the options ask must fit the machine: p, K, and int element counts. */
static parse_status check_options_fit(const options *opt, int nprocs, char *why, size_t why_size)
{
    if (check_ranks_fit(nprocs, why, why_size) != PARSE_OK)
        return PARSE_ERROR;
    if (opt->sparse_k > nprocs - 1) {
        snprintf(why, why_size, "-k %d: K must be at most p - 1 = %d", opt->sparse_k,
                 nprocs - 1);
        return PARSE_ERROR;
    }
    if (opt->bytes_per_process / (long long)sizeof(element) > INT_MAX) {
        snprintf(why, why_size, "SIZE must be below %lld bytes (MPI counts are int)",
                 ((long long)INT_MAX + 1) * (long long)sizeof(element));
        return PARSE_ERROR;
    }
    return PARSE_OK;
}

/* ---- The exchange ---- */

/* Each rank's messages, in elements, and its buffer. */
typedef struct layout {
    int rank, nprocs;
    int destinations;                            /* ranks each process sends to */
    int *scounts, *sdispls, *rcounts, *rdispls;  /* in elements */
    long long sent, received, elements;          /* this rank; elements = max(sent, received) */
    long long min_received, max_received, max_elements; /* over all ranks */
} layout;

/* The splitmix64 generator, one stream per rank. */
typedef struct rng {
    uint64_t state;
} rng;

static uint64_t rng_next(rng *g)
{
    uint64_t z = splitmix64(g->state);
    g->state += 0x9e3779b97f4a7c15ULL;
    return z;
}

/* Uniform in [0, n), n > 0 (the modulo bias is below 2^-32 for n < 2^32). */
static int rng_below(rng *g, int n)
{
    return (int)(rng_next(g) % (uint64_t)n);
}

/* Uniform in (0, 1]. */
static double rng_weight(rng *g)
{
    return (double)((rng_next(g) >> 11) + 1) * 0x1p-53;
}

/* A random permutation of 0 .. n-1 (Fisher-Yates). */
static void random_permutation(rng *g, int *perm, int n)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = rng_below(g, i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/*
 * Random send counts adding up to `elements`: random weights for the
 * destinations (all ranks, or K random others), counts proportional to them,
 * and the rounding remainder one element each to the first destinations.
 */
static void random_send_counts(layout *l, int sparse_k, long long elements, rng *g)
{
    int p = l->nprocs;
    int *chosen = allocate_or_abort(sizeof(int) * (size_t)p, "destinations");
    double *weight = allocate_or_abort(sizeof(double) * (size_t)p, "weights");
    int n = 0;

    if (sparse_k == 0) {
        for (int j = 0; j < p; j++)
            chosen[n++] = j;
    } else { /* the first K of a random order of the other ranks */
        for (int j = 0; j < p; j++)
            if (j != l->rank)
                chosen[n++] = j;
        for (int i = 0; i < sparse_k; i++) {
            int j = i + rng_below(g, n - i), t = chosen[i];
            chosen[i] = chosen[j];
            chosen[j] = t;
        }
        n = sparse_k;
    }

    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += weight[i] = rng_weight(g);
    long long assigned = 0;
    for (int j = 0; j < p; j++)
        l->scounts[j] = 0;
    for (int i = 0; i < n; i++) {
        l->scounts[chosen[i]] = (int)((double)elements * (weight[i] / total));
        assigned += l->scounts[chosen[i]];
    }
    for (int i = 0; assigned < elements; i = (i + 1) % n, assigned++)
        l->scounts[chosen[i]]++;
    l->destinations = n;
    free(chosen);
    free(weight);
}

/* Displacements that tile [0, total) with the blocks in a random order of ranks. */
static long long random_tiling(const int *counts, int *displs, int p, rng *g)
{
    int *order = allocate_or_abort(sizeof(int) * (size_t)p, "order");
    long long offset = 0;

    random_permutation(g, order, p);
    for (int i = 0; i < p; i++) {
        int j = order[i];
        if (offset > INT_MAX)
            fail("the messages hold more than INT_MAX elements (MPI displacements are int)");
        displs[j] = (int)offset;
        offset += counts[j];
    }
    free(order);
    return offset;
}

static void build_layout(layout *l, const options *opt, MPI_Comm comm)
{
    check_mpi(MPI_Comm_rank(comm, &l->rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &l->nprocs), "MPI_Comm_size");
    size_t p = (size_t)l->nprocs;
    l->scounts = allocate_or_abort(sizeof(int) * p, "counts");
    l->sdispls = allocate_or_abort(sizeof(int) * p, "displacements");
    l->rcounts = allocate_or_abort(sizeof(int) * p, "counts");
    l->rdispls = allocate_or_abort(sizeof(int) * p, "displacements");

    /* One stream per rank, the same for every run with this seed. */
    rng g = { splitmix64(opt->seed ^ splitmix64((uint64_t)l->rank + 1)) };
    random_send_counts(l, opt->sparse_k, opt->bytes_per_process / (long long)sizeof(element),
                       &g);
    l->sent = random_tiling(l->scounts, l->sdispls, l->nprocs, &g);
    check_mpi(MPI_Alltoall(l->scounts, 1, MPI_INT, l->rcounts, 1, MPI_INT, comm),
              "MPI_Alltoall (counts)");
    l->received = random_tiling(l->rcounts, l->rdispls, l->nprocs, &g);
    l->elements = l->sent > l->received ? l->sent : l->received;

    check_mpi(MPI_Allreduce(&l->received, &l->min_received, 1, MPI_LONG_LONG, MPI_MIN, comm),
              "MPI_Allreduce (totals)");
    check_mpi(MPI_Allreduce(&l->received, &l->max_received, 1, MPI_LONG_LONG, MPI_MAX, comm),
              "MPI_Allreduce (totals)");
    check_mpi(MPI_Allreduce(&l->elements, &l->max_elements, 1, MPI_LONG_LONG, MPI_MAX, comm),
              "MPI_Allreduce (totals)");
}

static void free_layout(layout *l)
{
    free(l->scounts);
    free(l->sdispls);
    free(l->rcounts);
    free(l->rdispls);
}

/* Elements of the receive regions that do not hold what their sender sent. */
static long long misplaced_received(const element *buf, const layout *l)
{
    return count_misplaced_regions(buf, l->rank, l->nprocs, l->rcounts, l->rdispls, NULL);
}

/* ---- Variants ---- */

/* One line of output. */
typedef struct variant {
    variant_kind kind;
    long long budget;          /* bytes; -1 for mpi-oop */
    budget_spec budget_given;  /* as the user wrote it */
    AIP_Options aip;           /* inplace */
} variant;

static long long budget_bytes(const budget_spec *b, long long bytes_per_process)
{
    if (b->percent < 0)
        return b->bytes;
    return (long long)((double)bytes_per_process * b->percent / 100.0 + 0.5);
}

/* Whether `strategy` is static once "default" is resolved ($AIP_AUX_STRATEGY). */
static int is_static(AIP_Aux_strategy strategy)
{
    AIP_Options given = AIP_OPTIONS_INIT, resolved;
    given.aux_strategy = strategy;
    return AIP_Options_resolve(&given, &resolved) == MPI_SUCCESS &&
           resolved.aux_strategy == AIP_AUX_STRATEGY_STATIC;
}

/*
 * The lines, in the order mpi-oop, then per budget: inplace rows, naive;
 * into v unless it is NULL.  Returns how many.
 */
static int build_variants(const options *opt, variant *v)
{
    int n = 0;

    if (opt->kinds & (1u << VARIANT_OOP)) {
        if (v)
            v[n] = (variant){ VARIANT_OOP, -1, { -1, -1 }, AIP_OPTIONS_INIT };
        n++;
    }
    for (int ib = 0; ib < opt->n_budgets; ib++) {
        long long budget = budget_bytes(&opt->budgets[ib], opt->bytes_per_process);
        for (int is = 0; is < opt->n_strategies && (opt->kinds & (1u << VARIANT_INPLACE));
             is++) {
            AIP_Aux_strategy strategy = opt->strategies[is];
            /* b matters to the static strategy only: one row for the others */
            int n_buffers = is_static(strategy) ? opt->n_buffers : 1;
            for (int ibuf = 0; ibuf < n_buffers; ibuf++)
                for (int ir = 0; ir < opt->n_requests; ir++, n++) {
                    if (!v)
                        continue;
                    v[n] = (variant){ VARIANT_INPLACE, budget, opt->budgets[ib],
                                      AIP_OPTIONS_INIT };
                    v[n].aip.aux_bytes = budget;
                    v[n].aip.aux_strategy = strategy;
                    v[n].aip.aux_buffers = is_static(strategy) ? opt->buffers[ibuf] : 0;
                    v[n].aip.requests = opt->requests[ir];
                }
        }
        if (opt->kinds & (1u << VARIANT_NAIVE)) {
            if (v)
                v[n] = (variant){ VARIANT_NAIVE, budget, opt->budgets[ib], AIP_OPTIONS_INIT };
            n++;
        }
    }
    return n;
}

/* One exchange; the result is in recvbuf for mpi-oop and in buf for the others. */
static int exchange_once(const variant *v, const layout *l, element *buf, element *recvbuf,
                         MPI_Comm comm, long long *rounds)
{
    switch (v->kind) {
    case VARIANT_OOP:
        return MPI_Alltoallv(buf, l->scounts, l->sdispls, ELEMENT_MPI_TYPE, recvbuf, l->rcounts,
                             l->rdispls, ELEMENT_MPI_TYPE, comm);
    case VARIANT_INPLACE:
        return AIP_Alltoallv_general_opt(buf, l->scounts, l->sdispls, l->rcounts, l->rdispls,
                                         ELEMENT_MPI_TYPE, comm, &v->aip);
    default:
        return naive_alltoallv(buf, l->scounts, l->sdispls, l->rcounts, l->rdispls,
                               ELEMENT_MPI_TYPE, comm, v->budget, rounds);
    }
}

typedef struct result {
    time_summary time;
    double extra_mib; /* < 0: unknown */
    long long rounds; /* naive */
    int ok;
} result;

/* Re-initialised before every call, so that each call starts from the same data. */
static void prepare_data(const layout *l, element *buf, element *recvbuf)
{
    fill_send_regions(buf, l->rank, l->nprocs, l->scounts, l->sdispls);
    poison_elements(buf + l->sent, (size_t)(l->elements - l->sent));
    if (recvbuf)
        poison_elements(recvbuf, (size_t)l->elements);
}

/*
 * Warm-up and timed calls of one variant, the peak memory they add and the
 * check of the warm-up's and the last call's results; collective.  mpi-oop's
 * receive buffer becomes *reference, which the other variants are compared
 * with; it is allocated after the peak was reset, so that it counts for
 * mpi-oop and, being resident already, not for the others.
 */
static result run_variant(const variant *v, const layout *l, int reps, element *buf,
                          element **reference, MPI_Comm comm)
{
    double *times = allocate_or_abort(sizeof(double) * (size_t)reps, "timings");
    element *recvbuf = NULL;
    long long rounds = 0, misplaced = 0;
    int same = 1;
    result r;

    long long rss_before = start_peak_measurement();
    if (v->kind == VARIANT_OOP)
        recvbuf = allocate_or_abort(sizeof(element) * (size_t)l->elements, "receive buffer");

    for (int rep = -1; rep < reps; rep++) { /* -1: the warm-up */
        prepare_data(l, buf, recvbuf);
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        double start = MPI_Wtime();
        check_mpi(exchange_once(v, l, buf, recvbuf, comm, &rounds), kind_names[v->kind]);
        double elapsed = MPI_Wtime() - start;
        if (rep >= 0)
            times[rep] = elapsed;
        if (rep == -1 || rep == reps - 1) {
            if (v->kind == VARIANT_OOP)
                misplaced += misplaced_received(recvbuf, l);
            else
                same &= first_differing_region(buf, *reference, l->nprocs, l->rcounts,
                                               l->rdispls, sizeof(element)) < 0;
        }
    }
    r.extra_mib = peak_growth_mib(rss_before, comm);
    r.time = summarise_slowest(times, reps, comm);
    int ok = misplaced == 0 && same;
    check_mpi(MPI_Allreduce(&ok, &r.ok, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce (check)");
    r.rounds = rounds;

    if (v->kind == VARIANT_OOP)
        *reference = recvbuf;
    free(times);
    return r;
}

/* mpi-oop's result when mpi-oop is not among the variants: untimed. */
static element *compute_reference(const layout *l, element *buf, MPI_Comm comm)
{
    element *reference = allocate_or_abort(sizeof(element) * (size_t)l->elements, "reference");

    prepare_data(l, buf, reference);
    check_mpi(MPI_Alltoallv(buf, l->scounts, l->sdispls, ELEMENT_MPI_TYPE, reference, l->rcounts,
                            l->rdispls, ELEMENT_MPI_TYPE, comm),
              "MPI_Alltoallv (reference)");
    long long misplaced = misplaced_received(reference, l);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &misplaced, 1, MPI_LONG_LONG, MPI_SUM, comm),
              "MPI_Allreduce (check)");
    if (misplaced)
        fail("MPI_Alltoallv misplaced %lld elements: no reference to compare with", misplaced);
    return reference;
}

/* ---- Output (rank 0) ---- */

static void print_header(const options *opt, const layout *l, int peak_reset_works)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    char size_text[24];
    long long e = (long long)sizeof(element);

    mpi_library_version(version, sizeof version);
    format_bytes(opt->bytes_per_process, size_text, sizeof size_text);
    printf("# alltoallv_bench: general in-place MPI_Alltoallv of 64-bit integers "
           "(Hofmann & Ruenger, EuroMPI 2010, Sect. 4)\n");
    printf("# MPI library   %s\n", version);
    printf("# processes     %d\n", l->nprocs);
    if (opt->sparse_k)
        printf("# pattern       sparse: each process sends to %d random other processes\n",
               opt->sparse_k);
    else
        printf("# pattern       dense: each process sends to all %d processes, itself "
               "included\n", l->nprocs);
    printf("# data          %lld bytes (%s) sent per process in random sizes and orders "
           "(seed %llu);\n#               %lld .. %lld received; buffer max(sent, received), "
           "at most %lld\n",
           opt->bytes_per_process, size_text, (unsigned long long)opt->seed,
           l->min_received * e, l->max_received * e, l->max_elements * e);
    printf("# repetitions   %d timed after 1 warm-up; a repetition takes the slowest rank's "
           "time; min/median/max over repetitions; vs_oop = median / mpi-oop's median\n",
           opt->reps);
    printf("# extra_mib     peak RSS growth during the variant, largest over ranks %s\n",
           peak_reset_works ? "(VmHWM reset through /proc/self/clear_refs)"
                            : "(VmHWM could NOT be reset: it includes earlier peaks)");
    printf("# budget        aux bytes per process, and as %% of the bytes sent per process\n");
    printf("# naive         pack outgoing data at the buffer's end, fill the receive regions "
           "bottom-up one at a time,\n#               each round asking the sender for what "
           "fits below the packed data or in aux\n");
    printf("# check         warm-up and last result equal mpi-oop's byte for byte "
           "(mpi-oop's: element by element)\n");
    printf("#%-8s %-8s %3s %-8s %10s %8s %5s %10s %5s %10s %10s %10s %7s %9s %s\n", "variant",
           "strategy", "b", "requests", "budget", "budget%", "p", "bytes", "k", "min_ms",
           "median_ms", "max_ms", "vs_oop", "extra_mib", "check");
}

/* b as the library will use it: 0 stands for max(1, p/8). */
static int effective_buffers(const AIP_Options *resolved, int nprocs)
{
    if (resolved->aux_buffers > 0)
        return resolved->aux_buffers;
    return nprocs / 8 > 1 ? nprocs / 8 : 1;
}

static void print_row(const options *opt, const variant *v, const layout *l, const result *r,
                      double oop_median_s)
{
    char strategy[16] = "-", buffers[16] = "-", requests[16] = "-", budget[24] = "-";
    char percent[24] = "-", ratio[16] = "-", extra[24] = "-";

    if (v->kind == VARIANT_INPLACE) {
        AIP_Options resolved;
        if (AIP_Options_resolve(&v->aip, &resolved) != MPI_SUCCESS)
            resolved = v->aip; /* the call would have failed already */
        snprintf(strategy, sizeof strategy, "%s", AIP_Aux_strategy_name(resolved.aux_strategy));
        if (resolved.aux_strategy == AIP_AUX_STRATEGY_STATIC)
            snprintf(buffers, sizeof buffers, "%d", effective_buffers(&resolved, l->nprocs));
        snprintf(requests, sizeof requests, "%s", AIP_Requests_name(resolved.requests));
    }
    if (v->budget >= 0) {
        snprintf(budget, sizeof budget, "%lld", v->budget);
        /* as given, so that "1%" reads 1 and not 0.99999 after rounding to bytes */
        double given = v->budget_given.percent;
        snprintf(percent, sizeof percent, "%.4g",
                 given >= 0 ? given : 100.0 * (double)v->budget / (double)opt->bytes_per_process);
    }
    if (oop_median_s > 0)
        snprintf(ratio, sizeof ratio, "%.3f", r->time.median_s / oop_median_s);
    if (r->extra_mib >= 0)
        snprintf(extra, sizeof extra, "%.1f", r->extra_mib);
    printf(" %-8s %-8s %3s %-8s %10s %8s %5d %10lld %5d %10.3f %10.3f %10.3f %7s %9s %s\n",
           kind_names[v->kind], strategy, buffers, requests, budget, percent, l->nprocs,
           opt->bytes_per_process, l->destinations, r->time.min_s * 1e3,
           r->time.median_s * 1e3, r->time.max_s * 1e3, ratio, extra, r->ok ? "ok" : "FAIL");
    if (v->kind == VARIANT_NAIVE)
        printf("# naive took %lld rounds\n", r->rounds);
    fflush(stdout);
}

/* ---- Main ---- */

static int run_benchmark(const options *opt, MPI_Comm comm)
{
    layout l;
    int n = build_variants(opt, NULL);
    variant *variants = allocate_or_abort(sizeof(variant) * (size_t)n, "variants");
    element *reference = NULL;
    double oop_median_s = -1.0;
    int failed = 0;

    build_variants(opt, variants);
    build_layout(&l, opt, comm);
    element *buf = allocate_or_abort(sizeof(element) * (size_t)l.elements, "data buffer");
    prepare_data(&l, buf, NULL); /* resident before any memory is measured */
    int peak_reset_works = probe_peak_reset(comm);
    if (l.rank == 0)
        print_header(opt, &l, peak_reset_works);
    if (n == 0 || variants[0].kind != VARIANT_OOP)
        reference = compute_reference(&l, buf, comm);

    for (int i = 0; i < n; i++) {
        result r = run_variant(&variants[i], &l, opt->reps, buf, &reference, comm);
        if (variants[i].kind == VARIANT_OOP)
            oop_median_s = r.time.median_s;
        failed |= !r.ok;
        if (l.rank == 0)
            print_row(opt, &variants[i], &l, &r, oop_median_s);
    }
    if (failed && l.rank == 0)
        printf("# FAIL: a result differs from MPI_Alltoallv's\n");

    free(reference);
    free(buf);
    free(variants);
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
    static const bench_main_ops ops = { "alltoallv_bench", parse, print_usage, run };
    options opt;
    return bench_main(argc, argv, &ops, &opt);
}
