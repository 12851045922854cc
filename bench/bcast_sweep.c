/*
 * bcast_sweep.c - broadcast latency over a range of message sizes, in the
 * manner of the OSU micro-benchmarks' osu_bcast, for MPI_Bcast and the trees
 * of AIP_Bcast_rma (the paper's figures: 16 B to 32 MiB).
 *
 * For each size, from --min to --max in powers of two, and each method, some
 * untimed warm-up calls, then timed calls, each alone (a barrier between
 * calls).  Every rank averages its own calls; per method the table gives
 *   NAME      the slowest rank's average, in microseconds (osu "Max Latency")
 *   NAME.avg  the mean over ranks of their averages (osu's default column)
 * Methods (--methods): mpi (MPI_Bcast), linear, binomial, binary, auto
 * (AIP_Bcast_rma_opt with that tree).  The window's budget is --aux (the
 * library's default, 1 MiB, if not given) and the nodes --ranks-per-node
 * (0: as MPI finds them; 1: every rank a node, the paper's flat trees).
 *
 * --check verifies the last timed call of each method and size against the
 * root's data.  Exit status: 0; 1 if a check failed; 2 for bad options; 3
 * (MPI_Abort) after an MPI error.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "alltoall_inplace.h"
#include "bench_util.h"

typedef struct method {
    const char *name;
    AIP_Bcast_algorithm tree; /* AIP_BCAST_DEFAULT: MPI_Bcast */
} method;

static const method all_methods[] = {
    { "mpi", AIP_BCAST_DEFAULT },         { "linear", AIP_BCAST_LINEAR },
    { "binomial", AIP_BCAST_BINOMIAL },   { "binary", AIP_BCAST_BINARY },
    { "auto", AIP_BCAST_AUTO },
};
#define N_ALL_METHODS ((int)(sizeof all_methods / sizeof all_methods[0]))

typedef struct options {
    long long min_bytes, max_bytes, large_bytes, aux_bytes;
    int iterations, iterations_large, warmup, root, ranks_per_node, check;
    int n_methods;
    const method *methods[N_ALL_METHODS];
} options;

static void print_usage(FILE *out)
{
    fputs("usage: bcast_sweep [options]\n"
          "      --min SIZE           smallest message (default 16)\n"
          "      --max SIZE           largest message (default 32M)\n"
          "  -m, --methods LIST       of mpi,linear,binomial,binary,auto (default all)\n"
          "  -i, --iterations N       timed calls per size below --large (default 200)\n"
          "  -I, --iterations-large N timed calls per size from --large on (default 20)\n"
          "      --large BYTES        (default 1M)\n"
          "  -w, --warmup N           untimed calls first (default 5)\n"
          "      --root R             (default 0)\n"
          "      --aux BYTES          window budget of AIP_Bcast_rma (default: the library's)\n"
          "      --ranks-per-node K   0: nodes as MPI finds them (default); K: K ranks a node\n"
          "      --check 0|1          verify each method's last call (default 1)\n",
          out);
}

static int parse_methods(const char *list, options *opt, char *why, size_t why_size)
{
    char item[32];
    int got;
    opt->n_methods = 0;
    while ((got = next_item(&list, item, sizeof item)) == 1) {
        int found = -1;
        for (int i = 0; i < N_ALL_METHODS; i++)
            if (strcmp(item, all_methods[i].name) == 0)
                found = i;
        if (found < 0 || opt->n_methods == N_ALL_METHODS) {
            snprintf(why, why_size, "unknown or repeated method \"%s\"", item);
            return 0;
        }
        opt->methods[opt->n_methods++] = &all_methods[found];
    }
    if (got < 0 || opt->n_methods == 0)
        snprintf(why, why_size, "--methods needs a list of methods");
    return got == 0 && opt->n_methods > 0;
}

static int parse_methods_option(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_methods(value, opt, why, why_size);
}

#define FIELD(name) offsetof(options, name)
static const bench_option option_table[] = {
    { NULL, "--min", OPTION_SIZE, FIELD(min_bytes), 0, LLONG_MAX, NULL },
    { NULL, "--max", OPTION_SIZE, FIELD(max_bytes), 0, LLONG_MAX, NULL },
    { NULL, "--large", OPTION_SIZE, FIELD(large_bytes), 0, LLONG_MAX, NULL },
    { NULL, "--aux", OPTION_SIZE, FIELD(aux_bytes), 0, LLONG_MAX, NULL },
    { "-i", "--iterations", OPTION_INT, FIELD(iterations), 0, 1 << 30, NULL },
    { "-I", "--iterations-large", OPTION_INT, FIELD(iterations_large), 0, 1 << 30, NULL },
    { "-w", "--warmup", OPTION_INT, FIELD(warmup), 0, 1 << 30, NULL },
    { NULL, "--root", OPTION_INT, FIELD(root), 0, 1 << 30, NULL },
    { NULL, "--ranks-per-node", OPTION_INT, FIELD(ranks_per_node), 0, 1 << 30, NULL },
    { NULL, "--check", OPTION_INT, FIELD(check), 0, 1, NULL },
    { "-m", "--methods", OPTION_CUSTOM, 0, 0, 0, parse_methods_option },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
#undef FIELD

static parse_status parse(int argc, char **argv, int nprocs, void *options_out, char *why,
                          size_t why_size)
{
    options *opt = options_out;
    *opt = (options){ 16, 32LL << 20, 1 << 20, AIP_AUX_BYTES_DEFAULT, 200, 20, 5, 0, 0, 1,
                      N_ALL_METHODS, { 0 } };
    for (int i = 0; i < N_ALL_METHODS; i++)
        opt->methods[i] = &all_methods[i];
    parse_status status = bench_parse_options(argc, argv, option_table, opt, why, why_size);
    if (status != PARSE_OK)
        return status;
    if (opt->min_bytes < 1 || opt->min_bytes > opt->max_bytes || opt->max_bytes > (1LL << 30)) {
        snprintf(why, why_size, "need 1 <= --min <= --max <= 1G");
        return PARSE_ERROR;
    }
    if (opt->root >= nprocs || opt->iterations < 1 || opt->iterations_large < 1) {
        snprintf(why, why_size, "--root must be a rank, iterations at least 1");
        return PARSE_ERROR;
    }
    return PARSE_OK;
}

static unsigned char pattern(long long i, int tag)
{
    return (unsigned char)splitmix64((uint64_t)i * 131 + (uint64_t)tag);
}

/* The average time of `calls` calls, in seconds; errors abort. */
static double time_calls(const method *m, const options *opt, unsigned char *buf, int count,
                         int calls, MPI_Comm comm)
{
    AIP_Options aip = AIP_OPTIONS_INIT;
    double elapsed = 0;
    aip.bcast_algorithm = m->tree;
    aip.aux_bytes = opt->aux_bytes;
    aip.ranks_per_node = opt->ranks_per_node;
    for (int i = 0; i < calls; i++) {
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        double start = MPI_Wtime();
        int err = m->tree == AIP_BCAST_DEFAULT
                      ? MPI_Bcast(buf, count, MPI_BYTE, opt->root, comm)
                      : AIP_Bcast_rma_opt(buf, count, MPI_BYTE, opt->root, comm, &aip);
        elapsed += MPI_Wtime() - start;
        check_mpi(err, m->name);
    }
    return calls > 0 ? elapsed / calls : 0;
}

static int run(const void *options_in, MPI_Comm comm)
{
    const options *opt = options_in;
    int rank, nprocs, failed = 0;
    char version[256];

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    mpi_library_version(version, sizeof version);
    if (rank == 0) {
        printf("# bcast_sweep: %d ranks, root %d, %s, ranks per node %d%s, window budget %lld "
               "bytes%s\n# MPI: %s\n# iterations %d (%d from %lld bytes), warm-up %d\n# bytes",
               nprocs, opt->root, MPI_FLAVOUR, opt->ranks_per_node,
               opt->ranks_per_node ? "" : " (as MPI finds them)", opt->aux_bytes,
               opt->aux_bytes < 0 ? " (library default)" : "", version, opt->iterations,
               opt->iterations_large, opt->large_bytes, opt->warmup);
        for (int i = 0; i < opt->n_methods; i++)
            printf(" %s %s.avg", opt->methods[i]->name, opt->methods[i]->name);
        printf("\n");
    }
    unsigned char *buf = allocate_or_abort((size_t)opt->max_bytes, "the message");
    for (long long bytes = opt->min_bytes; bytes <= opt->max_bytes; bytes *= 2) {
        int large = bytes >= opt->large_bytes;
        if (rank == 0)
            printf("%lld", bytes);
        for (int i = 0; i < opt->n_methods; i++) {
            const method *m = opt->methods[i];
            for (long long j = 0; j < bytes; j++) /* the root's data; noise elsewhere */
                buf[j] = rank == opt->root ? pattern(j, i) : (unsigned char)(j + rank);
            time_calls(m, opt, buf, (int)bytes, opt->warmup, comm);
            double mine = time_calls(m, opt, buf, (int)bytes,
                                     large ? opt->iterations_large : opt->iterations, comm) * 1e6;
            double slowest, sum;
            check_mpi(MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "max");
            check_mpi(MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, comm), "sum");
            if (rank == 0)
                printf(" %.2f %.2f", slowest, sum / nprocs);
            int wrong = 0;
            for (long long j = 0; opt->check && j < bytes && !wrong; j++)
                wrong = buf[j] != pattern(j, i);
            check_mpi(MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_INT, MPI_MAX, comm), "check");
            if (wrong && rank == 0)
                fprintf(stderr, "bcast_sweep: %s: wrong data at %lld bytes\n", m->name, bytes);
            failed |= wrong;
        }
        if (rank == 0) {
            printf("\n");
            fflush(stdout);
        }
    }
    free(buf);
    if (rank == 0 && opt->check)
        printf("# check: %s\n", failed ? "FAILED" : "every method's data right");
    return failed;
}

int main(int argc, char **argv)
{
    static const bench_main_ops ops = { "bcast_sweep", parse, print_usage, run };
    options opt;
    return bench_main(argc, argv, &ops, &opt);
}
