/*
 * fftw_dropin - a user's program of stock FFTW-MPI, for tests/fftw/fftw_dropin.sh:
 * it uses only the public API of fftw3-mpi.h (no FFTW_MPI_INPLACE_ALLTOALL),
 * so that it compiles against Debian's libfftw3-mpi-dev and runs unchanged
 * on Debian's libfftw3_mpi.so.3 or, through LD_LIBRARY_PATH, on the patched
 * one, which has the same SONAME and ABI.
 *
 * It makes an in-place 3D real-to-complex transform of N0xN1xN2 (default
 * 16x12x10) over the ranks, FFTW_ESTIMATE, forward and back.  The input is
 * a fixed pseudo-random function of the global index, the same whatever the
 * library and the rank count.  Rank 0 prints:
 *
 *   library PATH                     the file libfftw3_mpi was loaded from
 *                                    (dladdr of fftw_mpi_init)
 *   forward plan: / backward plan:   the plans (fftw_sprint_plan), which
 *                                    name the transposes the library chose
 *   coef I J K RE IM                 every forward coefficient, gathered,
 *                                    %.17g: the same text exactly when the
 *                                    same doubles, so runs compare with cmp
 *   roundtrip error E                the largest |backward(forward(x))/N - x|
 *
 * The exit status is 0 when the round trip gives the input back (error
 * below 1e-12), so a run checks itself; the comparison of the coefficients
 * between libraries is the script's.
 *
 *   fftw_dropin [-s N0xN1xN2]
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3-mpi.h>

#define ROUNDTRIP_TOLERANCE 1e-12

/* A value in [-1, 1) that depends only on the global index (splitmix64). */
static double input_value(ptrdiff_t i, ptrdiff_t j, ptrdiff_t k)
{
    uint64_t z = ((uint64_t)i * 1000003u + (uint64_t)j) * 1000033u + (uint64_t)k;
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    return (double)(z >> 11) / (double)(1ull << 52) - 1.0;
}

static int parse_dims(const char *text, ptrdiff_t n[3])
{
    long a, b, c;
    char end;
    if (sscanf(text, "%ldx%ldx%ld%c", &a, &b, &c, &end) != 3 || a < 2 || b < 2 || c < 2)
        return 0;
    n[0] = a, n[1] = b, n[2] = c;
    return 1;
}

/* Rank 0 prints every rank's coefficients, in the order of the rows. */
static void print_coefficients(const double *data, const ptrdiff_t n[3], ptrdiff_t local_n0,
                               int rank, int size)
{
    ptrdiff_t nc = n[2] / 2 + 1;
    int mine = (int)(local_n0 * n[1] * nc * 2), *counts = NULL, *offsets = NULL;
    double *all = NULL;
    if (rank == 0) {
        counts = malloc(size * sizeof *counts);
        offsets = malloc(size * sizeof *offsets);
        all = malloc((size_t)(n[0] * n[1] * nc * 2) * sizeof *all);
        if (!counts || !offsets || !all)
            MPI_Abort(MPI_COMM_WORLD, 99);
    }
    MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0)
        for (int r = 0, offset = 0; r < size; offset += counts[r], r++)
            offsets[r] = offset;
    MPI_Gatherv(data, mine, MPI_DOUBLE, all, counts, offsets, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (ptrdiff_t i = 0; i < n[0]; i++)
            for (ptrdiff_t j = 0; j < n[1]; j++)
                for (ptrdiff_t k = 0; k < nc; k++) {
                    const double *c = all + 2 * ((i * n[1] + j) * nc + k);
                    printf("coef %td %td %td %.17g %.17g\n", i, j, k, c[0], c[1]);
                }
        free(all);
        free(offsets);
        free(counts);
    }
}

/* The file the dynamic loader took libfftw3_mpi from. */
static void print_library(void)
{
    Dl_info info;
    if (dladdr((void *)fftw_mpi_init, &info) && info.dli_fname)
        printf("library %s\n", info.dli_fname);
    else
        printf("library unknown\n");
}

static void print_plan(const char *what, fftw_plan plan)
{
    char *text = fftw_sprint_plan(plan);
    printf("%s plan:\n%s\n", what, text ? text : "(none)");
    free(text);
}

int main(int argc, char **argv)
{
    ptrdiff_t n[3] = { 16, 12, 10 };
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!(argc == 1 || (argc == 3 && !strcmp(argv[1], "-s") && parse_dims(argv[2], n)))) {
        if (rank == 0)
            fprintf(stderr, "usage: fftw_dropin [-s N0xN1xN2]\n");
        MPI_Finalize();
        return 2;
    }
    fftw_mpi_init();

    /* FFTW's padded in-place r2c layout: local_n0 x N1 x 2 (N2/2 + 1) reals
     * in, local_n0 x N1 x (N2/2 + 1) complex numbers out. */
    ptrdiff_t nc = n[2] / 2 + 1, padded = 2 * nc, local_n0, x0;
    ptrdiff_t alloc = fftw_mpi_local_size_3d(n[0], n[1], nc, MPI_COMM_WORLD, &local_n0, &x0);
    double *data = fftw_alloc_real(2 * (size_t)alloc);
    if (!data)
        MPI_Abort(MPI_COMM_WORLD, 99);
    fftw_plan forward = fftw_mpi_plan_dft_r2c_3d(n[0], n[1], n[2], data, (fftw_complex *)data,
                                                 MPI_COMM_WORLD, FFTW_ESTIMATE);
    fftw_plan backward = fftw_mpi_plan_dft_c2r_3d(n[0], n[1], n[2], (fftw_complex *)data, data,
                                                  MPI_COMM_WORLD, FFTW_ESTIMATE);
    if (!forward || !backward) {
        fprintf(stderr, "fftw_dropin: rank %d: no plan\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        printf("fftw_dropin: ir%tdx%tdx%td on %d ranks\n", n[0], n[1], n[2], size);
        print_library();
        print_plan("forward", forward);
        print_plan("backward", backward);
    }

    for (ptrdiff_t i = 0; i < local_n0; i++)
        for (ptrdiff_t j = 0; j < n[1]; j++)
            for (ptrdiff_t k = 0; k < padded; k++)
                data[(i * n[1] + j) * padded + k] = k < n[2] ? input_value(x0 + i, j, k) : 0;
    fftw_execute(forward);
    print_coefficients(data, n, local_n0, rank, size);

    fftw_execute(backward);
    double scale = 1.0 / (double)(n[0] * n[1] * n[2]), error = 0, max_error;
    for (ptrdiff_t i = 0; i < local_n0; i++)
        for (ptrdiff_t j = 0; j < n[1]; j++)
            for (ptrdiff_t k = 0; k < n[2]; k++) {
                double d = data[(i * n[1] + j) * padded + k] * scale - input_value(x0 + i, j, k);
                if (d < 0)
                    d = -d;
                if (d > error)
                    error = d;
            }
    MPI_Allreduce(&error, &max_error, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("roundtrip error %.2e\n", max_error);

    fftw_destroy_plan(backward);
    fftw_destroy_plan(forward);
    fftw_free(data);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return max_error < ROUNDTRIP_TOLERANCE ? 0 : 1;
}
