/*
 * bench_util.h - what the benchmarks of bench/ share: option parsing, fatal
 * errors, the peak-memory probe and the summary of repeated timings.  Sizes
 * read as AIP_AUX_BYTES reads them, memory is read by common/proc_memory.h,
 * and the exchanged data is common/exchange_data.h, the same as the tests'.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include "../common/exchange_data.h"
#include "../common/proc_memory.h"

#if defined(OPEN_MPI)
#define MPI_FLAVOUR "openmpi"
#elif defined(MPICH_VERSION)
#define MPI_FLAVOUR "mpich"
#else
#define MPI_FLAVOUR "other"
#endif

/* Exit status of the benchmarks. */
enum { EXIT_CHECK_FAILED = 1, EXIT_USAGE = 2, EXIT_ABORTED = 3 };

/* The program's name in messages; set by main before anything can fail. */
extern const char *bench_program;

/* ---- Options ---- */

typedef enum parse_status { PARSE_OK, PARSE_HELP, PARSE_ERROR } parse_status;

/* PARSE_ERROR with a reason when nprocs ranks do not fit the elements'
 * 16-bit rank fields (exchange_data.h). */
parse_status check_ranks_fit(int nprocs, char *why, size_t why_size);

/* A decimal number in [min, max]; 0 if `text` is not one. */
int parse_number(const char *text, unsigned long long min, unsigned long long max,
                 unsigned long long *value);
/* Copies the next item of the comma-separated *list into item and advances
 * *list past it.  Returns 1 for an item, 0 at the end of the list, -1 if the
 * item does not fit. */
int next_item(const char **list, char *item, size_t size);
/* "64K" -> 65536, as AIP_AUX_BYTES reads sizes; -1 if `text` is not a size. */
long long parse_bytes(const char *text);

/* One option of a benchmark, a row of the table bench_parse_options reads:
 * its names, what its value is, and where it goes in the benchmark's
 * options struct (offsetof). */
typedef enum option_value {
    OPTION_FLAG,   /* no value: the int becomes 1 */
    OPTION_INT,    /* a decimal number in [min, max], into an int */
    OPTION_U64,    /* a decimal number in [min, max], into a uint64_t */
    OPTION_SIZE,   /* a size (parse_bytes) in [min, max], into a long long */
    OPTION_STRING, /* the text, into a const char * */
    OPTION_CUSTOM  /* parse(value, options, ...): lists, choices, values that touch others */
} option_value;
typedef struct bench_option {
    const char *short_name, *long_name; /* either may be NULL; both end the table */
    option_value value;
    size_t offset;
    unsigned long long min, max;
    int (*parse)(const char *value, void *options, char *why, size_t why_size);
} bench_option;
/* argv against the table, after the caller has set the defaults in *options;
 * -h and --help give PARSE_HELP.  A bad name or value gives PARSE_ERROR and
 * says why. */
parse_status bench_parse_options(int argc, char **argv, const bench_option *table,
                                 void *options, char *why, size_t why_size);
/* "16M" for a whole number of KiB, MiB or GiB, else the bytes. */
void format_bytes(long long bytes, char *text, size_t size);

/* ---- Errors ---- */

/* A rank that cannot go on would leave the others waiting in a collective:
 * print the reason and abort them all. */
_Noreturn void fail(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* fail() with MPI's text unless err is MPI_SUCCESS. */
void check_mpi(int err, const char *what);
void *allocate_or_abort(size_t bytes, const char *what);

/* ---- Random numbers ---- */

uint64_t splitmix64(uint64_t z);

/* ---- Peak memory ---- */

/* Memory freed by an earlier method goes back to the system, so that its
 * reuse cannot hide the allocations of the next method from the peak. */
void release_free_memory(void);
/* Whether every rank can reset its peak RSS (collective). */
int probe_peak_reset(MPI_Comm comm);
/* Before a method runs: frees what earlier ones left (release_free_memory),
 * resets the peak where the kernel lets it (probe_peak_reset says whether)
 * and returns the current RSS in bytes, -1 if unknown. */
long long start_peak_measurement(void);
/* After it: the largest growth over ranks of the peak RSS above rss_before,
 * in MiB; negative if unknown everywhere (collective). */
double peak_growth_mib(long long rss_before, MPI_Comm comm);

/* ---- Timings ---- */

typedef struct time_summary {
    double min_s, median_s, max_s;
} time_summary;

/* The time of a repetition is the slowest rank's: reduces times[reps] with
 * MPI_MAX into every rank and summarises the result over the repetitions
 * (collective; reorders nothing in `times`). */
time_summary summarise_slowest(const double *times, int reps, MPI_Comm comm);

/* The MPI library's version on one line (MPICH separates with tabs and newlines). */
void mpi_library_version(char *text, size_t size);

/* ---- The program ---- */

/* What a benchmark supplies to bench_main; `options` is its own options struct. */
typedef struct bench_main_ops {
    const char *name;
    /* argv -> *options, checked against the number of ranks */
    parse_status (*parse)(int argc, char **argv, int nprocs, void *options, char *why,
                          size_t why_size);
    void (*print_usage)(FILE *out);
    /* the benchmark, on a duplicate of MPI_COMM_WORLD that returns error codes;
     * nonzero if a result check failed */
    int (*run)(const void *options, MPI_Comm comm);
} bench_main_ops;

/* MPI_Init, parse (every rank alike, so that all stop together on bad
 * arguments), run, MPI_Finalize; returns the exit status. */
int bench_main(int argc, char **argv, const bench_main_ops *ops, void *options);

#endif /* BENCH_UTIL_H */
