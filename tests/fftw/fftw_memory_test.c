/*
 * fftw_memory_test - the memory promise of the patched FFTW, checked as a
 * user meets it: an in-place 3D real forward transform
 * (fftw_mpi_plan_dft_r2c_3d, FFTW_ESTIMATE) on ranks that may take at most
 * MARGIN bytes of private memory beyond what they hold when the transform
 * starts (the local array, the plan, the MPI runtime).
 *
 * The limit is RLIMIT_DATA, set to VmData + MARGIN just before
 * fftw_execute.  Since Linux 4.7 it bounds every private writable mapping,
 * malloc's mmap'ed chunks included, so an allocation beyond it fails, and
 * FFTW aborts ("fftw: kernel/alloc.c:29: assertion failed: p").  Stock
 * FFTW's in-place transpose (mpi/transpose-pairwise.c) mallocs a buffer of
 * one block, local size / p, at every transform; ours needs the library's
 * budget ($AIP_AUX_BYTES, 1 MiB) and FFTW's small local-transpose buffers.
 * A margin below one block therefore separates the two.
 *
 * The input is a sum of plane waves (plane_waves.h), whose transform is
 * known: every output coefficient of every rank is checked against it,
 * without a second array.  (FFTW's own --verify gathers the whole
 * transform onto every rank, which no limit near the local array allows;
 * tests/fftw/fftw_memory.sh runs it on the same transform without a limit.)
 *
 *   fftw_memory_test [-s N0xN1xN2 (256x256x256)] [-m MARGIN_MIB (0: no limit)]
 *
 * The transposes are chosen as in mpi-bench: FFTW_MPI_INPLACE_ALGORITHM
 * (off: stock FFTW; hsa, general, ...: ours).  Rank 0 prints the plan's
 * distributed transposes, the local array, the largest VmData at the start,
 * the largest growth of the peak RSS during the transform, its time and the
 * largest error; the exit status is 0 when every coefficient is right.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <fftw3-mpi.h>

#include "plane_waves.h"
#include "test_util.h"

static int parse_dims(const char *text, ptrdiff_t n[3])
{
    long a, b, c;
    char end;
    if (sscanf(text, "%ldx%ldx%ld%c", &a, &b, &c, &end) != 3 || a < 2 || b < 2 || c < 2)
        return 0;
    n[0] = a, n[1] = b, n[2] = c;
    return 1;
}

static int parse_mib(const char *text, long *mib)
{
    char *end;
    *mib = strtol(text, &end, 10);
    return end != text && !*end && *mib >= 0;
}

int main(int argc, char **argv)
{
    ptrdiff_t n[3] = { 256, 256, 256 };
    long margin_mib = 0;
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-s") && i + 1 < argc && parse_dims(argv[i + 1], n))
            i++;
        else if (!strcmp(argv[i], "-m") && i + 1 < argc && parse_mib(argv[i + 1], &margin_mib))
            i++;
        else {
            if (rank == 0)
                fprintf(stderr, "usage: fftw_memory_test [-s N0xN1xN2] [-m MARGIN_MIB]\n");
            MPI_Finalize();
            return 2;
        }
    }
    fftw_mpi_init();

    /* The padded r2c layout: local_n0 x N1 x 2 (N2/2 + 1) reals in,
     * local_n0 x N1 x (N2/2 + 1) complex out, in place. */
    ptrdiff_t nc = n[2] / 2 + 1, local_n0, x0;
    ptrdiff_t alloc = fftw_mpi_local_size_3d(n[0], n[1], nc, MPI_COMM_WORLD, &local_n0, &x0);
    double *data = fftw_alloc_real(2 * (size_t)alloc);
    if (!data)
        MPI_Abort(MPI_COMM_WORLD, 99);
    fftw_plan plan = fftw_mpi_plan_dft_r2c_3d(n[0], n[1], n[2], data, (fftw_complex *)data,
                                              MPI_COMM_WORLD, FFTW_ESTIMATE);

    plane_waves_fill(data, n, local_n0, x0);

    /* From here on, at most margin_mib of further private memory. */
    MPI_Barrier(MPI_COMM_WORLD);
    long long vm_data = proc_status_bytes("VmData");
    if (margin_mib > 0) {
        struct rlimit limit;
        getrlimit(RLIMIT_DATA, &limit);
        rlim_t wanted = (rlim_t)vm_data + ((rlim_t)margin_mib << 20);
        if (limit.rlim_max == RLIM_INFINITY || wanted < limit.rlim_max)
            limit.rlim_cur = wanted;
        if (setrlimit(RLIMIT_DATA, &limit) != 0) {
            perror("fftw_memory_test: setrlimit(RLIMIT_DATA)");
            MPI_Abort(MPI_COMM_WORLD, 99);
        }
    }
    long long peak_before = proc_status_bytes("VmHWM");
    int reset = proc_reset_peak();
    long long before = proc_status_bytes(reset ? "VmRSS" : "VmHWM");
    MPI_Barrier(MPI_COMM_WORLD);
    double started = MPI_Wtime();
    fftw_execute(plan);
    MPI_Barrier(MPI_COMM_WORLD);
    double seconds = MPI_Wtime() - started;
    long long peak = proc_status_bytes("VmHWM"), growth = peak - before;
    if (peak_before > peak)
        peak = peak_before;

    double error = plane_waves_error(data, n, local_n0, x0);
    double max_error;
    long long max_vm_data, max_growth, max_peak;
    MPI_Reduce(&error, &max_error, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&vm_data, &max_vm_data, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&growth, &max_growth, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&peak, &max_peak, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    int ok = max_error < PLANE_WAVES_TOLERANCE;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char *printed = fftw_sprint_plan(plan), *p = printed;
        printf("fftw_memory_test: ir%tdx%tdx%td on %d ranks, transposes:", n[0], n[1], n[2], size);
        while ((p = strstr(p, "(mpi-transpose-"))) { /* each distributed transpose */
            size_t len = strcspn(p + 1, " ()\n");
            printf(" %.*s", (int)len, p + 1);
            p += 1 + len;
        }
        printf("\n  local array %.1f MiB, limit VmData + %ld MiB%s, VmData %.1f MiB at the start\n",
               2.0 * (double)alloc * sizeof(double) / 1048576, margin_mib,
               margin_mib ? "" : " (none)", max_vm_data / 1048576.0);
        printf("  transform %.3f s, peak RSS %.1f MiB, of which %.1f MiB during the transform%s\n",
               seconds, max_peak / 1048576.0, max_growth / 1048576.0,
               reset ? "" : " (peak not reset: an upper bound)");
        printf("  largest error %.2e: %s\n", max_error, ok ? "verified" : "WRONG");
        free(printed);
    }
    fftw_destroy_plan(plan);
    fftw_free(data);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return ok ? 0 : 1;
}
