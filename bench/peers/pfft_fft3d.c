/*
 * pfft_fft3d.c - times PFFT's forward 3D FFT on an N0 x N1 x N2 problem, for
 * the comparison of bench/peers/ (heffte_fft3d.cpp's counterpart):
 *
 *   mpirun -np P pfft_fft3d [-s N|N0xN1xN2] [-r REPEATS] [-k c2c|r2c]
 *                           [-d pencils|slabs] [-g P0xP1] [-t] [-O]
 *                           [-p estimate|measure|patient|exhaustive]
 *
 *   -s  the size (default 64: 64x64x64), FFTW's order: N2 contiguous
 *   -r  timed forward transforms (default 10)
 *   -k  c2c (default): pfft_plan_dft_3d; r2c: pfft_plan_dft_r2c_3d with
 *       PFFT_PADDED_R2C (N2 padded to 2(N2/2+1) reals, FFTW's in-place layout)
 *   -d  pencils (default): the P0 x P1 grid of MPI_Dims_create, N0/P0 x N1/P1
 *       x N2 per rank; slabs: PFFT's 1D decomposition, N0/P x N1 x N2 (a
 *       P0 x 1 grid is the same)
 *   -g  the process grid P0xP1 itself
 *   -t  PFFT_TRANSPOSED_OUT (forward) / PFFT_TRANSPOSED_IN (backward): the
 *       output stays in the transposed layout, N1/P0 x N2/P1 x N0 (pencils)
 *       or N1/P x N0 x N2 (slabs), saving the last global transpose
 *   -O  out of place (two arrays); default in place, with PFFT_DESTROY_INPUT
 *   -p  the FFTW planner (default measure, PFFT's default)
 *
 * What it does, prints and returns is heffte_fft3d's: a check of one forward
 * transform of a single mode, REPEATS timed forward transforms of a
 * pseudo-random input (barrier before, slowest rank's time), each undone by
 * an untimed backward transform and scaling, the round trip checked at the
 * end; '#' lines, then "min_s median_s vmhwm_kib"; exit status 1 if a check
 * is off by more than 1e-9 relative, 2 on bad usage.  PFFT's own
 * tests/time_c2c and tests/bench_c2c time but do not do this: time_c2c's
 * in-place mode clears the forward result before the backward transform (its
 * error is then the input's size), and bench_c2c checks only with one loop
 * and reports rank 0's time.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <complex.h>
#include <pfft.h>

#include "fft3d_common.h"

#ifndef PFFT_SOURCE_VERSION
#define PFFT_SOURCE_VERSION "(version unknown)"
#endif

typedef struct options {
    long n[3];
    int repeats, r2c, slabs, grid[2], transposed, out_of_place;
    unsigned planner;
    const char *planner_name;
} options;

static void usage(FILE *out)
{
    fprintf(out, "usage: pfft_fft3d [-s N|N0xN1xN2] [-r REPEATS] [-k c2c|r2c]"
                 " [-d pencils|slabs] [-g P0xP1]\n"
                 "                  [-t] [-O] [-p estimate|measure|patient|exhaustive]\n");
}

/* 0 on success, else the exit status (2: bad usage); *stop after -h. */
static int parse(int argc, char **argv, options *o, int *stop)
{
    static const struct { const char *name, *fftw_name; unsigned flag; } planners[] = {
        {"estimate", "FFTW_ESTIMATE", PFFT_ESTIMATE}, {"measure", "FFTW_MEASURE", PFFT_MEASURE},
        {"patient", "FFTW_PATIENT", PFFT_PATIENT},
        {"exhaustive", "FFTW_EXHAUSTIVE", PFFT_EXHAUSTIVE}};
    int c, found;
    char *end;

    *stop = 0;
    while ((c = getopt(argc, argv, "s:r:k:d:g:tOp:h")) != -1) {
        switch (c) {
        case 's': if (!fft3d_parse_dims(optarg, o->n)) return 2; break;
        case 'r': o->repeats = atoi(optarg); if (o->repeats < 1) return 2; break;
        case 'k':
            if (strcmp(optarg, "c2c") && strcmp(optarg, "r2c")) return 2;
            o->r2c = !strcmp(optarg, "r2c");
            break;
        case 'd':
            if (strcmp(optarg, "slabs") && strcmp(optarg, "pencils")) return 2;
            o->slabs = !strcmp(optarg, "slabs");
            break;
        case 'g':
            o->grid[0] = (int)strtol(optarg, &end, 10);
            if (*end != 'x') return 2;
            o->grid[1] = (int)strtol(end + 1, &end, 10);
            if (*end || o->grid[0] < 1 || o->grid[1] < 1) return 2;
            break;
        case 't': o->transposed = 1; break;
        case 'O': o->out_of_place = 1; break;
        case 'p':
            found = 0;
            for (size_t i = 0; i < sizeof planners / sizeof planners[0]; i++)
                if (!strcmp(optarg, planners[i].name)) {
                    o->planner = planners[i].flag;
                    o->planner_name = planners[i].fftw_name;
                    found = 1;
                }
            if (!found) return 2;
            break;
        case 'h': *stop = 1; return 0;
        default: return 2;
        }
    }
    return optind == argc ? 0 : 2;
}

/* The order of the local output array's dimensions, slowest first: FFTW's
 * (0, 1, 2), or PFFT's transposed layout (tutorial, "Non-transposed and
 * transposed data layout"): (1, 2, 0) on a 2D grid, (1, 0, 2) on a 1D one. */
static void output_order(int transposed, int grid_rank, int order[3])
{
    static const int plain[3] = {0, 1, 2}, on_2d[3] = {1, 2, 0}, on_1d[3] = {1, 0, 2};
    memcpy(order, !transposed ? plain : grid_rank == 2 ? on_2d : on_1d, sizeof plain);
}

/* The shared object that holds FFTW's MPI part: the project's patched FFTW
 * or Debian's. */
static const char *fftw_mpi_library(void)
{
    Dl_info info;
    return dladdr((void *)fftw_mpi_init, &info) && info.dli_fname ? info.dli_fname : "?";
}

static int benchmark(const options *o, MPI_Comm world)
{
    int me, nprocs, grid[2], grid_rank;
    MPI_Comm cart;
    MPI_Comm_rank(world, &me);
    MPI_Comm_size(world, &nprocs);

    if (o->grid[0]) {
        grid[0] = o->grid[0];
        grid[1] = o->grid[1];
    } else if (o->slabs) {
        grid[0] = nprocs;
        grid[1] = 1;
    } else {
        grid[0] = grid[1] = 0;
        MPI_Dims_create(nprocs, 2, grid);
    }
    grid_rank = grid[1] == 1 ? 1 : 2;
    if (pfft_create_procmesh(grid_rank, world, grid, &cart)) {
        if (me == 0)
            fprintf(stderr, "pfft_fft3d: the grid %dx%d does not fit %d ranks\n", grid[0],
                    grid[1], nprocs);
        return 2;
    }

    const long *n = o->n;
    ptrdiff_t nn[3] = {n[0], n[1], n[2]}, ni[3], is[3], no[3], os[3], alloc_local;
    unsigned layout_out = o->transposed ? PFFT_TRANSPOSED_OUT : PFFT_TRANSPOSED_NONE;
    unsigned layout_in = o->transposed ? PFFT_TRANSPOSED_IN : PFFT_TRANSPOSED_NONE;
    unsigned flags = o->planner | (o->out_of_place ? 0 : PFFT_DESTROY_INPUT) |
                     (o->r2c ? PFFT_PADDED_R2C : 0);
    double *real_in = NULL;
    pfft_complex *in = NULL, *out;
    pfft_plan forward, backward;

    /* r2c: ni[2] is the padded 2(N2/2+1), of which N2 are the input */
    if (o->r2c) {
        alloc_local = pfft_local_size_dft_r2c_3d(nn, cart, layout_out | PFFT_PADDED_R2C, ni, is,
                                                 no, os);
        real_in = pfft_alloc_real(2 * alloc_local);
        out = o->out_of_place ? pfft_alloc_complex(alloc_local) : (pfft_complex *)real_in;
        forward = pfft_plan_dft_r2c_3d(nn, real_in, out, cart, PFFT_FORWARD, layout_out | flags);
        backward = pfft_plan_dft_c2r_3d(nn, out, real_in, cart, PFFT_BACKWARD, layout_in | flags);
    } else {
        alloc_local = pfft_local_size_dft_3d(nn, cart, layout_out, ni, is, no, os);
        in = pfft_alloc_complex(alloc_local);
        out = o->out_of_place ? pfft_alloc_complex(alloc_local) : in;
        forward = pfft_plan_dft_3d(nn, in, out, cart, PFFT_FORWARD, layout_out | flags);
        backward = pfft_plan_dft_3d(nn, out, in, cart, PFFT_BACKWARD, layout_in | flags);
    }
    if (!forward || !backward) {
        fprintf(stderr, "pfft_fft3d: rank %d: PFFT made no plan\n", me);
        MPI_Abort(world, 3);
    }

    const double total = (double)n[0] * n[1] * n[2];
    const long input_n2 = o->r2c ? n[2] : (long)ni[2]; /* r2c: the rest is padding */
    int order[3];
    output_order(o->transposed, grid_rank, order);

    /* the single mode: exp(2 pi i k.x/N), or its real part for r2c */
    for (long a = 0, at = 0; a < ni[0]; a++)
        for (long b = 0; b < ni[1]; b++)
            for (long c = 0; c < ni[2]; c++, at++) {
                double re = 0, im = 0; /* 0 in r2c's padding */
                if (c < input_n2)
                    fft3d_mode_value(n, is[0] + a, is[1] + b, is[2] + c, &re, &im);
                if (o->r2c)
                    real_in[at] = re;
                else
                    in[at] = re + I * im;
            }
    pfft_execute(forward);
    double mode_error = 0;
    long k[3], at = 0; /* k: the frequency at out[at] */
    for (k[order[0]] = os[order[0]]; k[order[0]] < os[order[0]] + no[order[0]]; k[order[0]]++)
        for (k[order[1]] = os[order[1]]; k[order[1]] < os[order[1]] + no[order[1]]; k[order[1]]++)
            for (k[order[2]] = os[order[2]]; k[order[2]] < os[order[2]] + no[order[2]];
                 k[order[2]]++, at++) {
                double error = cabs(out[at] - fft3d_mode_expected(n, o->r2c, k[0], k[1], k[2]));
                if (error > mode_error)
                    mode_error = error;
            }
    mode_error = fft3d_max(mode_error, world) / total;

    /* timed forward transforms, each undone by an untimed backward one */
#define FOR_EACH_INPUT(body)                                                                   \
    for (long a = 0; a < ni[0]; a++)                                                           \
        for (long b = 0; b < ni[1]; b++)                                                       \
            for (long c = 0; c < input_n2; c++) {                                              \
                long l = (a * ni[1] + b) * ni[2] + c;                                          \
                uint64_t g = (uint64_t)(((is[0] + a) * n[1] + is[1] + b) * n[2] + is[2] + c);  \
                (void)g;                                                                       \
                body;                                                                          \
            }
    if (o->r2c)
        FOR_EACH_INPUT(real_in[l] = fft3d_input(g, 0))
    else
        FOR_EACH_INPUT(in[l] = fft3d_input(g, 0) + I * fft3d_input(g, 1))
    double *times = malloc(sizeof(double) * (size_t)o->repeats);
    for (int r = 0; r < o->repeats; r++) {
        MPI_Barrier(world);
        double start = MPI_Wtime();
        pfft_execute(forward);
        times[r] = MPI_Wtime() - start;
        pfft_execute(backward);
        if (o->r2c)
            FOR_EACH_INPUT(real_in[l] /= total)
        else
            FOR_EACH_INPUT(in[l] /= total)
    }
    double round_trip_error = 0; /* the input's largest value is ~1 */
    if (o->r2c)
        FOR_EACH_INPUT(double e = fabs(real_in[l] - fft3d_input(g, 0));
                       if (e > round_trip_error) round_trip_error = e)
    else
        FOR_EACH_INPUT(double e = cabs(in[l] - (fft3d_input(g, 0) + I * fft3d_input(g, 1)));
                       if (e > round_trip_error) round_trip_error = e)
#undef FOR_EACH_INPUT
    round_trip_error = fft3d_max(round_trip_error, world);

    double min_s, median_s, data_kib;
    fft3d_summarise(times, o->repeats, world, &min_s, &median_s);
    data_kib = (double)alloc_local * sizeof(pfft_complex) * (o->out_of_place ? 2 : 1) / 1024;
    data_kib = fft3d_max(data_kib, world);
    long long peak_kib = fft3d_peak_kib(world);
    int ok = mode_error <= FFT3D_TOLERANCE && round_trip_error <= FFT3D_TOLERANCE;
    if (me == 0) {
        printf("# pfft_fft3d: PFFT %s over %s (%s); %s %s; %ldx%ldx%ld on %d ranks\n",
               PFFT_SOURCE_VERSION, fftw_mpi_library(), fftw_version, o->r2c ? "r2c" : "c2c",
               o->out_of_place ? "out of place" : "in place", n[0], n[1], n[2], nprocs);
        printf("# %s: grid %dx%d; output %s; %s; %d repeats\n",
               grid_rank == 1 ? "slabs" : "pencils", grid[0], grid[1],
               !o->transposed ? "not transposed"
               : grid_rank == 2 ? "transposed (N1/P0 x N2/P1 x N0)"
                                : "transposed (N1/P x N0 x N2)",
               o->planner_name, o->repeats);
        printf("# local arrays of the largest rank: data %.0f KiB (PFFT's alloc_local)\n",
               data_kib);
        printf("# checks: single mode %.1e, round trip %.1e (relative; tolerance %.0e)%s\n",
               mode_error, round_trip_error, FFT3D_TOLERANCE, ok ? "" : ": FAILED");
        printf("# min_s median_s vmhwm_kib\n%.6e %.6e %lld\n", min_s, median_s, peak_kib);
        if (!ok)
            fprintf(stderr, "pfft_fft3d: wrong result (single mode %.1e, round trip %.1e)\n",
                    mode_error, round_trip_error);
    }
    free(times);
    pfft_destroy_plan(forward);
    pfft_destroy_plan(backward);
    if (o->out_of_place)
        pfft_free(out);
    pfft_free(o->r2c ? (void *)real_in : (void *)in);
    MPI_Comm_free(&cart);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    options o = {{64, 64, 64}, 10, 0, 0, {0, 0}, 0, 0, PFFT_MEASURE, "FFTW_MEASURE"};
    int me, stop, status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    opterr = me == 0; /* one complaint, not one per rank */
    status = parse(argc, argv, &o, &stop);
    if (status || stop) {
        if (me == 0)
            usage(status ? stderr : stdout);
    } else {
        pfft_init();
        status = benchmark(&o, MPI_COMM_WORLD);
        pfft_cleanup();
    }
    MPI_Finalize();
    return status;
}
