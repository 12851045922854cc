/*
 * fft3d_common.h - what the peers' drivers (heffte_fft3d.cpp, pfft_fft3d.c)
 * share, so that they read their options, make their input, check their
 * result and report their times and memory alike.  C and C++; header only,
 * plus common/proc_memory.c for the peak memory.
 *
 * Indices are FFTW's: an N0 x N1 x N2 array, i2 the contiguous one; the
 * global index g = (i0 * N1 + i1) * N2 + i2 picks the input value.
 */
#ifndef FFT3D_COMMON_H
#define FFT3D_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif
#include "../../common/proc_memory.h"
#ifdef __cplusplus
}
#endif

/* Relative error beyond which a result is wrong (double precision); -D
 * FFT3D_TOLERANCE=1e-20 makes every check fail, to test the failure path. */
#ifndef FFT3D_TOLERANCE
#define FFT3D_TOLERANCE 1e-9
#endif

#define FFT3D_TWO_PI 6.283185307179586476925286766559

/* The single mode of the check: (1, 2, 3), reduced modulo the sizes. */
static const long fft3d_mode[3] = {1, 2, 3};

/* "N" or "N0xN1xN2" -> n[3]; 0 if `text` is neither. */
static inline int fft3d_parse_dims(const char *text, long n[3])
{
    char *end;
    for (int d = 0; d < 3; d++) {
        n[d] = strtol(text, &end, 10);
        if (end == text || n[d] < 1)
            return 0;
        if (*end == '\0' && d == 0) {
            n[1] = n[2] = n[0];
            return 1;
        }
        if (*end != (d < 2 ? 'x' : '\0'))
            return 0;
        text = end + 1;
    }
    return 1;
}

/* The input's value at global index g, part 0 (real) or 1 (imaginary):
 * splitmix64 of the index, in [-1, 1).  A function of the index, so that
 * the check recomputes it instead of holding a copy (the copy would count
 * in the peak memory). */
static inline double fft3d_input(uint64_t g, int part)
{
    uint64_t z = 2 * g + (uint64_t)part + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 4503599627370496.0 - 1.0; /* 2^52 */
}

/* exp(2 pi i k.x / N) for the mode k at (i0, i1, i2): re and im. */
static inline void fft3d_mode_value(const long n[3], long i0, long i1, long i2, double *re,
                                    double *im)
{
    /* the phase in turns, reduced exactly before the trigonometry */
    double turns = (double)((fft3d_mode[0] % n[0]) * i0 % n[0]) / (double)n[0] +
                   (double)((fft3d_mode[1] % n[1]) * i1 % n[1]) / (double)n[1] +
                   (double)((fft3d_mode[2] % n[2]) * i2 % n[2]) / (double)n[2];
    *re = cos(FFT3D_TWO_PI * turns);
    *im = sin(FFT3D_TWO_PI * turns);
}

/* What the unnormalised forward transform (FFTW's sign, e^-) of the mode
 * gives at frequency (k0, k1, k2): N0 N1 N2 at the mode, 0 elsewhere.  For
 * the real input cos(...) (r2c), N0 N1 N2 / 2 at the mode and at its
 * mirror -mode. */
static inline double fft3d_mode_expected(const long n[3], int real_input, long k0, long k1,
                                         long k2)
{
    double total = (double)n[0] * (double)n[1] * (double)n[2];
    long m0 = fft3d_mode[0] % n[0], m1 = fft3d_mode[1] % n[1], m2 = fft3d_mode[2] % n[2];
    int at_mode = k0 == m0 && k1 == m1 && k2 == m2;
    if (!real_input)
        return at_mode ? total : 0.0;
    int at_mirror = k0 == (n[0] - m0) % n[0] && k1 == (n[1] - m1) % n[1] &&
                    k2 == (n[2] - m2) % n[2];
    return total / 2 * (at_mode + at_mirror);
}

/* The time of a repetition is the slowest rank's; min and median over the
 * repetitions (collective; `times` is reduced in place and sorted). */
static inline int fft3d_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static inline void fft3d_summarise(double *times, int reps, MPI_Comm comm, double *min_s,
                                   double *median_s)
{
    MPI_Allreduce(MPI_IN_PLACE, times, reps, MPI_DOUBLE, MPI_MAX, comm);
    qsort(times, (size_t)reps, sizeof *times, fft3d_compare_doubles);
    *min_s = times[0];
    *median_s = reps % 2 ? times[reps / 2] : (times[reps / 2 - 1] + times[reps / 2]) / 2;
}

/* The largest peak resident memory (VmHWM) of the ranks in KiB; -1 if
 * unknown (collective). */
static inline long long fft3d_peak_kib(MPI_Comm comm)
{
    long long bytes = proc_status_bytes("VmHWM"), max_bytes;
    MPI_Allreduce(&bytes, &max_bytes, 1, MPI_LONG_LONG, MPI_MAX, comm);
    return max_bytes < 0 ? -1 : max_bytes / 1024;
}

/* The largest value of x over the ranks (collective). */
static inline double fft3d_max(double x, MPI_Comm comm)
{
    double max_x;
    MPI_Allreduce(&x, &max_x, 1, MPI_DOUBLE, MPI_MAX, comm);
    return max_x;
}

#endif /* FFT3D_COMMON_H */
