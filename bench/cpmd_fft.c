/*
 * cpmd_fft - the FFT workload of a plane-wave DFT code (CPMD, Quantum
 * ESPRESSO, ABINIT), run with stock FFTW's MPI transposes and with ours.
 *
 * Such codes transform many bands per SCF step: each band is a 3D complex
 * grid of N^3, slab-decomposed over the ranks of a task group, taken to
 * reciprocal space, multiplied pointwise there (kinetic energy, a
 * propagator) and taken back.  They batch B bands into one transform
 * (FFTW's `howmany`) and leave reciprocal space transposed, so each
 * direction has one global transpose, whose per-pair messages are small
 * at scale: 16 N^3 B / P^2 bytes (128^3 on 64 ranks: 8 KiB per band).
 * This program does exactly that with the patched FFTW:
 *
 *   forward   fftw_mpi_plan_many_dft(3, N^3, howmany = B, FFTW_FORWARD,
 *             FFTW_MPI_TRANSPOSED_OUT), in place (or out of place)
 *   multiply  by exp(-i dt |G|^2 / 2) / N^3 (a kinetic propagator, which
 *             keeps every value's modulus, so thousands of steps stay exact)
 *   backward  the same with FFTW_BACKWARD and FFTW_MPI_TRANSPOSED_IN
 *
 * over `bands` bands, B at a time, for each variant:
 *
 *   stock  stock FFTW in place (FFTW_MPI_INPLACE_ALGORITHM=off)
 *   hsa, sa, lsa, mpich, hypercube, general  ours, forced
 *   auto   ours, the planner's choice (FFTW_MPI_INPLACE_ALGORITHM=auto)
 *   oop    stock FFTW out of place: a second array, destroying the input
 *   ALGORITHM-pipelined  two batches in flight, each one's exchanges
 *          behind the other's FFTs: the same transforms built from FFTW's
 *          serial plans and the library's nonblocking plans of ALGORITHM
 *          (hsa, auto, ...), cpmd_pipeline.c
 *   ALGORITHM-sequential  the same, each exchange waited for at once
 *
 * and prints one line per variant (columns in the header line it prints
 * first): time per band-FFT (the timed steps over 2 x bands x groups, the
 * whole job's throughput: min and median of the repetitions, the slowest
 * rank's), per-pair bytes, peak
 * resident memory (VmHWM) and its growth beyond the state before the
 * arrays, the arrays, the largest error, and the plan's distributed
 * transposes (fftw_sprint_plan).
 *
 * The check: every band starts as a plane wave exp(2 pi i k_b.x / N) with a
 * wave vector of its own, so its forward transform is N^3 at k_b (in the
 * transposed layout) and zero elsewhere, which the first (untimed) step
 * checks; after all s steps each band is its input times
 * exp(-i s dt |k_b|^2 / 2), which is checked at the end.  A misplaced
 * block or band gives errors of order 1; rounding, about 1e-13.
 *
 * Task groups (-g G): the ranks split into G groups of consecutive ranks,
 * each transforming bands/G bands with its own plans, at the same time, as
 * CPMD's task groups do where there are more ranks than planes.
 *
 * Built with smpicc and -DCPMD_FFT_SMPI (bench/cpmd_figures.sh smpi), it
 * runs the same plans under SimGrid SMPI with the local work charged as in
 * bench/smpi/fftw_sim.c (bench/smpi/sim_charge.h): --model charges each
 * serial sub-plan the time rank 0 of the group measured for it, and the
 * multiply the time it measured for one, instead of running them; the
 * arrays of the other ranks are folded.  There is nothing to check then.
 */
#include <complex.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3-mpi.h>

#include "bench_util.h"
#include "cpmd_pipeline.h"
#ifdef CPMD_FFT_SMPI
#include <simgrid/host.h>
#include "sim_charge.h"
#endif

enum { MAX_VARIANTS = 16, NAME_SIZE = 24 };

typedef struct options {
    ptrdiff_t n;        /* grid of n^3 */
    int bands, batch, groups, repeats;
    int pieces;         /* the pipelined variants' pieces per computation (0: p) */
    unsigned planner;   /* FFTW_ESTIMATE or FFTW_MEASURE */
    int variants;
    char variant[MAX_VARIANTS][NAME_SIZE];
    int model;          /* SMPI: charge the local work instead of doing it */
    const char *calibration;
} options;

/* The propagator's time step: |G|^2 dt / 2 reaches a few radians at the
 * largest frequencies of a 64^3 grid, so misplaced values show. */
static const double time_step = 0.01;

static void print_usage(FILE *out)
{
    fprintf(out,
            "usage: cpmd_fft [-n N] [-b BANDS] [-B BATCH] [-g GROUPS] [-r REPEATS] [-t PIECES]\n"
            "                [-p estimate|measure] [-a stock,hsa,sa,auto,oop]"
#ifdef CPMD_FFT_SMPI
            " [--model] [--calibration FILE]"
#endif
            "\n"
            "  -n N        grid of N^3 complex doubles per band [64]\n"
            "  -b BANDS    bands of each group per repetition, a multiple of BATCH [32]\n"
            "  -B BATCH    bands per transform (FFTW's howmany) [4]\n"
            "  -g GROUPS   task groups of consecutive ranks [1]\n"
            "  -r REPEATS  timed repetitions of all bands [3]\n"
            "  -t PIECES   the pipelined variants: pieces of each computation between\n"
            "              two exchanges, each followed by a test [a group's ranks]\n"
            "  -p          FFTW_ESTIMATE or FFTW_MEASURE [estimate]\n"
            "  -a LIST     variants: stock, oop (stock FFTW in and out of place), auto,\n"
            "              any algorithm of the library (AIP_ALGORITHM's names), or\n"
            "              ALGORITHM-pipelined, ALGORITHM-sequential (batches pipelined or\n"
            "              not through the library's nonblocking plans; N divisible by\n"
            "              a group's ranks, an even number of batches)\n"
            "              [stock,hsa,sa,auto,oop]\n");
}

static int parse_grid(const char *value, void *opt, char *why, size_t why_size)
{
    unsigned long long n;
    if (!parse_number(value, 2, 1 << 14, &n)) {
        snprintf(why, why_size, "-n \"%s\" is not a number from 2 to %d", value, 1 << 14);
        return 0;
    }
    ((options *)opt)->n = (ptrdiff_t)n;
    return 1;
}

static int parse_planner(const char *value, void *opt, char *why, size_t why_size)
{
    if (strcmp(value, "estimate") && strcmp(value, "measure")) {
        snprintf(why, why_size, "-p \"%s\" is neither estimate nor measure", value);
        return 0;
    }
    ((options *)opt)->planner = value[0] == 'e' ? FFTW_ESTIMATE : FFTW_MEASURE;
    return 1;
}

static int parse_variants(const char *list, void *opt_, char *why, size_t why_size)
{
    options *opt = opt_;
    char item[NAME_SIZE];
    int got;
    opt->variants = 0;
    while ((got = next_item(&list, item, sizeof item)) == 1 && opt->variants < MAX_VARIANTS)
        strcpy(opt->variant[opt->variants++], item);
    if (got < 0 || opt->variants == 0) {
        snprintf(why, why_size, "bad list of variants");
        return 0;
    }
    return 1;
}

#define FIELD(name) offsetof(options, name)
static const bench_option option_table[] = {
    { "-n", NULL, OPTION_CUSTOM, 0, 0, 0, parse_grid },
    { "-b", NULL, OPTION_INT, FIELD(bands), 1, 1 << 20, NULL },
    { "-B", NULL, OPTION_INT, FIELD(batch), 1, 1 << 10, NULL },
    { "-g", NULL, OPTION_INT, FIELD(groups), 1, 1 << 20, NULL },
    { "-r", NULL, OPTION_INT, FIELD(repeats), 1, 1000, NULL },
    { "-t", NULL, OPTION_INT, FIELD(pieces), 1, 1 << 20, NULL },
    { "-p", NULL, OPTION_CUSTOM, 0, 0, 0, parse_planner },
    { "-a", NULL, OPTION_CUSTOM, 0, 0, 0, parse_variants },
    { NULL, "--calibration", OPTION_STRING, FIELD(calibration), 0, 0, NULL },
    { NULL, "--model", OPTION_FLAG, FIELD(model), 0, 0, NULL },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
#undef FIELD

static parse_status parse(int argc, char **argv, int nprocs, void *options_, char *why,
                          size_t why_size)
{
    options *opt = options_;

    *opt = (options){ .n = 64, .bands = 32, .batch = 4, .groups = 1, .repeats = 3,
                      .planner = FFTW_ESTIMATE };
    parse_variants("stock,hsa,sa,auto,oop", opt, why, why_size);
    parse_status status = bench_parse_options(argc, argv, option_table, opt, why, why_size);
    if (status != PARSE_OK)
        return status;
    if (opt->bands % opt->batch) {
        snprintf(why, why_size, "bands (%d) must be a multiple of the batch (%d)", opt->bands,
                 opt->batch);
        return PARSE_ERROR;
    }
    if (nprocs % opt->groups) {
        snprintf(why, why_size, "%d ranks do not split into %d groups", nprocs, opt->groups);
        return PARSE_ERROR;
    }
#ifndef CPMD_FFT_SMPI
    if (opt->model || opt->calibration) {
        snprintf(why, why_size, "--model and --calibration need the SMPI build");
        return PARSE_ERROR;
    }
#endif
    return PARSE_OK;
}

/* ---- The bands: plane waves, the propagator, the checks -------------------- */

/* The signed frequency of index k of n. */
static double frequency(ptrdiff_t k, ptrdiff_t n)
{
    return (double)(k <= n / 2 ? k : k - n);
}

/* Band b's wave vector: different for every band of a batch, mixed over
 * the three dimensions so that a swapped pair of axes shows. */
static void wave_vector(int b, ptrdiff_t n, ptrdiff_t k[3])
{
    k[0] = (1 + b) % n;
    k[1] = (2 + 3 * (ptrdiff_t)b) % n;
    k[2] = (n - 1 - 5 * (ptrdiff_t)b % n) % n;
}

static double kinetic_phase(const ptrdiff_t k[3], ptrdiff_t n)
{
    double g0 = frequency(k[0], n), g1 = frequency(k[1], n), g2 = frequency(k[2], n);
    return time_step * (g0 * g0 + g1 * g1 + g2 * g2) / 2;
}

/* exp(2 pi i j k / n) */
static double complex root(ptrdiff_t j, ptrdiff_t k, ptrdiff_t n)
{
    return cexp(2 * M_PI * I * (double)((j * k) % n) / (double)n);
}

/* The bands' values on this rank's planes x0 .. x0 + planes - 1 (real-space
 * layout x, y, z, band), times exp(-i steps phase_b): the input with
 * steps = 0, the expected data after `steps` steps otherwise.  Fills `data`
 * (fill) or returns the largest distance from it. */
static double bands_in_space(fftw_complex *data, ptrdiff_t n, int batch, ptrdiff_t planes,
                             ptrdiff_t x0, double steps, int fill)
{
    double worst = 0;
    double complex *along_z = allocate_or_abort(sizeof(double complex) * (size_t)n, "wave");
    for (int b = 0; b < batch; b++) {
        ptrdiff_t k[3];
        wave_vector(b, n, k);
        double complex factor = cexp(-I * fmod(steps * kinetic_phase(k, n), 2 * M_PI));
        for (ptrdiff_t z = 0; z < n; z++)
            along_z[z] = root(z, k[2], n);
        for (ptrdiff_t x = 0; x < planes; x++)
            for (ptrdiff_t y = 0; y < n; y++) {
                double complex xy = factor * root(x0 + x, k[0], n) * root(y, k[1], n);
                fftw_complex *row = data + ((x * n + y) * n) * batch + b;
                for (ptrdiff_t z = 0; z < n; z++) {
                    double complex want = xy * along_z[z];
                    if (fill)
                        row[z * batch] = want;
                    else if (cabs(row[z * batch] - want) > worst)
                        worst = cabs(row[z * batch] - want);
                }
            }
    }
    free(along_z);
    return worst;
}

/* After the forward transform (transposed layout y, x, z, band on this
 * rank's y0 .. y0 + planes - 1): the largest distance from N^3 at k_b and
 * zero elsewhere, relative to N^3. */
static double spectrum_error(const fftw_complex *data, ptrdiff_t n, int batch, ptrdiff_t planes,
                             ptrdiff_t y0)
{
    double volume = (double)n * (double)n * (double)n, worst = 0;
    for (int b = 0; b < batch; b++) {
        ptrdiff_t k[3];
        wave_vector(b, n, k);
        for (ptrdiff_t y = 0; y < planes; y++)
            for (ptrdiff_t x = 0; x < n; x++)
                for (ptrdiff_t z = 0; z < n; z++) {
                    int peak = y0 + y == k[1] && x == k[0] && z == k[2];
                    double d = cabs(data[((y * n + x) * n + z) * batch + b] - (peak ? volume : 0));
                    if (d > worst)
                        worst = d;
                }
    }
    return worst / volume;
}

/* The propagator exp(-i dt |G|^2 / 2) / N^3 is a product of one factor per
 * axis: three tables of n, not an array of the grid. */
typedef struct propagator {
    double complex *axis; /* exp(-i dt g^2 / 2) for g = frequency(k, n) */
    double scale;         /* 1 / N^3: the backward transform is unnormalised */
} propagator;

static propagator make_propagator(ptrdiff_t n)
{
    propagator p = { allocate_or_abort(sizeof(double complex) * (size_t)n, "propagator"),
                     1.0 / ((double)n * (double)n * (double)n) };
    for (ptrdiff_t k = 0; k < n; k++) {
        double g = frequency(k, n);
        p.axis[k] = cexp(-I * time_step * g * g / 2);
    }
    return p;
}

/* The pointwise multiply in reciprocal space (transposed layout). */
static void multiply(fftw_complex *data, const propagator *p, ptrdiff_t n, int batch,
                     ptrdiff_t planes, ptrdiff_t y0)
{
    for (ptrdiff_t y = 0; y < planes; y++)
        for (ptrdiff_t x = 0; x < n; x++) {
            double complex yx = p->scale * p->axis[y0 + y] * p->axis[x];
            fftw_complex *row = data + ((y * n + x) * n) * batch;
            for (ptrdiff_t z = 0; z < n; z++) {
                double complex f = yx * p->axis[z];
                for (int b = 0; b < batch; b++)
                    row[z * batch + b] *= f;
            }
        }
}

#ifdef CPMD_FFT_SMPI
/* One multiply, as charge_measure runs it: every variant of a case reads its
 * time from the calibration file, so that they differ by their exchanges. */
typedef struct multiply_call {
    fftw_complex *data;
    const propagator *p;
    ptrdiff_t n;
    int batch;
    ptrdiff_t planes, y0;
} multiply_call;

static void run_multiply(void *arg)
{
    const multiply_call *c = arg;
    multiply(c->data, c->p, c->n, c->batch, c->planes, c->y0);
}
#endif

/* ---- One variant --------------------------------------------------------------- */

/* The distributed transposes of a printed plan, e.g. "pairwise,pairwise". */
static void plan_transposes(fftw_plan plan, char *text, size_t size)
{
    char *printed = fftw_sprint_plan(plan), *p = printed;
    static const char tag[] = "(mpi-transpose-";
    size_t used = strlen(text);
    while ((p = strstr(p, tag)) && used + 40 < size) {
        size_t len = strcspn(p + strlen(tag), " ()\n");
        used += (size_t)snprintf(text + used, size - used, "%s%.*s", used ? "," : "", (int)len,
                                 p + strlen(tag));
        p += strlen(tag) + len;
    }
    free(printed);
}

/* What the variant's name asks of FFTW_MPI_INPLACE_ALGORITHM (before
 * planning; the planner agrees on it once per plan's communicator). */
static const char *algorithm_of(const char *variant)
{
    return !strcmp(variant, "stock") || !strcmp(variant, "oop") ? "off" : variant;
}

typedef struct group {
    MPI_Comm comm;  /* this task group's ranks */
    int rank, size;
} group;

#ifdef CPMD_FFT_SMPI
/* The simulated core's copy bandwidth against this machine's (the
 * platform's host property core_copy_bandwidth, as fftw_sim reads it; this
 * machine's where the platform has none: bench/smpi/cluster_64x8.xml's
 * hosts are this machine's cores). */
static double here_copy_bandwidth, core_copy_bandwidth;

static void setup_charging(const options *opt, const group *g)
{
    if (g->rank == 0)
        here_copy_bandwidth = charge_here_copy_bandwidth(opt->calibration);
    check_mpi(MPI_Bcast(&here_copy_bandwidth, 1, MPI_DOUBLE, 0, g->comm), "MPI_Bcast");
    const char *property = sg_host_get_property_value(sg_host_self(), "core_copy_bandwidth");
    core_copy_bandwidth = property && atof(property) > 0 ? atof(property) : here_copy_bandwidth;
    charge_install(opt->model ? CHARGE_MODEL : CHARGE_RUN, core_copy_bandwidth,
                   opt->model && g->rank != 0);
}
#endif

/* An array of a batch, touched (so that the peak counts it) unless folded. */
static fftw_complex *allocate_array(size_t bytes, int fold)
{
#ifdef CPMD_FFT_SMPI
    fftw_complex *a = fold ? SMPI_SHARED_MALLOC(bytes) : fftw_malloc(bytes);
#else
    fftw_complex *a = fftw_malloc(bytes);
#endif
    if (!a)
        fail("cannot allocate %zu bytes", bytes);
    if (!fold)
        memset(a, 0, bytes); /* touched, so that the peak counts it */
    return a;
}

static void free_array(fftw_complex *a, int fold)
{
#ifdef CPMD_FFT_SMPI
    if (fold) {
        SMPI_SHARED_FREE(a);
        return;
    }
#endif
    (void)fold;
    fftw_free(a);
}

/* Prints the variant's line on rank 0 (collective: peak memory).  exchange:
 * this rank's seconds in the exchanges over all repetitions, -1 if not
 * measured. */
static void report(const options *opt, const char *variant, const group *g, MPI_Comm comm,
                   const time_summary *t, double exchange, long long rss_before,
                   double arrays_mib, double error, double calibration_s,
                   const char *transposes)
{
    int rank;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    double growth = opt->model ? -1 : peak_growth_mib(rss_before, comm);
    double peak = (double)proc_status_bytes("VmHWM") / 1048576.0;
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &peak, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    if (rank != 0)
        return;
    ptrdiff_t n = opt->n;
    double band_ffts = 2.0 * opt->bands * opt->groups; /* the whole job's */
    double pair = 16.0 * (double)n * (double)n * (double)n * opt->batch /
                  ((double)g->size * (double)g->size);
    double exchange_us = exchange < 0 ? -1 : exchange / (opt->repeats * band_ffts) * 1e6;
    printf("%-14s %5d %4d %4d %4td %3d %5d %9.0f %11.3f %11.3f %10.3f %9.1f %9.1f %9.1f "
           "%9.2e %8.4f %s\n",
           variant, g->size * opt->groups, opt->groups, g->size, n, opt->batch, opt->bands,
           pair, t->min_s / band_ffts * 1e6, t->median_s / band_ffts * 1e6, exchange_us,
           opt->model ? -1 : peak, growth, arrays_mib, error, calibration_s, transposes);
    fflush(stdout);
}

/* Whether a checked run went wrong (rank 0 says so); the model checks nothing. */
static int wrong_result(const options *opt, const char *variant, int rank, double error)
{
    int wrong = !opt->model && !(error < 1e-9);
    if (wrong && rank == 0)
        fprintf(stderr, "cpmd_fft: %s: WRONG RESULT, largest error %.3e\n", variant, error);
    return wrong;
}

/* Runs one variant and prints its line on rank 0; nonzero if wrong. */
static int run_variant(const options *opt, const char *variant, const group *g, MPI_Comm comm,
                       const propagator *prop)
{
    ptrdiff_t n = opt->n, dims[3] = { n, n, n }, planes, x0, tplanes, y0;
    int out_of_place = !strcmp(variant, "oop"), rank;
    int fold = opt->model && g->rank != 0; /* the group's rank 0 calibrates on real arrays */
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");

    if (setenv("FFTW_MPI_INPLACE_ALGORITHM", algorithm_of(variant), 1))
        fail("cannot set FFTW_MPI_INPLACE_ALGORITHM");
    long long rss_before = start_peak_measurement();

    ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(
        3, dims, opt->batch, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, g->comm, &planes,
        &x0, &tplanes, &y0);
    size_t bytes = sizeof(fftw_complex) * (size_t)(alloc > 0 ? alloc : 1);
    fftw_complex *data = allocate_array(bytes, fold);
    fftw_complex *spare = out_of_place ? allocate_array(bytes, fold) : data;
    unsigned flags = opt->planner | (out_of_place ? FFTW_DESTROY_INPUT : 0);
    fftw_plan forward = fftw_mpi_plan_many_dft(3, dims, opt->batch, FFTW_MPI_DEFAULT_BLOCK,
                                               FFTW_MPI_DEFAULT_BLOCK, data, spare, g->comm,
                                               FFTW_FORWARD, flags | FFTW_MPI_TRANSPOSED_OUT);
    fftw_plan backward = fftw_mpi_plan_many_dft(3, dims, opt->batch, FFTW_MPI_DEFAULT_BLOCK,
                                                FFTW_MPI_DEFAULT_BLOCK, spare, data, g->comm,
                                                FFTW_BACKWARD, flags | FFTW_MPI_TRANSPOSED_IN);
    if (!forward || !backward)
        fail("FFTW made no plan for %s", variant);

    double calibration_s = 0;
#ifdef CPMD_FFT_SMPI
    double multiply_seconds = 0;
    if (opt->model) {
        calibration_s = charge_calibrate(g->comm, here_copy_bandwidth / core_copy_bandwidth,
                                         opt->calibration);
        if (g->rank == 0) { /* the multiply, measured and cached like a sub-plan */
            multiply_call call = { spare, prop, n, opt->batch, tplanes, y0 };
            char key[128];
            snprintf(key, sizeof key, "cpmd-multiply n=%td batch=%d planes=%td", n,
                     opt->batch, tplanes);
            multiply_seconds = charge_measure(key, opt->calibration, run_multiply, &call) *
                               here_copy_bandwidth / core_copy_bandwidth;
        }
        check_mpi(MPI_Bcast(&multiply_seconds, 1, MPI_DOUBLE, 0, g->comm), "MPI_Bcast");
    }
#endif

    /* The first step, untimed: warms the plans up and checks the spectrum. */
    double spectrum = 0, steps = 0;
    if (!opt->model) {
        bands_in_space(data, n, opt->batch, planes, x0, 0, 1);
        fftw_execute(forward);
        spectrum = spectrum_error(spare, n, opt->batch, tplanes, y0);
        multiply(spare, prop, n, opt->batch, tplanes, y0);
        fftw_execute(backward);
        steps = 1;
    }

    int rounds = opt->bands / opt->batch;
    double *times = allocate_or_abort(sizeof(double) * (size_t)opt->repeats, "times");
#ifdef CPMD_FFT_SMPI
    double parts[CHARGE_CATEGORIES] = { 0 };
    charge_begin();
#endif
    for (int r = 0; r < opt->repeats; r++) {
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        double started = MPI_Wtime();
        for (int s = 0; s < rounds; s++) {
            fftw_execute(forward);
#ifdef CPMD_FFT_SMPI
            if (opt->model)
                charge_local(multiply_seconds);
            else
#endif
                multiply(spare, prop, n, opt->batch, tplanes, y0);
            fftw_execute(backward);
        }
        times[r] = MPI_Wtime() - started;
        steps += rounds;
    }
#ifdef CPMD_FFT_SMPI
    charge_end(parts);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, parts, CHARGE_CATEGORIES, MPI_DOUBLE, MPI_MAX, comm),
              "MPI_Allreduce");
#endif
    time_summary t = summarise_slowest(times, opt->repeats, comm);
    free(times);

    double error = opt->model ? -1 : spectrum;
    if (!opt->model) {
        double space = bands_in_space(data, n, opt->batch, planes, x0, steps, 0);
        error = space > error ? space : error;
    }
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");

    char transposes[512] = "";
    if (rank == 0) {
        plan_transposes(forward, transposes, sizeof transposes);
        size_t used = strlen(transposes);
        snprintf(transposes + used, sizeof transposes - used, ";");
        plan_transposes(backward, transposes + used + 1, sizeof transposes - used - 1);
    }
#ifdef CPMD_FFT_SMPI
    double exchange = parts[CHARGE_EXCHANGE];
#else
    double exchange = -1;
#endif
    double arrays = (out_of_place ? 2.0 : 1.0) * (double)bytes / 1048576.0;
    report(opt, variant, g, comm, &t, exchange, rss_before, arrays, error, calibration_s,
           transposes[1] ? transposes : "none");
    fftw_destroy_plan(forward);
    fftw_destroy_plan(backward);
    free_array(data, fold);
    if (out_of_place)
        free_array(spare, fold);
    return wrong_result(opt, variant, rank, error);
}

/* ---- The pipelined variants (cpmd_pipeline.c) ---------------------------------- */

typedef struct reciprocal_space {
    const propagator *prop;
    ptrdiff_t n, y0;
    int batch;
} reciprocal_space;

static void multiply_plane(fftw_complex *plane, ptrdiff_t y, void *arg)
{
    const reciprocal_space *r = arg;
    multiply(plane, r->prop, r->n, r->batch, 1, r->y0 + y);
}

/* Whether variant is ALGORITHM-pipelined (two batches in flight, each
 * exchange behind the other's FFTs) or ALGORITHM-sequential (the same
 * computation, every exchange waited for at once), and its parts. */
static int is_pipelined(const char *variant, AIP_Algorithm *algorithm, int *overlap)
{
    static const char *const suffix[2] = { "-sequential", "-pipelined" };
    char name[NAME_SIZE];
    size_t length = strlen(variant);
    for (int k = 0; k < 2; k++) {
        size_t s = strlen(suffix[k]);
        if (length > s && length - s < sizeof name && !strcmp(variant + length - s, suffix[k])) {
            memcpy(name, variant, length - s);
            name[length - s] = '\0';
            *overlap = k;
            return AIP_Algorithm_from_name(name, algorithm) == MPI_SUCCESS;
        }
    }
    return 0;
}

/* A pipelined variant (is_pipelined).  The bands are split between two
 * arrays of a batch each, as a plane-wave code's bands are all resident;
 * nonzero if wrong. */
static int run_pipelined(const options *opt, const char *variant, AIP_Algorithm algorithm,
                         int overlap, const group *g, MPI_Comm comm, const propagator *prop)
{
    ptrdiff_t n = opt->n, dims[3] = { n, n, n }, planes, x0, tplanes, y0;
    int rank, rounds = opt->bands / opt->batch;
    int fold = opt->model && g->rank != 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    if (n % g->size || rounds % 2) {
        if (rank == 0)
            printf("# %s: not run: it needs N divisible by a group's ranks (%td, %d) and an "
                   "even number of batches (%d)\n", variant, n, g->size, rounds);
        return 0;
    }
    long long rss_before = start_peak_measurement();
    ptrdiff_t alloc = fftw_mpi_local_size_many_transposed(
        3, dims, opt->batch, FFTW_MPI_DEFAULT_BLOCK, FFTW_MPI_DEFAULT_BLOCK, g->comm, &planes,
        &x0, &tplanes, &y0);
    size_t bytes = sizeof(fftw_complex) * (size_t)alloc;
    fftw_complex *arrays[2] = { allocate_array(bytes, fold), allocate_array(bytes, fold) };
    reciprocal_space space = { prop, n, y0, opt->batch };
    cpmd_pipeline *pl = cpmd_pipeline_create(n, opt->batch, g->comm, opt->planner, algorithm,
                                             overlap, opt->pieces, multiply_plane, &space,
                                             arrays[0]);
    double calibration_s = 0;
#ifdef CPMD_FFT_SMPI
    if (opt->model)
        calibration_s = cpmd_pipeline_model(pl, arrays[0],
                                            here_copy_bandwidth / core_copy_bandwidth,
                                            opt->calibration);
#endif

    /* The first step, untimed and not overlapped: checks each array's spectrum. */
    double spectrum = 0, steps = 0;
    if (!opt->model) {
        for (int a = 0; a < 2; a++) {
            bands_in_space(arrays[a], n, opt->batch, planes, x0, 0, 1);
            cpmd_pipeline_forward(pl, arrays[a]);
            double e = spectrum_error(arrays[a], n, opt->batch, tplanes, y0);
            spectrum = e > spectrum ? e : spectrum;
            multiply(arrays[a], prop, n, opt->batch, tplanes, y0);
            cpmd_pipeline_backward(pl, arrays[a]);
        }
        steps = 1;
    }

    double *times = allocate_or_abort(sizeof(double) * (size_t)opt->repeats, "times");
    cpmd_pipeline_exposed(pl);
    for (int r = 0; r < opt->repeats; r++) {
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        double started = MPI_Wtime();
        cpmd_pipeline_steps(pl, arrays, rounds);
        times[r] = MPI_Wtime() - started;
        steps += rounds / 2;
    }
    double exposed = cpmd_pipeline_exposed(pl);
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &exposed, 1, MPI_DOUBLE, MPI_MAX, comm),
              "MPI_Allreduce");
    time_summary t = summarise_slowest(times, opt->repeats, comm);
    free(times);

    double error = opt->model ? -1 : spectrum;
    for (int a = 0; a < 2 && !opt->model; a++) {
        double e = bands_in_space(arrays[a], n, opt->batch, planes, x0, steps, 0);
        error = e > error ? e : error;
    }
    check_mpi(MPI_Allreduce(MPI_IN_PLACE, &error, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    char exchanges[64];
    snprintf(exchanges, sizeof exchanges, "aip-nonblocking/%s;aip-nonblocking/%s",
             cpmd_pipeline_algorithm(pl), cpmd_pipeline_algorithm(pl));
    report(opt, variant, g, comm, &t, exposed, rss_before, 2.0 * (double)bytes / 1048576.0,
           error, calibration_s, exchanges);
    cpmd_pipeline_destroy(pl);
    free_array(arrays[0], fold);
    free_array(arrays[1], fold);
    return wrong_result(opt, variant, rank, error);
}

static int run(const void *options_, MPI_Comm comm)
{
    const options *opt = options_;
    int rank, size, wrong = 0;
    group g;

    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    int per_group = size / opt->groups;
    check_mpi(MPI_Comm_split(comm, rank / per_group, rank, &g.comm), "MPI_Comm_split");
    check_mpi(MPI_Comm_rank(g.comm, &g.rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(g.comm, &g.size), "MPI_Comm_size");
    fftw_mpi_init();
#ifdef CPMD_FFT_SMPI
    setup_charging(opt, &g);
#endif
    propagator prop = make_propagator(opt->n);

    if (rank == 0) {
        char version[256];
        mpi_library_version(version, sizeof version);
        printf("# cpmd_fft: %td^3 complex, %d bands per group in batches of %d, %d ranks in "
               "%d group(s), %s; %s\n",
               opt->n, opt->bands, opt->batch, size, opt->groups,
               opt->planner == FFTW_ESTIMATE ? "FFTW_ESTIMATE" : "FFTW_MEASURE", version);
        printf("# us per band-FFT: the steps (forward, multiply, backward) of all groups' bands "
               "over 2 x bands x groups, slowest rank; exchange_us: its share in the transposes "
               "(SMPI only, else -1; the pipelined variants: inside the library's calls, what "
               "was not hidden); pair_bytes: per rank pair and transpose\n");
        printf("# variant ranks groups p n batch bands pair_bytes min_us median_us "
               "exchange_us peak_mib growth_mib arrays_mib error calibration_s "
               "transposes(forward;backward)\n");
        fflush(stdout);
    }
    for (int v = 0; v < opt->variants; v++) {
        const char *variant = opt->variant[v];
        AIP_Algorithm algorithm;
        int overlap;
        if (is_pipelined(variant, &algorithm, &overlap))
            wrong |= run_pipelined(opt, variant, algorithm, overlap, &g, comm, &prop);
        else
            wrong |= run_variant(opt, variant, &g, comm, &prop);
    }

    free(prop.axis);
    fftw_mpi_cleanup();
    check_mpi(MPI_Comm_free(&g.comm), "MPI_Comm_free");
    return wrong;
}

int main(int argc, char **argv)
{
    static const bench_main_ops ops = { "cpmd_fft", parse, print_usage, run };
    options opt;
    return bench_main(argc, argv, &ops, &opt);
}
