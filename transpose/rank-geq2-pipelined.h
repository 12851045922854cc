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
#include "tuple-cycles.h"

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

/* A pass of DFTs over C columns side by side (complex numbers at
   consecutive addresses, each column transformed along a strided
   dimension), cut into `pieces`: every piece `width` columns but the
   last, which takes the rest (width to 2 width - 1 columns).  The width
   is a multiple of PIPELINE_COLUMN_BYTES where the pass is wider, so that
   FFTW's buffered DFTs copy whole cache lines in full batches, which
   equal pieces of a divisor of C cannot do where C is odd, as an r2c
   line's n/2+1 complex numbers are. */
typedef struct {
     INT pieces, width, last;
} pipeline_cut;

#define PIPELINE_COLUMN_BYTES 128

/* Stage 1 of one row, the solver's local transforms of its last rnk-1
   dimensions: whole, or, where the exchange in flight wants many tests,
   in two passes cut into pieces: the last dimension's transforms in
   groups of lines, then the other dimensions' DFTs in groups of columns
   (the complex numbers of a line). */
typedef struct {
     plan *whole, *lines;
     plan *columns, *columns_last; /* the last: 0 where it is `width` wide */
     INT line_pieces, line_step; /* step: reals */
     pipeline_cut cut;           /* of the columns */
     int columns_first;          /* c2r: the columns' DFTs, then the lines */
} pipeline_rows;

typedef enum { ROW_WHOLE, ROW_LINES, ROW_COLUMNS } pipeline_row_pass;

/* Every process holds rows x (n_pes x J x yc) complex numbers after the
   local transforms of stage 1 (before them, reversed); see
   rank-geq2-pipelined.c. */
typedef struct pipeline_s {
     INT rows, chunks, J, yc, n0;
     int n_pes;
     int sliced;                 /* the rows uneven: exchanges by slices
				    (rows = this process's, J = chunks =
				    the slices, yc = m below) */
     int back;                   /* the exchange back to rows (flags 0;
				    sliced: 0 for TRANSPOSED_OUT/IN) */
     int reversed;               /* c2r: the pipeline run backwards */
     int sign;                   /* of stage 2 */
     pipeline_rows stage1;
     tuple_permutation pre;      /* within one chunk of rows */
     tuple_permutation mid;      /* chunk-major -> slice-major */
     tuple_permutation post;     /* slice-major -> rows (back only) */
     tuple_permutation unslice;  /* sliced: slices -> rows (pre's inverse;
				    transposed: -> the transposed output,
				    or reversed -> rows) */
     /* Their first cycles, clear of the chunk or slice that travels
        alone at the pipeline's end (reversed: at its start), move while
        it travels, in groups with a test after each. */
     INT mid_beside, post_beside, mid_tests, post_tests;
     /* Sliced, transposed: pre, with mid in it (reversed: unslice, with
        post), beside the first slice's exchange (reversed: the last's). */
     INT lay_beside, lay_tests;
     pipeline_cut cut2;          /* stage 2 of one slice, in pieces */
     plan *cld2, *cld2_last;     /* stage 2: DFTs along n0 (one piece; the
				    last piece, where it is wider) */
     AIP_Plan exchange;          /* one block: rows / chunks x J x yc */
     MPI_Comm comm;
     struct pipeline_s *wider;   /* sliced, where the slices do not divide
				    M: the last slice, wider (yc its m),
				    with its own exchange, stage 2, mid and
				    post; else 0 */
} pipeline;

/* Applies a piece of stage 1 to one row (the solver's: it knows its
   plans' kinds); the pipeline tests the exchange in flight after each. */
typedef void (*pipeline_row_fn)(const plan *owner, R *row, INT piece);

/* Which pass piece `piece` of a row's stage 1 is, its plan, and where in
   the row it starts (*at moved there). */
pipeline_row_pass XM(pipeline_row_piece)(const pipeline_rows *r, INT piece,
					 R **at, plan **cld);

/* The vector of stage 1's plan of one row: vn, strides is and os, or
   empty where this process holds no row (the sliced pipeline's n0 shorter
   than its processes), which FFTW plans as a no-op. */
tensor *XM(pipeline_row_vector)(INT rows_here, INT vn, INT is, INT os);
/* Whether the pipeline takes this shape (the same on every process). */
int XM(pipeline_fits)(INT n0, INT rows, INT row_complex, INT J, INT chunks,
		      int n_pes);
/* How many tests stage 1 of one row (row_complex complex numbers) should
   make: enough that a chunk's rows test as often as the chunk's exchange
   wants, about once per step and at least once per budget's worth of
   bytes (rank-geq2-pipelined.c says why).  At most 1: stage 1 whole. */
INT XM(pipeline_stage1_tests)(INT rows, INT chunks, INT row_complex,
			      int n_pes);
/* The divisor of n nearest target (the larger of two as near). */
INT XM(pipeline_pieces)(INT n, INT target);
/* C columns in about `target` pieces (pipeline_cut). */
pipeline_cut XM(pipeline_cut_columns)(INT C, INT target);
/* Cuts a row of L lines of C complex numbers into about `tests` pieces,
   half of them groups of columns, and sets r's pieces and steps. */
void XM(pipeline_row_pieces)(pipeline_rows *r, INT L, INT C, INT tests);
/* Plans r's columns pass, in place on ri/ii: the DFTs of the dimensions
   of a row of sz but its last (XM(pipeline_outer_dims)) over a piece's
   columns, and over the last piece's where it is wider.  0 if a plan
   failed on some process (collective), the plans made kept in r. */
int XM(pipeline_plan_columns)(pipeline_rows *r, planner *plnr,
			      const dtensor *sz, INT C, R *ri, R *ii,
			      MPI_Comm comm);
/* The dimensions of a row of sz but its last, strided as in the row,
   whose last dimension (with vn) is `columns` complex numbers: the
   columns pass. */
tensor *XM(pipeline_outer_dims)(const dtensor *sz, INT columns);
/* Plans stage 2 and the exchange (collective) and takes stage 1's plans;
   0 if anything failed, on every process, and stage 1's plans destroyed.
   J = chunks for flags 0 (back = 1), the local rows of the second
   dimension for TRANSPOSED_OUT (TRANSPOSED_IN reversed).  Reversed, every
   part runs inverted in the opposite order: stage 1 last, in the order
   columns then lines (c2r). */
int XM(pipeline_init)(pipeline *pl, planner *plnr, R *data, int sign,
		      INT n0, INT rows, INT row_complex, INT J, INT chunks,
		      int back, int reversed, const pipeline_rows *stage1,
		      MPI_Comm comm);
/* The sliced pipeline: stage 1 on every row whole, then the exchanges
   of `slices` slices of the rows (n0 m complex numbers of a row each, m
   = M / slices, M = row_complex / n0, the last the rest), each with
   stage 2 of another slice beside it (rank-geq2-pipelined.c, "Uneven
   rows").  `transposed`: the output (reversed: the input) is FFTW's
   transposed one, whose second dimension is n0 long in n0's blocks, and
   the slices are equal.  As pipeline_init otherwise; stage1 must be
   whole. */
int XM(pipeline_init_sliced)(pipeline *pl, planner *plnr, R *data, int sign,
			     INT n0, INT block, INT row_complex, INT slices,
			     int reversed, int transposed,
			     const pipeline_rows *stage1, MPI_Comm comm);
void XM(pipeline_destroy)(pipeline *pl);
void XM(pipeline_awake)(pipeline *pl, enum wakefulness wakefulness);
void XM(pipeline_apply)(const pipeline *pl, const plan *owner,
			pipeline_row_fn stage1, R *data);
/* "/kK-ALGORITHM-auxBYTES(stage 1)(pre...)(mid...)(stage 2)(post...)",
   in the order they run (reversed: "/kK-reversed-..." from post to
   stage 1) */
void XM(pipeline_print)(const pipeline *pl, printer *p);
/* Stage 1's and 2's operations for all rows, and the permutations', plus
   a pass over the local array per place of the instance's chunk count in
   PIPELINE_CHUNKS (preference 0, 1, ...): the estimate, which sees no
   overlap, then picks the chunk counts in that order, not by the few
   operations their pieces differ by. */
void XM(pipeline_ops)(const pipeline *pl, int preference, opcnt *ops);
/* A solver's tests of whether its pipeline of `chunks` takes p: the rows
   pipeline's (J as pipeline_init's), and either's (*sliced: the sliced
   one's, J its slices). */
typedef int (*pipeline_rows_fit_fn)(const problem *p, INT chunks, INT *J);
typedef int (*pipeline_takes_fn)(const problem *p, INT chunks, INT *J,
				 int *sliced);
/* Whether the rows pipeline of some chunk count of PIPELINE_CHUNKS takes
   p: then the sliced one does not. */
int XM(pipeline_rows_take)(pipeline_rows_fit_fn fits, const problem *p);
/* The sliced pipeline's slices for p, for the instance of `chunks`,
   where the caller has found every pair's blocks symmetric (rows of n0
   in blocks `block`, on both sides or, `transposed`, with a second
   dimension as long in the same blocks) and no rows pipeline takes p
   (fits): for M = row_complex / n0, a divisor of M near `chunks`, else
   (not transposed) `chunks` slices, the last wider
   (rank-geq2-pipelined.c, slice_count), if at least 2 and no instance
   before it in PIPELINE_CHUNKS has as many; else 0. */
INT XM(pipeline_slices)(pipeline_rows_fit_fn fits, const problem *p, INT n0,
			INT block, INT row_complex, INT chunks, int transposed,
			MPI_Comm comm);
/* Whether some chunk count's pipeline takes p, and
   FFTW_MPI_INPLACE_ALGORITHM forces the pipeline on comm (collective on
   comm's first call). */
int XM(pipeline_preempts)(pipeline_takes_fn takes, const problem *p,
			  MPI_Comm comm);

/* The chunk counts of the solver instances, in the estimate's order
   (pipeline_ops): the most chunks first, since 1/k of each exchange runs
   with nothing beside it; at 16 a chunk can be one row, which a chunk's
   tests (one per exchange step) cut into as many pieces as there are
   processes; 5 for rows of 10 (2560^3 on 256 processes: 0.73x stock's
   time simulated, 0.83x with 2 chunks; docs/results.md, "The pipelined
   transforms"). */
#define PIPELINE_CHUNKS { 8, 5, 4, 2 }

/* Whether the pipelined solvers take these problems and are forced: the
   rank-geq2 solvers of FFTW then give way (fftw-patches/0005). */
int XM(dft_pipelined_preempts)(const problem *p, const planner *plnr);
int XM(rdft2_pipelined_preempts)(const problem *p, const planner *plnr);
void XM(dft_rank_geq2_pipelined_register)(planner *p);
void XM(rdft2_rank_geq2_pipelined_register)(planner *p);

#endif
