/*
 * overlap_bench.c - how much of an in-place exchange a nonblocking plan
 * hides behind computation (AIP_Plan_start, AIP_Plan_test, AIP_Plan_wait).
 *
 * Every rank exchanges SIZE bytes in equal blocks through one plan
 * (AIP_Alltoall_init, the algorithm of --algorithm, the library's 1 MiB
 * budget) and computes on an array of its own that stays in cache (256
 * KiB): passes of a[i] = a[i] * c + d, as many as make the computation last
 * about --ratio times the exchange.  In cache, so that the computation's
 * time does not depend on the memory traffic of the exchange, nor the
 * exchange's on it, beyond sharing the core.  One run times,
 * each repetition the slowest rank's:
 *
 *   exchange  AIP_Plan_execute alone
 *   compute   the passes alone, in SLICES slices
 *   serial    the exchange, then the passes: what an FFT does today
 *   overlap   AIP_Plan_start, the passes in SLICES slices with an
 *             AIP_Plan_test after each, AIP_Plan_wait
 *
 * and prints min and median of each, and `hidden`, the share of the shorter
 * part that overlapping saved: (serial - overlap) / min(exchange, compute)
 * from the medians, 1 when the shorter part is wholly hidden, 0 when
 * nothing is, below 0 when overlapping costs.  The exchange moves only
 * inside the tests, so how much hides depends on who moves the bytes:
 * a network that reads and writes memory on its own hides them; ranks on
 * one node, whose MPI copies through shared memory on the ranks' own
 * cores, hide little (docs/results.md).  The exchanged data is checked
 * after the last repetition.
 *
 * Exit status: 0; 1 if the check failed; 2 for bad options; 3 (MPI_Abort)
 * after an MPI error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "bench_util.h"

typedef struct options {
    long long bytes;
    int reps, slices;
    double ratio;
    const char *algorithm;
} options;

static void print_usage(FILE *out)
{
    fprintf(out, "usage: overlap_bench [options]\n"
                 "  -s, --size SIZE       bytes exchanged per process (default 16M)\n"
                 "  -r, --reps N          timed repetitions, after 1 warm-up (default 10)\n"
                 "  -k, --slices K        slices of the computation, a test after each "
                 "(default 64)\n"
                 "      --ratio R         computation / exchange time, in percent "
                 "(default 100)\n"
                 "  -a, --algorithm NAME  hsa, lsa, mpich, ... (AIP_ALGORITHM's names; "
                 "default hsa)\n"
                 "  -h, --help            print this text\n");
}

static int parse_ratio(const char *value, void *opt, char *why, size_t why_size)
{
    unsigned long long percent;
    if (!parse_number(value, 1, 100000, &percent)) {
        snprintf(why, why_size, "--ratio takes a percentage from 1 to 100000");
        return 0;
    }
    ((options *)opt)->ratio = (double)percent / 100.0;
    return 1;
}

static parse_status parse(int argc, char **argv, int nprocs, void *options_, char *why,
                          size_t why_size)
{
    static const bench_option table[] = {
        { "-s", "--size", OPTION_SIZE, offsetof(options, bytes), 1, 1LL << 40, NULL },
        { "-r", "--reps", OPTION_INT, offsetof(options, reps), 1, 100000, NULL },
        { "-k", "--slices", OPTION_INT, offsetof(options, slices), 1, 1000000, NULL },
        { NULL, "--ratio", OPTION_CUSTOM, 0, 0, 0, parse_ratio },
        { "-a", "--algorithm", OPTION_STRING, offsetof(options, algorithm), 0, 0, NULL },
        { NULL, NULL, OPTION_FLAG, 0, 0, 0, NULL },
    };
    options *opt = options_;
    AIP_Algorithm algorithm;

    *opt = (options){ .bytes = 16LL << 20, .reps = 10, .slices = 64, .ratio = 1.0,
                      .algorithm = "hsa" };
    parse_status status = bench_parse_options(argc, argv, table, opt, why, why_size);
    if (status != PARSE_OK)
        return status;
    if (AIP_Algorithm_from_name(opt->algorithm, &algorithm) != MPI_SUCCESS) {
        snprintf(why, why_size, "unknown algorithm '%s'", opt->algorithm);
        return PARSE_ERROR;
    }
    if (opt->bytes / nprocs / (long long)sizeof(element) < 1) {
        snprintf(why, why_size, "--size gives less than one element per block");
        return PARSE_ERROR;
    }
    return check_ranks_fit(nprocs, why, why_size);
}

#ifdef SMPI_H
/* Under SimGrid's SMPI (built with smpicc) a pass is charged, not run, so
 * that the simulated times carry none of this machine's noise: run it with
 * --cfg=smpi/simulate-computation:no, as bench/fftw_smpi.sh runs its
 * charges, or SMPI charges the real time spent inside smpi_execute too. */
#define SIMULATED_PASS_SECONDS 50e-6
#endif

/* The computation: `passes` passes over a[n], in `slices` slices, with a
 * test of `plan` after each slice if it is not NULL. */
static void compute(double *a, size_t n, double passes, int slices, AIP_Plan plan)
{
    size_t total = (size_t)(passes * (double)n), done = 0;
    for (int s = 1; s <= slices; s++) {
        size_t end = total / (size_t)slices * (size_t)s + (s == slices ? total % (size_t)slices : 0);
#ifdef SMPI_H
        smpi_execute((double)(end - done) / (double)n * SIMULATED_PASS_SECONDS);
        done = end;
#endif
        for (; done < end; done++)
            a[done % n] = a[done % n] * 0.999999 + 1e-6;
        if (plan) {
            int flag;
            check_mpi(AIP_Plan_test(plan, &flag), "AIP_Plan_test");
        }
    }
}

enum { EXCHANGE, COMPUTE, SERIAL, OVERLAP, METHODS };
enum { COMPUTED_BYTES = 256 << 10 };
static const char *const method_names[METHODS] = { "exchange", "compute", "serial", "overlap" };

static int run(const void *options_, MPI_Comm comm)
{
    const options *opt = options_;
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t count = (size_t)opt->bytes / (size_t)p / sizeof(element);
    size_t elements = count * (size_t)p, n = COMPUTED_BYTES / sizeof(double);
    element *buf = allocate_or_abort(elements * sizeof(element), "the exchanged buffer");
    double *a = allocate_or_abort(n * sizeof(double), "the computed array");
    double *times = allocate_or_abort(sizeof(double) * (size_t)opt->reps, "the timings");
    AIP_Options aip = AIP_OPTIONS_INIT;
    AIP_Plan plan;
    time_summary summary[METHODS];

    AIP_Algorithm_from_name(opt->algorithm, &aip.algorithm);
    for (size_t i = 0; i < n; i++)
        a[i] = 1.0;
    fill_send_blocks(buf, rank, p, count);
    check_mpi(AIP_Alltoall_init((int)(count * sizeof(element)), MPI_BYTE, comm, &aip, &plan),
              "AIP_Alltoall_init");

    /* Passes that last opt->ratio times the exchange: the fastest of a few
     * warm runs of each. */
    enum { CALIBRATION_RUNS = 4 };
    double exchange = 1e30, pass = 1e30, t0;
    for (int i = 0; i < CALIBRATION_RUNS; i++) {
        MPI_Barrier(comm);
        t0 = MPI_Wtime();
        check_mpi(AIP_Plan_execute(plan, buf), "AIP_Plan_execute");
        double t = MPI_Wtime() - t0;
        exchange = t < exchange ? t : exchange;
        t0 = MPI_Wtime();
        compute(a, n, 1.0, 1, NULL);
        t = MPI_Wtime() - t0;
        pass = t < pass ? t : pass;
    }
    double passes = opt->ratio * exchange / (pass > 0 ? pass : 1e-9);
    MPI_Allreduce(MPI_IN_PLACE, &passes, 1, MPI_DOUBLE, MPI_MAX, comm);
    int executions = CALIBRATION_RUNS;

    for (int m = 0; m < METHODS; m++) {
        for (int r = -1; r < opt->reps; r++) { /* r = -1: the warm-up */
            MPI_Barrier(comm);
            t0 = MPI_Wtime();
            if (m == OVERLAP)
                check_mpi(AIP_Plan_start(plan, buf), "AIP_Plan_start");
            if (m == EXCHANGE || m == SERIAL)
                check_mpi(AIP_Plan_execute(plan, buf), "AIP_Plan_execute");
            if (m != EXCHANGE)
                compute(a, n, passes, opt->slices, m == OVERLAP ? plan : NULL);
            if (m == OVERLAP)
                check_mpi(AIP_Plan_wait(plan), "AIP_Plan_wait");
            if (r >= 0)
                times[r] = MPI_Wtime() - t0;
            executions += m != COMPUTE;
        }
        summary[m] = summarise_slowest(times, opt->reps, comm);
    }
    /* An even number of exchanges leaves the blocks where they started: one more. */
    if (executions % 2 == 0)
        check_mpi(AIP_Plan_execute(plan, buf), "AIP_Plan_execute");
    long long wrong = count_misplaced_blocks(buf, rank, p, count, NULL);
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, comm);

    if (rank == 0) {
        char size[32], version[256];
        double shorter = summary[EXCHANGE].median_s < summary[COMPUTE].median_s
                             ? summary[EXCHANGE].median_s
                             : summary[COMPUTE].median_s;
        format_bytes(opt->bytes, size, sizeof size);
        mpi_library_version(version, sizeof version);
        printf("# overlap_bench: %d ranks, %s per rank, %s, %.1f passes in %d slices, %d reps; %s\n",
               p, size, opt->algorithm, passes, opt->slices, opt->reps, version);
        printf("# method   min_ms  median_ms\n");
        for (int m = 0; m < METHODS; m++)
            printf("%-9s %8.3f %10.3f\n", method_names[m], 1e3 * summary[m].min_s,
                   1e3 * summary[m].median_s);
        printf("hidden %.2f (check %s)\n",
               (summary[SERIAL].median_s - summary[OVERLAP].median_s) / shorter,
               wrong ? "FAILED" : "ok");
    }
    AIP_Plan_free(&plan);
    free(buf);
    free(a);
    free(times);
    return wrong != 0;
}

int main(int argc, char **argv)
{
    options opt;
    bench_main_ops ops = { "overlap_bench", parse, print_usage, run };
    return bench_main(argc, argv, &ops, &opt);
}
