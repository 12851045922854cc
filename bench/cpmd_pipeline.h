/*
 * cpmd_pipeline.h - the CPMD workload's band batches pipelined through
 * liballtoall_inplace's nonblocking plans (cpmd_pipeline.c says how).
 */
#ifndef CPMD_PIPELINE_H
#define CPMD_PIPELINE_H

#include <stddef.h>

#include <alltoall_inplace.h>
#include <fftw3-mpi.h>

/* What reciprocal space does to one plane y (local index) of the
 * transposed layout [y][x][z][band]: cpmd_fft's propagator. */
typedef void (*cpmd_reciprocal)(fftw_complex *plane, ptrdiff_t y, void *arg);

typedef struct cpmd_pipeline cpmd_pipeline;

/* Plans the batch's transforms of an n^3 grid of `batch` bands, slabs of
 * n / p planes on the p ranks of comm (n divisible by p), the forward one to
 * the transposed layout, their exchanges by the library's `algorithm`.
 * work: an array of the batch, which FFTW may overwrite while planning.
 * overlap 0 waits for each exchange at once (the same computation, nothing
 * hidden).  pieces: about how many pieces a computation between two
 * exchanges is cut into, each followed by a test of the exchange in flight
 * (0: the exchange's steps, p).  Collective. */
cpmd_pipeline *cpmd_pipeline_create(ptrdiff_t n, int batch, MPI_Comm comm, unsigned planner,
                                    AIP_Algorithm algorithm, int overlap, int pieces,
                                    cpmd_reciprocal reciprocal, void *arg, fftw_complex *work);
/* One step of one batch, without overlap: the forward transform, for the
 * caller to check the spectrum and multiply, and the backward one. */
void cpmd_pipeline_forward(cpmd_pipeline *pl, fftw_complex *data);
void cpmd_pipeline_backward(cpmd_pipeline *pl, fftw_complex *data);
/* `batches` steps (forward, reciprocal, backward), alternately on
 * arrays[0] and arrays[1], each exchange travelling while the other
 * array, or the other half of this one's step, is computed.  batches even. */
void cpmd_pipeline_steps(cpmd_pipeline *pl, fftw_complex *const arrays[2], int batches);
/* Seconds spent inside the library's calls (start, test, wait) since the
 * last call: what of the exchanges was not hidden. */
double cpmd_pipeline_exposed(cpmd_pipeline *pl);
/* "hsa", ...: the library's algorithm for the exchanges. */
const char *cpmd_pipeline_algorithm(const cpmd_pipeline *pl);
void cpmd_pipeline_destroy(cpmd_pipeline *pl);

#ifdef CPMD_FFT_SMPI
/* Under SMPI: the local work is charged instead of done.  Rank 0 of comm
 * times each kind of piece on its array `work`, a whole pass of them from
 * memory as sim_charge times FFTW's sub-plans (charge_measure; or from the
 * file `cache`, so that the variants of a case are charged alike), and
 * every rank is charged its share times `slowdown` per piece.  Collective; returns rank 0's measured
 * time of one batch's step (its forward and backward transforms). */
double cpmd_pipeline_model(cpmd_pipeline *pl, fftw_complex *work, double slowdown,
                           const char *cache);
#endif

#endif /* CPMD_PIPELINE_H */
