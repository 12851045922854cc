/*
 * plane_waves.h - an input of a 3D real-to-complex transform whose every
 * output coefficient is known, so that a distributed transform can be
 * checked on each rank without a second array.
 *
 * The input is a sum of plane waves A cos(2 pi (a x/N0 + b y/N1 + c z/N2)
 * + phi); its forward transform is N A/2 e^{+i phi} at (a, b, c),
 * N A/2 e^{-i phi} at (-a, -b, -c) (modulo the sizes), and zero elsewhere
 * (N = N0 N1 N2).  The arrays are FFTW's padded in-place r2c layout of one
 * rank's rows x0 .. x0 + local_n0 - 1: local_n0 x N1 x 2 (N2/2 + 1) reals
 * in, local_n0 x N1 x (N2/2 + 1) complex numbers out.
 */
#ifndef AIP_PLANE_WAVES_H
#define AIP_PLANE_WAVES_H

#include <stddef.h>

/* Fills the rank's rows of the input (the padding with zeros). */
void plane_waves_fill(double *data, const ptrdiff_t n[3], ptrdiff_t local_n0, ptrdiff_t x0);

/* The largest error of the rank's output coefficients, relative to the
 * largest coefficient a sum of these waves can have. */
double plane_waves_error(const double *data, const ptrdiff_t n[3], ptrdiff_t local_n0,
                         ptrdiff_t x0);

/* Errors below this are rounding (about 1e-16 here); a misplaced block of
 * rows or columns gives errors of order 1. */
#define PLANE_WAVES_TOLERANCE 1e-12

#endif /* AIP_PLANE_WAVES_H */
