/*
 * fftw_sim - one 3D real forward transform of the patched FFTW on simulated
 * ranks (SimGrid SMPI), timed as mpi-bench times ir/dor problems: the real
 * FFTW plan, with the real MPI transposes (stock pairwise or alltoall, or
 * ours through liballtoall_inplace), and the local work charged as
 * sim_charge.h describes.
 *
 *   smpirun ... fftw_sim -s N0xN1xN2 [--oop] [--transposed] [--model | --model-here]
 *                        [--fold] [--calibration FILE] [--sample K] [--label NAME]
 *                        [--print-plan]
 *
 *   -s            the transform (N0 and N1 need not divide by the ranks)
 *   --oop         out of place, destroying the input (mpi-bench's dor);
 *                 default in place (ir)
 *   --transposed  FFTW_MPI_TRANSPOSED_OUT (mpi-bench's ir]): one exchange,
 *                 the output N1 x N0 x (N2/2+1) distributed along N1;
 *                 under a model only (the check reads the output untransposed)
 *   --model       charge the local work: the measured time of each
 *                 sub-plan (rank 0's, or its kind's first rank's), scaled to the simulated core by the ratio of this
 *                 machine's copy bandwidth to the core's (the host property
 *                 core_copy_bandwidth of platforms.cpp: the large local FFTs
 *                 and transposes are bound by memory bandwidth), and copies
 *                 at the core's bandwidth
 *   --model-here  the same at this machine's speed (to compare with the
 *                 default, which runs everything and lets SMPI measure; then
 *                 the input is plane waves and the output is checked)
 *   --fold        the ranks other than 0 fold their arrays (SMPI_SHARED_MALLOC):
 *                 512 MiB x 1024 ranks fit on one machine (needs a model)
 *   --calibration FILE  rank 0's measurements (copy bandwidth, each
 *                 sub-plan's time) are read from FILE where it has them and
 *                 added to it where not, on its scale (put_on_file_scale):
 *                 the runs of a sweep share them
 *   --sample K    sampled simulation: each exchange runs its first and last
 *                 K steps and one in each K between them, whose time is
 *                 scaled to all of theirs (sim_charge.h;
 *                 needs the sampling build of fftw_smpi.sh, and a model)
 *   --label NAME  the variant's name in the output
 *   --print-plan  rank 0 prints the plan to stderr (as mpi-bench -v2)
 *
 * The transposes are chosen by FFTW_MPI_INPLACE_ALGORITHM (off: stock FFTW),
 * the plan with FFTW_ESTIMATE.  Rank 0 prints one line: the label, ranks,
 * N0, the slowest rank's simulated seconds (total, exchange, local FFTs,
 * local transposes, copies within them), rank 0's real seconds of
 * calibration, the slowdown (simulated core's time per second here), the
 * largest error (-1: not checked, under a model) and the plan's transposes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3-mpi.h>
#include <simgrid/host.h>

#include "plane_waves.h"
#include "sim_charge.h"

typedef struct options {
    ptrdiff_t n[3];
    int out_of_place, transposed, fold, sample, print_plan;
    enum { RUN, MODEL, MODEL_HERE } model;
    const char *label, *calibration;
} options;

static int parse(int argc, char **argv, options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->label = "fftw";
    opt->sample = 1;
    for (int i = 1; i < argc; i++) {
        const char *value = i + 1 < argc ? argv[i + 1] : 0;
        long a, b, c;
        char end;
        if (!strcmp(argv[i], "-s") && value &&
            sscanf(value, "%ldx%ldx%ld%c", &a, &b, &c, &end) == 3 && a > 1 && b > 1 && c > 1)
            opt->n[0] = a, opt->n[1] = b, opt->n[2] = c, i++;
        else if (!strcmp(argv[i], "--oop"))
            opt->out_of_place = 1;
        else if (!strcmp(argv[i], "--transposed"))
            opt->transposed = 1;
        else if (!strcmp(argv[i], "--fold"))
            opt->fold = 1;
        else if (!strcmp(argv[i], "--model"))
            opt->model = MODEL;
        else if (!strcmp(argv[i], "--model-here"))
            opt->model = MODEL_HERE;
        else if (!strcmp(argv[i], "--calibration") && value)
            opt->calibration = argv[++i];
        else if (!strcmp(argv[i], "--sample") && value && atoi(value) > 0)
            opt->sample = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--print-plan"))
            opt->print_plan = 1;
        else if (!strcmp(argv[i], "--label") && value)
            opt->label = argv[++i];
        else
            return 0;
    }
    return opt->n[0] > 0 && (!opt->fold || opt->model != RUN) &&
           (opt->sample == 1 || opt->model != RUN);
}

/* An array of `bytes`: folded (every folded rank's maps the same pages) or
 * real and zeroed. */
static double *array(size_t bytes, int fold)
{
    double *a = fold ? SMPI_SHARED_MALLOC(bytes) : fftw_malloc(bytes);
    if (!a) {
        fprintf(stderr, "fftw_sim: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (!fold)
        memset(a, 0, bytes);
    return a;
}

/* The distributed transposes of the printed plan, e.g. "pairwise,pairwise". */
static void plan_transposes(fftw_plan plan, char *text, size_t size)
{
    char *printed = fftw_sprint_plan(plan), *p = printed;
    text[0] = 0;
    while ((p = strstr(p, "(mpi-transpose-")) && strlen(text) + 40 < size) {
        size_t len = strcspn(p + 15, " ()\n");
        snprintf(text + strlen(text), size - strlen(text), "%s%.*s", text[0] ? "," : "",
                 (int)len, p + 15);
        p += 15 + len;
    }
    free(printed);
}

/* FFTW's own local FFTs of the in-place transform, as its rdft2-rank-geq2
 * and dft-rank1-bigvec solvers plan them for every variant but the
 * pipelined ones: the 2D r2c transforms of rank 0's planes, and the DFTs
 * along N0 of its share of the transposed columns.  They put new sub-plans
 * on the calibration file's scale (charge_file_scale). */
static void put_on_file_scale(const ptrdiff_t *n, ptrdiff_t local_n0, double *in,
                              const char *calibration)
{
    ptrdiff_t nc = n[2] / 2 + 1, local_n1, x1, local_n0_t, x0_t;
    fftw_mpi_local_size_3d_transposed(n[0], n[1], nc, MPI_COMM_WORLD, &local_n0_t, &x0_t,
                                      &local_n1, &x1);
    fftw_complex *out = (fftw_complex *)in;
    int planes[2] = { (int)n[1], (int)n[2] }, lines[1] = { (int)n[0] };
    int real_embed[2] = { (int)n[1], 2 * (int)nc }, complex_embed[2] = { (int)n[1], (int)nc };
    int columns = (int)(local_n1 * nc);
    fftw_plan references[2] = {
        fftw_plan_many_dft_r2c(2, planes, (int)local_n0, in, real_embed, 1,
                               (int)(n[1] * 2 * nc), out, complex_embed, 1,
                               (int)(n[1] * nc), FFTW_ESTIMATE),
        fftw_plan_many_dft(1, lines, columns, out, 0, columns, 1, out, 0, columns, 1,
                           FFTW_FORWARD, FFTW_ESTIMATE),
    };
    if (references[0] && references[1])
        charge_file_scale(calibration, references, 2);
    for (int i = 0; i < 2; i++)
        if (references[i])
            fftw_destroy_plan(references[i]);
}

int main(int argc, char **argv)
{
    options opt;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!parse(argc, argv, &opt)) {
        if (rank == 0)
            fprintf(stderr, "usage: fftw_sim -s N0xN1xN2 [--oop] [--transposed] "
                            "[--model | --model-here] "
                            "[--fold] [--calibration FILE] [--sample K] [--label NAME] "
                            "[--print-plan]\n");
        MPI_Finalize();
        return 2;
    }
    if (opt.transposed && opt.model == RUN) {
        if (rank == 0)
            fprintf(stderr, "fftw_sim: --transposed needs --model or --model-here\n");
        MPI_Finalize();
        return 2;
    }
    fftw_mpi_init();

    /* The simulated core against this machine's (one core copying). */
    double here = 0, core = 0;
    if (rank == 0)
        here = charge_here_copy_bandwidth(opt.calibration);
    MPI_Bcast(&here, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    const char *property = sg_host_get_property_value(sg_host_self(), "core_copy_bandwidth");
    if (opt.model == MODEL && !(property && (core = atof(property)) > 0)) {
        if (rank == 0)
            fprintf(stderr, "fftw_sim: --model needs a platform of platforms.cpp "
                            "(its hosts' core_copy_bandwidth)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (opt.model != MODEL)
        core = here;
    int fold = opt.fold && rank != 0; /* rank 0's arrays are real: it calibrates */
    charge_install(opt.model != RUN ? CHARGE_MODEL : CHARGE_RUN, core, fold);
    charge_sample(opt.sample);

    ptrdiff_t *n = opt.n, nc = n[2] / 2 + 1, local_n0, x0, local_n1, y0;
    ptrdiff_t alloc = opt.transposed
        ? fftw_mpi_local_size_3d_transposed(n[0], n[1], nc, MPI_COMM_WORLD, &local_n0, &x0,
                                            &local_n1, &y0)
        : fftw_mpi_local_size_3d(n[0], n[1], nc, MPI_COMM_WORLD, &local_n0, &x0);
    size_t bytes = 2 * (size_t)alloc * sizeof(double);
    double *in = array(bytes, fold);
    double *out = opt.out_of_place ? array(bytes, fold) : in;
    charge_array(in, bytes / sizeof(double));
    fftw_plan plan = fftw_mpi_plan_dft_r2c_3d(
        n[0], n[1], n[2], in, (fftw_complex *)out, MPI_COMM_WORLD,
        FFTW_ESTIMATE | (opt.out_of_place ? FFTW_DESTROY_INPUT : 0)
            | (opt.transposed ? FFTW_MPI_TRANSPOSED_OUT : 0));
    if (!plan) {
        fprintf(stderr, "fftw_sim: FFTW made no plan\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    if (opt.print_plan && rank == 0) {
        fftw_fprint_plan(plan, stderr);
        fputc('\n', stderr);
    }

    double calibration = 0;
    if (opt.model != RUN) {
        if (rank == 0)
            put_on_file_scale(n, local_n0, in, opt.calibration);
        calibration = charge_calibrate(MPI_COMM_WORLD, here / core, opt.calibration);
    } else {
        plane_waves_fill(in, n, local_n0, x0); /* r2c reads N2 of each padded row */
    }

    double parts[CHARGE_CATEGORIES];
    MPI_Barrier(MPI_COMM_WORLD);
    double started = MPI_Wtime();
    charge_begin();
    fftw_execute(plan);
    charge_end(parts);
    double total = MPI_Wtime() - started + charge_left_out();

    double error = opt.model != RUN ? 0 : plane_waves_error(out, n, local_n0, x0);
    double slowest[CHARGE_CATEGORIES + 2];
    memcpy(slowest, parts, sizeof parts);
    slowest[CHARGE_CATEGORIES] = total;
    slowest[CHARGE_CATEGORIES + 1] = error;
    MPI_Allreduce(MPI_IN_PLACE, slowest, CHARGE_CATEGORIES + 2, MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    if (rank == 0) {
        char transposes[256];
        plan_transposes(plan, transposes, sizeof transposes);
        printf("%-6s %5d %5td %10.6f %10.6f %10.6f %10.6f %10.6f %8.3f %6.3f %9.2e %s\n",
               opt.label, size, n[0], slowest[CHARGE_CATEGORIES], slowest[CHARGE_EXCHANGE],
               slowest[CHARGE_LOCAL_FFT], slowest[CHARGE_LOCAL_TRANSPOSE],
               slowest[CHARGE_COPIES], calibration, here / core,
               opt.model != RUN ? -1.0 : slowest[CHARGE_CATEGORIES + 1],
               transposes[0] ? transposes : "none");
    }
    int ok = opt.model != RUN || slowest[CHARGE_CATEGORIES + 1] < PLANE_WAVES_TOLERANCE;
    fftw_destroy_plan(plan);
    MPI_Finalize();
    return ok ? 0 : 1;
}
