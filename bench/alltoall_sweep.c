/*
 * alltoall_sweep.c - all-to-all latency over a range of message sizes, in the
 * manner of the OSU micro-benchmarks' osu_alltoall, for the MPI library and
 * this library's algorithms, in place and out of place.
 *
 * For each message size (bytes per pair: what a rank sends to each other
 * rank), from --min to --max in powers of two, and each method, the program
 * makes some untimed warm-up calls, then times each of the timed calls
 * alone (a barrier separates calls, so that one call's late ranks do not
 * delay the start of the next).  Every rank averages its own timed calls;
 * the table gives, per method,
 *
 *   NAME      the slowest rank's average, in microseconds: what the exchange
 *             costs the job (OSU's "Max Latency(us)")
 *   NAME.avg  the mean over ranks of the ranks' averages (OSU's "Avg Latency(us)")
 *   NAME.min  the fastest rank's average (OSU's "Min Latency(us)")
 *
 * Methods (--methods):
 *   in place      mpi      MPI_Alltoall(MPI_IN_PLACE, ...) of the MPI library
 *                 NAME     AIP_Alltoall_opt with algorithm NAME: any row of
 *                          the library's table (AIP_ALGORITHM's names), auto
 *   out of place  mpi-oop  MPI_Alltoall(sendbuf, ..., recvbuf, ...)
 *                 NAME-oop AIP_Alltoall_oop_opt with that algorithm
 *   planned       NAME-plan
 *                          AIP_Plan_execute of a plan made by AIP_Alltoall_init
 *                          before the calls (untimed): the exchange without
 *                          the one-shot call's agreement, as FFTW runs it
 *                 mpi-persistent
 *                          MPI_Start and MPI_Wait of an in-place
 *                          MPI_Alltoall_init made before the calls (Open MPI
 *                          4.1: MPIX_; the PMPI layer, preloaded, runs ours)
 *   nonblocking   mpi-nonblocking
 *                          an in-place MPI_Ialltoall and its MPI_Wait (the
 *                          PMPI layer, preloaded, runs ours)
 * A method the library refuses (an error code) reads "n/a", with
 * the reason on a '#' line, and the sweep goes on.
 *
 * Output: '#' lines (the run's parameters, notes on skipped sizes and
 * failures, and the column names), then one row per size: the size in
 * bytes, then three columns per method.  The table is for gnuplot (plot
 * "file" using 1:2) and awk; "n/a" marks a missing value.
 *
 * Memory: a size needs p * SIZE bytes per rank in place, twice that out of
 * place.  Where that exceeds --mem-cap, a size is skipped (with a note) -
 * except under SimGrid's SMPI, where the buffers then come from
 * SMPI_SHARED_MALLOC: all ranks share the same pages, data are garbage
 * (no --check for those sizes), and SMPI does not copy message payloads, so
 * the simulation of 512 ranks fits in the memory of one machine.
 *
 * --check refills the data before the last timed call and verifies after it
 * that every element is where MPI_Alltoall puts it (each element encodes its
 * source rank, destination rank and index).
 *
 * Exit status: 0; 1 if a check failed; 2 for bad options; 3 (MPI_Abort)
 * after an MPI error outside the measured calls, or when memory runs out.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "../common/mpi_persistent.h"

#include "alltoall_inplace.h"
#include "bench_util.h"

/* Under smpicc, mpi.h includes smpi.h, which defines SMPI_SHARED_MALLOC. */
#ifdef SMPI_SHARED_MALLOC
#define UNDER_SMPI 1
#else
#define UNDER_SMPI 0
#endif

#define DEFAULT_MIN_BYTES 8LL
#define DEFAULT_MAX_BYTES (1LL << 20)
#define DEFAULT_LARGE_BYTES 8192LL /* from here on, the "large" iteration counts */
#define DEFAULT_ITERATIONS 1000
#define DEFAULT_ITERATIONS_LARGE 100
#define DEFAULT_WARMUP 100
#define DEFAULT_WARMUP_LARGE 10
#define DEFAULT_MEM_CAP (256LL << 20)
#define DEFAULT_METHODS "mpi,hsa,sa,l,rd,mpi-oop,hsa-oop,sa-oop,l-oop,rd-oop"
#define WHY_SIZE (MPI_MAX_ERROR_STRING + 64) /* "FUNCTION failed: " and MPI's text */

/* ---- Methods ---- */

typedef enum method_kind {
    MPI_INPLACE, MPI_OOP, MPI_PERSISTENT, MPI_NONBLOCKING, AIP_INPLACE, AIP_OOP, AIP_PLAN
} method_kind;

typedef struct method {
    char name[40]; /* as given: mpi, mpi-oop, mpi-persistent, mpi-nonblocking, or an
                    * algorithm's name [-oop|-plan] */
    method_kind kind;
    AIP_Algorithm algorithm; /* AIP_* only */
} method;
enum { MAX_METHODS = 64 };

/* The method named `name`: MPI's in place or out of place, or any algorithm
 * of the library's table (AIP_Algorithm_from_name, auto included), one-shot
 * in place, out of place (-oop) or as a plan (-plan).  Returns 0 if none. */
static int method_of(const char *name, method *m)
{
    static const struct { const char *suffix; method_kind kind; } forms[] = {
        { "-oop", AIP_OOP }, { "-plan", AIP_PLAN }, { "", AIP_INPLACE } };
    char algorithm[sizeof m->name];

    if (strlen(name) >= sizeof m->name)
        return 0;
    snprintf(m->name, sizeof m->name, "%s", name);
    m->algorithm = AIP_ALGORITHM_DEFAULT;
    static const struct { const char *name; method_kind kind; } mpi_methods[] = {
        { "mpi", MPI_INPLACE }, { "mpi-oop", MPI_OOP }, { "mpi-persistent", MPI_PERSISTENT },
        { "mpi-nonblocking", MPI_NONBLOCKING } };
    for (size_t k = 0; k < sizeof mpi_methods / sizeof mpi_methods[0]; k++)
        if (strcmp(name, mpi_methods[k].name) == 0) {
            m->kind = mpi_methods[k].kind;
            return 1;
        }
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
        size_t length = strlen(name), suffix = strlen(forms[f].suffix);
        if (length <= suffix || strcmp(name + length - suffix, forms[f].suffix) != 0)
            continue;
        snprintf(algorithm, sizeof algorithm, "%.*s", (int)(length - suffix), name);
        m->kind = forms[f].kind;
        return AIP_Algorithm_from_name(algorithm, &m->algorithm) == MPI_SUCCESS &&
               m->algorithm != AIP_ALGORITHM_DEFAULT;
    }
    return 0;
}

static int is_oop(const method *m)
{
    return m->kind == MPI_OOP || m->kind == AIP_OOP;
}

/* ---- Options ---- */

typedef struct options {
    long long min_bytes, max_bytes, large_bytes;
    int iterations, iterations_large, warmup, warmup_large;
    long long mem_cap;
    long long aux_bytes; /* AIP_AUX_BYTES_DEFAULT: the library's */
    int ranks_per_node;  /* 0: the library's (MPI_COMM_TYPE_SHARED or $AIP_RANKS_PER_NODE) */
    int check;
    int n_methods;
    method methods[MAX_METHODS]; /* in the order of --methods */
} options;

static void print_usage(FILE *out)
{
    fputs("usage: alltoall_sweep [options]\n"
          "      --min SIZE           smallest message per pair, >= 8 (default 8)\n"
          "      --max SIZE           largest message per pair (default 1M); sizes are\n"
          "                           SIZE, 2 SIZE, 4 SIZE, ... from --min\n"
          "  -m, --methods LIST       comma-separated, in column order (default\n"
          "                           " DEFAULT_METHODS ");\n"
          "                           mpi, mpi-oop, mpi-persistent, mpi-nonblocking, or\n"
          "                           any algorithm of\n"
          "                           the library\n"
          "                           (auto, or a name AIP_ALGORITHM takes) as\n"
          "                           NAME, NAME-oop or NAME-plan\n"
          "  -i, --iterations N       timed calls per size below --large (default 1000)\n"
          "  -I, --iterations-large N timed calls per size from --large on (default 100)\n"
          "  -w, --warmup N           untimed calls before them below --large (default 100)\n"
          "  -W, --warmup-large N     untimed calls from --large on (default 10)\n"
          "      --large SIZE         first size with the large counts (default 8K)\n"
          "      --mem-cap SIZE       buffer bytes per rank a size may take (default 256M);\n"
          "                           beyond it, sizes are skipped (SMPI: shared buffers)\n"
          "      --aux SIZE           aux budget of this library's methods (default: the\n"
          "                           library's, $AIP_AUX_BYTES or 1M)\n"
          "      --ranks-per-node K   nodes of K consecutive ranks for sa, l, rd (default:\n"
          "                           the library's: MPI_COMM_TYPE_SHARED, or\n"
          "                           $AIP_RANKS_PER_NODE)\n"
          "  -c, --check              verify the result of the last call of each method\n"
          "  -h, --help               print this text\n",
          out);
}

static int parse_methods(const char *list, options *opt, char *why, size_t why_size)
{
    char item[48];
    int got;

    opt->n_methods = 0;
    while ((got = next_item(&list, item, sizeof item)) > 0) {
        if (opt->n_methods == MAX_METHODS) {
            snprintf(why, why_size, "more than %d methods", MAX_METHODS);
            return 0;
        }
        if (!method_of(item, &opt->methods[opt->n_methods])) {
            snprintf(why, why_size, "unknown method \"%s\"", item);
            return 0;
        }
        for (int k = 0; k < opt->n_methods; k++)
            if (strcmp(opt->methods[k].name, item) == 0) {
                snprintf(why, why_size, "method \"%s\" given twice", item);
                return 0;
            }
        opt->n_methods++;
    }
    if (got < 0)
        snprintf(why, why_size, "a method name in \"--methods\" is too long");
    else if (opt->n_methods == 0)
        snprintf(why, why_size, "no method given");
    return got == 0 && opt->n_methods > 0;
}

static int parse_methods_option(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_methods(value, opt, why, why_size);
}

#define FIELD(name) offsetof(options, name)
static const bench_option option_table[] = {
    { NULL, "--min", OPTION_SIZE, FIELD(min_bytes), sizeof(element), LLONG_MAX, NULL },
    { NULL, "--max", OPTION_SIZE, FIELD(max_bytes), sizeof(element), LLONG_MAX, NULL },
    { NULL, "--large", OPTION_SIZE, FIELD(large_bytes), 0, LLONG_MAX, NULL },
    { NULL, "--mem-cap", OPTION_SIZE, FIELD(mem_cap), 0, LLONG_MAX, NULL },
    { NULL, "--aux", OPTION_SIZE, FIELD(aux_bytes), 0, LLONG_MAX, NULL },
    { "-i", "--iterations", OPTION_INT, FIELD(iterations), 1, INT_MAX, NULL },
    { "-I", "--iterations-large", OPTION_INT, FIELD(iterations_large), 1, INT_MAX, NULL },
    { "-w", "--warmup", OPTION_INT, FIELD(warmup), 0, INT_MAX, NULL },
    { "-W", "--warmup-large", OPTION_INT, FIELD(warmup_large), 0, INT_MAX, NULL },
    { NULL, "--ranks-per-node", OPTION_INT, FIELD(ranks_per_node), 1, INT_MAX, NULL },
    { "-m", "--methods", OPTION_CUSTOM, 0, 0, 0, parse_methods_option },
    { "-c", "--check", OPTION_FLAG, FIELD(check), 0, 0, NULL },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
#undef FIELD

static parse_status parse_options(int argc, char **argv, options *opt, char *why,
                                  size_t why_size)
{
    opt->min_bytes = DEFAULT_MIN_BYTES;
    opt->max_bytes = DEFAULT_MAX_BYTES;
    opt->large_bytes = DEFAULT_LARGE_BYTES;
    opt->iterations = DEFAULT_ITERATIONS;
    opt->iterations_large = DEFAULT_ITERATIONS_LARGE;
    opt->warmup = DEFAULT_WARMUP;
    opt->warmup_large = DEFAULT_WARMUP_LARGE;
    opt->mem_cap = DEFAULT_MEM_CAP;
    opt->aux_bytes = AIP_AUX_BYTES_DEFAULT;
    opt->ranks_per_node = 0;
    opt->check = 0;
    if (!parse_methods(DEFAULT_METHODS, opt, why, why_size))
        return PARSE_ERROR;

    parse_status status = bench_parse_options(argc, argv, option_table, opt, why, why_size);
    if (status != PARSE_OK)
        return status;
    if (opt->min_bytes % (long long)sizeof(element) != 0) {
        snprintf(why, why_size, "--min must be a multiple of %zu bytes", sizeof(element));
        return PARSE_ERROR;
    }
    if (opt->max_bytes < opt->min_bytes) {
        snprintf(why, why_size, "--max is below --min");
        return PARSE_ERROR;
    }
    return PARSE_OK;
}

/* The sizes and the process count must fit int counts and the data pattern. */
static parse_status check_options_fit(const options *opt, int nprocs, char *why, size_t why_size)
{
    if (check_ranks_fit(nprocs, why, why_size) != PARSE_OK)
        return PARSE_ERROR;
    if (opt->max_bytes / (long long)sizeof(element) * nprocs > INT_MAX) {
        snprintf(why, why_size, "--max is too large for int counts on %d processes", nprocs);
        return PARSE_ERROR;
    }
    return PARSE_OK;
}

/* ---- Data ---- */

/* The buffers of one size; `shared` ones (SMPI only) hold garbage. */
typedef struct buffers {
    element *buf, *recvbuf; /* recvbuf: NULL unless an out-of-place method runs */
    int shared;
} buffers;

static element *allocate_buffer(size_t bytes, int shared)
{
#if UNDER_SMPI
    if (shared)
        return SMPI_SHARED_MALLOC(bytes);
#endif
    (void)shared;
    return allocate_or_abort(bytes, "data buffer");
}

static void free_buffer(element *buffer, int shared)
{
#if UNDER_SMPI
    if (shared) {
        SMPI_SHARED_FREE(buffer);
        return;
    }
#endif
    (void)shared;
    free(buffer);
}

/* ---- Running a method ---- */

/* The library's options for an AIP_* method. */
static AIP_Options options_of(const method *m, const options *opt)
{
    AIP_Options aip;
    AIP_Options_init(&aip);
    aip.algorithm = m->algorithm;
    aip.aux_bytes = opt->aux_bytes;
    aip.ranks_per_node = opt->ranks_per_node;
    return aip;
}

/* What a method makes before its calls: AIP_PLAN's plan, MPI_PERSISTENT's request. */
typedef struct prepared {
    AIP_Plan plan;
    MPI_Request request;
} prepared;

static int exchange_once(const method *m, const options *opt, element *buf, element *recvbuf,
                         int count, prepared *made, MPI_Comm comm)
{
    AIP_Options aip;
    int err;

    switch (m->kind) {
    case MPI_INPLACE: /* the send arguments are ignored; pass valid ones anyway */
        return MPI_Alltoall(MPI_IN_PLACE, count, ELEMENT_MPI_TYPE, buf, count, ELEMENT_MPI_TYPE,
                            comm);
    case MPI_OOP:
        return MPI_Alltoall(buf, count, ELEMENT_MPI_TYPE, recvbuf, count, ELEMENT_MPI_TYPE, comm);
    case MPI_PERSISTENT:
        err = MPI_Start(&made->request);
        return err == MPI_SUCCESS ? MPI_Wait(&made->request, MPI_STATUS_IGNORE) : err;
    case MPI_NONBLOCKING:
        err = MPI_Ialltoall(MPI_IN_PLACE, count, ELEMENT_MPI_TYPE, buf, count, ELEMENT_MPI_TYPE,
                            comm, &made->request);
        return err == MPI_SUCCESS ? MPI_Wait(&made->request, MPI_STATUS_IGNORE) : err;
    case AIP_PLAN:
        return AIP_Plan_execute(made->plan, buf);
    case AIP_INPLACE:
        aip = options_of(m, opt);
        return AIP_Alltoall_opt(buf, count, ELEMENT_MPI_TYPE, comm, &aip);
    case AIP_OOP:
        break;
    }
    aip = options_of(m, opt);
    return AIP_Alltoall_oop_opt(buf, recvbuf, count, ELEMENT_MPI_TYPE, comm, &aip);
}

/* One method at one size. */
typedef struct result {
    int status;              /* RESULT_* */
    double max_us, avg_us, min_us;
    long long misplaced;     /* summed over ranks; -1: not checked */
    char why[WHY_SIZE];      /* RESULT_FAILED, RESULT_SKIPPED */
} result;

enum { RESULT_OK, RESULT_FAILED, RESULT_SKIPPED };

/* Calls until one fails; the library's ranks agree on errors, so all stop at the same call. */
static int run_calls(const method *m, const options *opt, const buffers *b, int count,
                     prepared *made, int calls, double *elapsed, MPI_Comm comm)
{
    for (int i = 0; i < calls; i++) {
        int err = MPI_Barrier(comm);
        if (err != MPI_SUCCESS)
            return err;
        double start = MPI_Wtime();
        err = exchange_once(m, opt, b->buf, b->recvbuf, count, made, comm);
        if (elapsed)
            *elapsed += MPI_Wtime() - start;
        if (err != MPI_SUCCESS)
            return err;
    }
    return MPI_SUCCESS;
}

static void describe_error(int err, const char *what, result *r)
{
    char text[MPI_MAX_ERROR_STRING];
    int length;

    if (MPI_Error_string(err, text, &length) != MPI_SUCCESS)
        snprintf(text, sizeof text, "error %d", err);
    snprintf(r->why, sizeof r->why, "%s failed: %s", what, text);
}

static result benchmark_method(const method *m, const options *opt, const buffers *b,
                               int count, int large, MPI_Comm comm)
{
    int rank, nprocs;
    int warmup = large ? opt->warmup_large : opt->warmup;
    int iterations = large ? opt->iterations_large : opt->iterations;
    int check = opt->check && !b->shared;
    double elapsed = 0.0;
    result r = { RESULT_OK, 0, 0, 0, -1, "" };
    const char *what = m->kind == MPI_INPLACE || m->kind == MPI_OOP ? "MPI_Alltoall"
                       : m->kind == MPI_PERSISTENT                  ? "MPI_Alltoall_init"
                       : m->kind == MPI_NONBLOCKING                 ? "MPI_Ialltoall or MPI_Wait"
                       : m->kind == AIP_INPLACE                     ? "AIP_Alltoall_opt"
                       : m->kind == AIP_PLAN                        ? "AIP_Alltoall_init"
                                                                    : "AIP_Alltoall_oop_opt";
    prepared made = { NULL, MPI_REQUEST_NULL };

    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &nprocs), "MPI_Comm_size");
    if (!b->shared) /* the previous method left a transposed or garbled buffer */
        fill_send_blocks(b->buf, rank, nprocs, (size_t)count);

    /* An in-place alltoall is its own inverse, so a refill before the last
     * call (untimed, between two barriers) gives it a known input. */
    int err = MPI_SUCCESS;
    if (m->kind == AIP_PLAN) { /* made once, outside the timing, as FFTW's transposes do */
        AIP_Options aip = options_of(m, opt);
        err = AIP_Alltoall_init(count, ELEMENT_MPI_TYPE, comm, &aip, &made.plan);
        what = "AIP_Plan_execute";
    }
    if (m->kind == MPI_PERSISTENT) {
#ifdef MPI_PERSISTENT
        err = MPI_PERSISTENT(Alltoall_init)(MPI_IN_PLACE, count, ELEMENT_MPI_TYPE, b->buf, count,
                            ELEMENT_MPI_TYPE, comm, MPI_INFO_NULL, &made.request);
        what = "MPI_Start or MPI_Wait";
#else
        r.status = RESULT_SKIPPED;
        snprintf(r.why, sizeof r.why, "this MPI has no persistent collectives");
        return r;
#endif
    }
    if (err == MPI_SUCCESS)
        err = run_calls(m, opt, b, count, &made, warmup, NULL, comm);
    if (err == MPI_SUCCESS)
        err = run_calls(m, opt, b, count, &made, iterations - check, &elapsed, comm);
    if (err == MPI_SUCCESS && check) {
        fill_send_blocks(b->buf, rank, nprocs, (size_t)count);
        if (b->recvbuf)
            poison_elements(b->recvbuf, (size_t)count * (size_t)nprocs);
        err = run_calls(m, opt, b, count, &made, 1, &elapsed, comm);
    }
    AIP_Plan_free(&made.plan);
    if (made.request != MPI_REQUEST_NULL)
        MPI_Request_free(&made.request);

    int failed = err != MPI_SUCCESS;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, comm),
              "MPI_Allreduce (errors)");
    if (failed) {
        r.status = RESULT_FAILED;
        if (err != MPI_SUCCESS)
            describe_error(err, what, &r);
        else
            snprintf(r.why, sizeof r.why, "%s failed on another rank", what);
        return r;
    }

    double mine = elapsed / iterations * 1e6, sum;
    check_mpi(MPI_Allreduce(&mine, &r.max_us, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(&mine, &r.min_us, 1, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    r.avg_us = sum / nprocs;
    if (check) {
        r.misplaced = count_misplaced_blocks(is_oop(m) ? b->recvbuf : b->buf, rank, nprocs,
                                             (size_t)count, NULL);
        check_mpi(MPI_Allreduce(MPI_IN_PLACE, &r.misplaced, 1, MPI_LONG_LONG, MPI_SUM, comm),
                  "MPI_Allreduce (check)");
    }
    return r;
}

/* ---- The machine ---- */

/* Nodes as MPI_COMM_TYPE_SHARED sees them: how many, and ranks per node. */
typedef struct node_info {
    int nodes, min_per_node, max_per_node;
} node_info;

static node_info shared_nodes(MPI_Comm comm)
{
    MPI_Comm node;
    int rank, local_rank, local_size;
    node_info n;

    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node),
              "MPI_Comm_split_type");
    check_mpi(MPI_Comm_rank(node, &local_rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(node, &local_size), "MPI_Comm_size");
    check_mpi(MPI_Comm_free(&node), "MPI_Comm_free");

    int leader = local_rank == 0;
    check_mpi(MPI_Allreduce(&leader, &n.nodes, 1, MPI_INT, MPI_SUM, comm), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(&local_size, &n.min_per_node, 1, MPI_INT, MPI_MIN, comm),
              "MPI_Allreduce");
    check_mpi(MPI_Allreduce(&local_size, &n.max_per_node, 1, MPI_INT, MPI_MAX, comm),
              "MPI_Allreduce");
    return n;
}

/* ---- Output (rank 0) ---- */

static void print_header(const options *opt, int nprocs, node_info n)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    char text[4][24];
    const char *rpn_env = getenv("AIP_RANKS_PER_NODE");

    mpi_library_version(version, sizeof version);
    printf("# alltoall_sweep: all-to-all latency per message size (OSU-style)\n");
    printf("# processes        %d\n", nprocs);
    printf("# nodes            %d (MPI_COMM_TYPE_SHARED), ", n.nodes);
    if (n.min_per_node == n.max_per_node)
        printf("%d ranks per node\n", n.min_per_node);
    else
        printf("%d..%d ranks per node\n", n.min_per_node, n.max_per_node);
    if (opt->ranks_per_node > 0)
        printf("# library nodes    --ranks-per-node %d\n", opt->ranks_per_node);
    else if (rpn_env && *rpn_env)
        printf("# library nodes    AIP_RANKS_PER_NODE=%s\n", rpn_env);
    else
        printf("# library nodes    MPI_COMM_TYPE_SHARED\n");
    printf("# MPI library      %s%s\n", version, UNDER_SMPI ? " (SMPI: simulated times)" : "");
    format_bytes(opt->large_bytes, text[0], sizeof text[0]);
    printf("# calls            %d warm-up + %d timed below %s bytes, %d + %d from there on\n",
           opt->warmup, opt->iterations, text[0], opt->warmup_large, opt->iterations_large);
    format_bytes(opt->mem_cap, text[1], sizeof text[1]);
    if (opt->aux_bytes >= 0)
        format_bytes(opt->aux_bytes, text[2], sizeof text[2]);
    else
        snprintf(text[2], sizeof text[2], "library default");
    printf("# memory cap       %s per rank; aux budget %s\n", text[1], text[2]);
    printf("# check            %s\n", opt->check ? "on (last timed call)" : "off");
    printf("# columns          NAME: slowest rank's average per call (us), NAME.avg: mean\n"
           "#                  over ranks, NAME.min: fastest rank's; n/a: failed or skipped\n");
    printf("#%9s", "bytes");
    for (int i = 0; i < opt->n_methods; i++) {
        char name[3][40];
        snprintf(name[0], sizeof name[0], "%s", opt->methods[i].name);
        snprintf(name[1], sizeof name[1], "%s.avg", opt->methods[i].name);
        snprintf(name[2], sizeof name[2], "%s.min", opt->methods[i].name);
        printf(" %12s %12s %12s", name[0], name[1], name[2]);
    }
    printf("\n");
    fflush(stdout);
}

static void print_row(long long bytes, const options *opt, const result *results)
{
    printf("%10lld", bytes);
    for (int i = 0; i < opt->n_methods; i++) {
        const result *r = &results[i];
        if (r->status == RESULT_OK)
            printf(" %12.2f %12.2f %12.2f", r->max_us, r->avg_us, r->min_us);
        else
            printf(" %12s %12s %12s", "n/a", "n/a", "n/a");
    }
    printf("\n");
    fflush(stdout);
}

/* Notes of one size, after its row: failures only when their text changes,
 * so that a method the library refuses gives one line, not one per size. */
static int print_notes(long long bytes, const options *opt, const result *results,
                       char last_why[][WHY_SIZE])
{
    int check_failed = 0;

    for (int i = 0; i < opt->n_methods; i++) {
        const result *r = &results[i];
        if (r->status != RESULT_OK && strcmp(r->why, last_why[i]) != 0) {
            printf("# %s at %lld bytes%s: %s\n", opt->methods[i].name, bytes,
                   r->status == RESULT_FAILED ? " (and on, unless noted)" : "", r->why);
            snprintf(last_why[i], sizeof last_why[i], "%s", r->why);
        }
        if (r->status == RESULT_OK)
            last_why[i][0] = '\0';
        if (r->misplaced > 0) {
            printf("# CHECK FAILED: %s at %lld bytes: %lld elements misplaced\n",
                   opt->methods[i].name, bytes, r->misplaced);
            check_failed = 1;
        }
    }
    fflush(stdout);
    return check_failed;
}

/* ---- Main ---- */

static int run_sweep(const options *opt, MPI_Comm comm)
{
    int rank, nprocs, any_oop = 0, check_failed = 0;
    result results[MAX_METHODS];
    char last_why[MAX_METHODS][WHY_SIZE];

    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &nprocs), "MPI_Comm_size");
    for (int i = 0; i < opt->n_methods; i++) {
        any_oop |= is_oop(&opt->methods[i]);
        last_why[i][0] = '\0';
    }
    node_info n = shared_nodes(comm);
    if (rank == 0)
        print_header(opt, nprocs, n);

    for (long long bytes = opt->min_bytes; bytes <= opt->max_bytes; bytes *= 2) {
        int count = (int)(bytes / (long long)sizeof(element));
        size_t buffer_bytes = (size_t)bytes * (size_t)nprocs;
        /* One buffer in place, two out of place: real ones if they fit the cap. */
        int oop_here = any_oop;
        long long needed = (long long)buffer_bytes * (oop_here ? 2 : 1);
        int fits_inplace = (long long)buffer_bytes <= opt->mem_cap;
        buffers b = { NULL, NULL, needed > opt->mem_cap };
        if (b.shared && !UNDER_SMPI) {
            if (!fits_inplace) {
                if (rank == 0)
                    printf("# %lld bytes: skipped: needs %lld bytes per rank, above --mem-cap\n",
                           bytes, (long long)buffer_bytes);
                continue;
            }
            /* The in-place methods still fit: run them alone (the others get a note). */
            oop_here = 0;
            b.shared = 0;
        }
        b.buf = allocate_buffer(buffer_bytes, b.shared);
        if (oop_here)
            b.recvbuf = allocate_buffer(buffer_bytes, b.shared);
        if (rank == 0 && b.shared)
            printf("# %lld bytes: shared SMPI buffers (%lld bytes per rank above --mem-cap): "
                   "data not checked\n", bytes, needed);

        int large = bytes >= opt->large_bytes;
        for (int i = 0; i < opt->n_methods; i++) {
            const method *m = &opt->methods[i];
            if (is_oop(m) && !oop_here) {
                results[i] = (result){ RESULT_SKIPPED, 0, 0, 0, -1, "" };
                snprintf(results[i].why, sizeof results[i].why,
                         "skipped: two buffers exceed --mem-cap");
            } else if (m->kind == MPI_INPLACE && UNDER_SMPI &&
                       2 * (long long)buffer_bytes > opt->mem_cap) {
                /* SMPI's MPI_IN_PLACE copies the whole buffer into a real temporary
                 * (untimed), for every rank at once: 512 ranks x p x SIZE bytes. */
                results[i] = (result){ RESULT_SKIPPED, 0, 0, 0, -1, "" };
                snprintf(results[i].why, sizeof results[i].why,
                         "skipped: SMPI's in-place copy of the buffer exceeds --mem-cap");
            } else {
                results[i] = benchmark_method(m, opt, &b, count, large, comm);
            }
        }
        if (rank == 0) {
            print_row(bytes, opt, results);
            check_failed |= print_notes(bytes, opt, results, last_why);
        }
        free_buffer(b.recvbuf, b.shared);
        free_buffer(b.buf, b.shared);
        for (int i = 0; i < opt->n_methods; i++) /* every rank knows, not only rank 0 */
            check_failed |= results[i].misplaced > 0;
        if (bytes > LLONG_MAX / 2)
            break;
    }
    if (rank == 0 && opt->check)
        printf("# check: %s\n", check_failed ? "FAILED (above)" : "all checked calls ok");
    return check_failed;
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
    return run_sweep(opt, comm);
}

int main(int argc, char **argv)
{
    static const bench_main_ops ops = { "alltoall_sweep", parse, print_usage, run };
    options opt;
    return bench_main(argc, argv, &ops, &opt);
}
