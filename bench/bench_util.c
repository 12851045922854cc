/*
 * bench_util.c - what the benchmarks of bench/ share (bench_util.h).
 */
#include "bench_util.h"
#include "call/parse_bytes.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not under SimGrid's smpicc: its malloc macros break <malloc.h>'s declarations,
 * and its simulated ranks share one process anyway. */
#if defined(__GLIBC__) && !defined(SMPI_SHARED_MALLOC)
#define HAVE_MALLOC_TRIM 1
#include <malloc.h> /* malloc_trim */
#endif

const char *bench_program = "bench";

/* ---- Options ---- */

parse_status check_ranks_fit(int nprocs, char *why, size_t why_size)
{
    if (nprocs <= ELEMENT_MAX_RANKS)
        return PARSE_OK;
    snprintf(why, why_size, "%d processes; the data pattern has room for %d", nprocs,
             ELEMENT_MAX_RANKS);
    return PARSE_ERROR;
}

int parse_number(const char *text, unsigned long long min, unsigned long long max,
                 unsigned long long *value)
{
    char *end;

    if (!isdigit((unsigned char)*text))
        return 0;
    errno = 0;
    *value = strtoull(text, &end, 10);
    return !errno && !*end && *value >= min && *value <= max;
}

int next_item(const char **list, char *item, size_t size)
{
    if (!*list)
        return 0;
    size_t length = strcspn(*list, ",");
    if (length >= size)
        return -1;
    memcpy(item, *list, length);
    item[length] = '\0';
    *list = (*list)[length] ? *list + length + 1 : NULL;
    return 1;
}

static int is_option(const char *arg, const char *short_name, const char *long_name)
{
    return (short_name && strcmp(arg, short_name) == 0) ||
           (long_name && strcmp(arg, long_name) == 0);
}

long long parse_bytes(const char *text)
{
    return aip_parse_bytes(text);
}

/* The value of one option into its field; 0 with a reason if it is wrong. */
static int apply_option(const bench_option *o, const char *name, const char *value,
                        void *options, char *why, size_t why_size)
{
    char *field = (char *)options + o->offset;
    unsigned long long number;
    long long bytes;

    switch (o->value) {
    case OPTION_FLAG: *(int *)field = 1; return 1;
    case OPTION_STRING: *(const char **)field = value; return 1;
    case OPTION_CUSTOM: return o->parse(value, options, why, why_size);
    case OPTION_SIZE:
        bytes = parse_bytes(value);
        if (bytes < 0 || (unsigned long long)bytes < o->min || (unsigned long long)bytes > o->max) {
            if (o->max >= LLONG_MAX)
                snprintf(why, why_size, "%s \"%s\" is not a size of at least %llu bytes",
                         name, value, o->min);
            else
                snprintf(why, why_size, "%s \"%s\" is not a size from %llu to %llu bytes",
                         name, value, o->min, o->max);
            return 0;
        }
        *(long long *)field = bytes;
        return 1;
    case OPTION_INT:
    case OPTION_U64:
        if (!parse_number(value, o->min, o->max, &number)) {
            snprintf(why, why_size, "%s \"%s\" is not a number from %llu to %llu", name, value,
                     o->min, o->max);
            return 0;
        }
        if (o->value == OPTION_INT)
            *(int *)field = (int)number;
        else
            *(uint64_t *)field = number;
        return 1;
    }
    return 0;
}

parse_status bench_parse_options(int argc, char **argv, const bench_option *table,
                                 void *options, char *why, size_t why_size)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const bench_option *o = table;
        if (is_option(arg, "-h", "--help"))
            return PARSE_HELP;
        while ((o->short_name || o->long_name) && !is_option(arg, o->short_name, o->long_name))
            o++;
        if (!o->short_name && !o->long_name) {
            snprintf(why, why_size, "unknown option \"%s\"", arg);
            return PARSE_ERROR;
        }
        if (o->value != OPTION_FLAG && i + 1 == argc) {
            snprintf(why, why_size, "%s needs a value", arg);
            return PARSE_ERROR;
        }
        if (!apply_option(o, arg, o->value == OPTION_FLAG ? NULL : argv[++i], options, why,
                          why_size))
            return PARSE_ERROR;
    }
    return PARSE_OK;
}

void format_bytes(long long bytes, char *text, size_t size)
{
    static const char units[] = "GMK";
    for (int u = 0; u < 3; u++) {
        long long unit = 1LL << (10 * (3 - u));
        if (bytes > 0 && bytes % unit == 0) {
            snprintf(text, size, "%lld%c", bytes / unit, units[u]);
            return;
        }
    }
    snprintf(text, size, "%lld", bytes);
}

/* ---- Errors ---- */

_Noreturn void fail(const char *format, ...)
{
    va_list args;
    int rank;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "%s: rank %d: ", bench_program, rank);
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    MPI_Abort(MPI_COMM_WORLD, EXIT_ABORTED);
    exit(EXIT_ABORTED); /* MPI_Abort should not return */
}

void check_mpi(int err, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int length;

    if (err == MPI_SUCCESS)
        return;
    MPI_Error_string(err, text, &length);
    fail("%s failed: %s", what, text);
}

void *allocate_or_abort(size_t bytes, const char *what)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (!p)
        fail("cannot allocate the %s (%zu bytes)", what, bytes);
    return p;
}

/* ---- Random numbers ---- */

uint64_t splitmix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- Peak memory ---- */

void release_free_memory(void)
{
#ifdef HAVE_MALLOC_TRIM
    malloc_trim(0);
#endif
}

int probe_peak_reset(MPI_Comm comm)
{
    int works = proc_reset_peak();
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &works, 1, MPI_INT, MPI_MIN, comm),
              "MPI_Allreduce (probe)");
    return works;
}

long long start_peak_measurement(void)
{
    release_free_memory();
    (void)proc_reset_peak();
    return proc_status_bytes("VmRSS");
}

double peak_growth_mib(long long rss_before, MPI_Comm comm)
{
    long long peak = proc_status_bytes("VmHWM");
    double mine = peak >= 0 && rss_before >= 0 ? (double)(peak - rss_before) / 1048576.0 : -1.0;
    double largest;

    check_mpi(MPI_Allreduce(&mine, &largest, 1, MPI_DOUBLE, MPI_MAX, comm),
              "MPI_Allreduce (memory)");
    return largest;
}

/* ---- Timings ---- */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

time_summary summarise_slowest(const double *times, int reps, MPI_Comm comm)
{
    double *slowest = allocate_or_abort(sizeof(double) * (size_t)reps, "timings");
    time_summary s;

    check_mpi(MPI_Allreduce(times, slowest, reps, MPI_DOUBLE, MPI_MAX, comm),
              "MPI_Allreduce (times)");
    qsort(slowest, (size_t)reps, sizeof *slowest, compare_doubles);
    s.min_s = slowest[0];
    s.max_s = slowest[reps - 1];
    s.median_s = reps % 2 ? slowest[reps / 2]
                          : (slowest[reps / 2 - 1] + slowest[reps / 2]) / 2.0;
    free(slowest);
    return s;
}

void mpi_library_version(char *text, size_t size)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int length;

    check_mpi(MPI_Get_library_version(version, &length), "MPI_Get_library_version");
    version[strcspn(version, "\n")] = '\0';
    for (char *c = version; *c; c++)
        if (*c == '\t')
            *c = ' ';
    snprintf(text, size, "%s", version);
}

/* ---- The program ---- */

/* The exit status, unless MPI cannot shut down cleanly. */
static int finalize(int status)
{
    return MPI_Finalize() == MPI_SUCCESS ? status : EXIT_ABORTED;
}

int bench_main(int argc, char **argv, const bench_main_ops *ops, void *options)
{
    char why[256] = "";
    int rank, nprocs;
    MPI_Comm comm;

    bench_program = ops->name;
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "%s: MPI_Init failed\n", ops->name);
        return EXIT_ABORTED;
    }
    check_mpi(MPI_Comm_rank(MPI_COMM_WORLD, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(MPI_COMM_WORLD, &nprocs), "MPI_Comm_size");

    parse_status status = ops->parse(argc, argv, nprocs, options, why, sizeof why);
    if (status != PARSE_OK) {
        if (rank == 0) {
            if (status == PARSE_ERROR)
                fprintf(stderr, "%s: %s\n", ops->name, why);
            ops->print_usage(status == PARSE_HELP ? stdout : stderr);
        }
        return finalize(status == PARSE_HELP ? EXIT_SUCCESS : EXIT_USAGE);
    }

    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &comm), "MPI_Comm_dup");
    check_mpi(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    int failed = ops->run(options, comm);
    check_mpi(MPI_Comm_free(&comm), "MPI_Comm_free");
    return finalize(failed ? EXIT_CHECK_FAILED : EXIT_SUCCESS);
}
