/*
 * rank-geq2-pipelined.h - the pipeline shared by the pipelined in-place
 * transforms of rank >= 2 (dft-rank-geq2-pipelined.c for c2c,
 * rdft2-rank-geq2-pipelined.c for r2c; rank-geq2-pipelined.c explains it),
 * and the choice that allows or forces them (transpose-inplace-choice.c).
 */
#ifndef RANK_GEQ2_PIPELINED_H
#define RANK_GEQ2_PIPELINED_H

#include "ifftw-mpi.h"
#include "alltoall_inplace.h"

/* ---- The choice (transpose-inplace-choice.c) ------------------------ */

/* Whether the pipelined solvers may plan on comm: when forced
   (FFTW_MPI_INPLACE_ALGORITHM=NAME-pipelined), else under MEASURE/PATIENT
   with the variable unset or auto and comm spanning nodes.  An estimate
   cannot see the overlap that is their point; within a node the "network"
   is the cores' own copies, which cannot overlap the FFTs, so a timing
   planner would pick them only by noise; a forced NAME or off keeps the
   plans of before.  Collective on comm's first call. */
int XM(pipelined_allowed)(MPI_Comm comm, const planner *plnr);
/* Whether FFTW_MPI_INPLACE_ALGORITHM=NAME-pipelined forces them. */
int XM(pipelined_forced)(MPI_Comm comm);
/* The algorithm their exchanges run: the forced symmetric one, else the
   library's default ($AIP_ALGORITHM or its own choice). */
AIP_Algorithm XM(pipelined_algorithm)(MPI_Comm comm);

/* ---- The pipeline (rank-geq2-pipelined.c) --------------------------- */

/* An in-place cycle-following permutation of an array of m <= 3
   dimensions of tuples: dimension a of the result is dimension order[a]
   of the source. */
typedef struct {
     int m;
     INT n[3];
     int order[3];
     INT tuple;          /* reals */
     INT *leaders, cycles;
} tuple_permutation;

/* Every process holds rows x (n_pes x J x yc) complex numbers after the
   local transforms of stage 1; see rank-geq2-pipelined.c. */
typedef struct {
     INT rows, chunks, J, yc, n0;
     int n_pes;
     int back;                   /* the exchange back to rows (flags 0) */
     int sign;                   /* of stage 2 */
     tuple_permutation pre;      /* within one chunk of rows */
     tuple_permutation mid;      /* chunk-major -> slice-major */
     tuple_permutation post;     /* slice-major -> rows (back only) */
     INT pieces1;                /* stage 1 of one row, in pieces */
     INT pieces2;                /* stage 2 of one slice, in pieces */
     plan *cld2;                 /* stage 2: DFTs along n0 (one piece) */
     AIP_Plan exchange;          /* one block: rows / chunks x J x yc */
     MPI_Comm comm;
} pipeline;

/* Applies piece `piece` of stage 1 of the solver's plan (its local
   transforms) to one row; the pipeline tests the exchange in flight after
   each piece. */
typedef void (*pipeline_row_fn)(const plan *owner, R *row, INT piece);

/* Whether the pipeline takes this shape (the same on every process). */
int XM(pipeline_fits)(INT n0, INT rows, INT row_complex, INT J, INT chunks,
		      int n_pes);
/* Plans stage 2 and the exchange (collective); 0 if anything failed, on
   every process.  J = chunks for flags 0 (back = 1), the local rows of
   the second dimension for TRANSPOSED_OUT; pieces1: of stage 1 of a row
   (see XM(pipeline_stage1_tests)). */
int XM(pipeline_init)(pipeline *pl, planner *plnr, R *data, int sign,
		      INT n0, INT rows, INT row_complex, INT J, INT chunks,
		      int back, INT pieces1, MPI_Comm comm);
/* How many tests stage 1 of one row should make: enough that a chunk's
   rows test about once per exchange step (n_pes - 1 of them for HSA),
   since each test advances the exchange by about one step. */
INT XM(pipeline_stage1_tests)(INT rows, INT chunks, int n_pes);
/* The smallest divisor of n not below target (n if none is). */
INT XM(pipeline_pieces)(INT n, INT target);
void XM(pipeline_destroy)(pipeline *pl);
void XM(pipeline_awake)(pipeline *pl, enum wakefulness wakefulness);
void XM(pipeline_apply)(const pipeline *pl, const plan *owner,
			pipeline_row_fn stage1, R *data);
void XM(pipeline_print)(const pipeline *pl, printer *p);
void XM(pipeline_ops)(const pipeline *pl, opcnt *ops);

/* The chunk counts of the solver instances. */
#define PIPELINE_CHUNKS { 4, 2, 8 } /* the estimate's order */

/* Whether the pipelined solvers take these problems and are forced: the
   rank-geq2 solvers of FFTW then give way (fftw-patches/0005). */
int XM(dft_pipelined_preempts)(const problem *p, const planner *plnr);
int XM(rdft2_pipelined_preempts)(const problem *p, const planner *plnr);
void XM(dft_rank_geq2_pipelined_register)(planner *p);
void XM(rdft2_rank_geq2_pipelined_register)(planner *p);

#endif
