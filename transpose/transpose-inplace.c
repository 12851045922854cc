/*
 * transpose-inplace.c - distributed in-place transposes whose global
 * exchange is one in-place all-to-all with bounded extra memory.
 *
 * The transpose has FFTW's usual three steps (see transpose-pairwise.c):
 * a local transpose b x ny x vn -> ny x b x vn makes the block for each
 * destination contiguous, the blocks are exchanged, and the post-transposes
 * of XM(mkplans_posttranspose) restore row-major (or TRANSPOSED_OUT) order.
 * transpose-pairwise exchanges block by block through a buffer of one
 * block, local size / processes, malloc'ed at every apply: 257 MiB per rank
 * for a 512^3 r2c transform on 2 processes.  Here the exchange is
 * AIP_Alltoall_opt of liballtoall_inplace, which moves every block
 * through a ring of at most $AIP_AUX_BYTES (1 MiB by default) whatever the
 * transform size, in the order of one of the symmetric schedules of
 *
 *     T. Hofmann and G. Ruenger, "In-place Algorithms for the Symmetric
 *     All-to-all Exchange with MPI", EuroMPI 2013 (Sect. 4.4 is this use),
 *
 * one solver instance per schedule so that the planner can time them:
 *   hsa    p-1 steps for p a power of two (the paper's choice),
 *   lsa    p steps, a linear shift that overlaps well on small p,
 *   mpich  2p-1 steps, MPICH's in-place pairwise baseline.
 *
 * Applicable to in-place transposes in which every process holds one
 * block of each distribution (nx and ny divisible by the number of
 * processes with the default blocks), where the all-to-all is symmetric.
 * Uneven distributions stay with transpose-pairwise, whose schedule sorts
 * the exchanges around the one process with unequal blocks.
 *
 * The local transposes are FFTW's own in-place rank-0 plans, as in
 * transpose-pairwise, with FFTW's buffers: rdft/vrank3-transpose.c refuses
 * gcd/toms513 buffers over max(64k reals, 1/9 of the data) except under
 * FFTW_EXHAUSTIVE, and sizes transpose-cut's after that check.  (Planning
 * them with CONSERVE_MEMORY, which would extend the rule to EXHAUSTIVE,
 * broke FFTW_WISDOM_ONLY replanning on the second process.)
 *
 * Under FFTW_ESTIMATE, HSA is preferred to LSA and LSA to MPICH, and
 * FFTW's pairwise exchange to all of them unless the planner flag
 * FFTW_MPI_INPLACE_ALLTOALL asks for ours (estimate_rank).  See
 * transpose-inplace-choice.c for the flag and FFTW_MPI_INPLACE_ALGORITHM.
 */

#include "mpi-transpose.h"
#include <limits.h>
#include <stdio.h>

#include "alltoall_inplace.h"

typedef struct {
     solver super;
     AIP_Algorithm algorithm;
} S;

typedef struct {
     plan_mpi_transpose super;

     plan *cld1, *cld2, *cld2rest, *cld3;
     INT rest_Ioff, rest_Ooff;

     /* one block for each process: count units of block_type */
     int count;
     MPI_Datatype block_type;
     AIP_Options options;
     MPI_Comm comm;
} P;

static void exchange(const P *ego, R *buf)
{
     int rc = AIP_Alltoall_opt(buf, ego->count, ego->block_type, ego->comm,
			       &ego->options);
     if (rc != MPI_SUCCESS) {
	  /* The library has reported the error through the communicator's
	     handler; if that returned, the data is not transposed, and a
	     plan has no way to say so. */
	  char message[MPI_MAX_ERROR_STRING];
	  int len;
	  MPI_Error_string(rc, message, &len);
	  fprintf(stderr, "fftw_mpi: in-place transpose (%s) failed: %s\n",
		  AIP_Algorithm_name(ego->options.algorithm), message);
	  MPI_Abort(ego->comm, rc);
     }
}

static void apply(const plan *ego_, R *I, R *O)
{
     const P *ego = (const P *) ego_;
     plan_rdft *cld;

     UNUSED(O); /* == I */

     /* transpose locally to make each destination's block contiguous */
     if (ego->cld1) {
	  cld = (plan_rdft *) ego->cld1;
	  cld->apply(ego->cld1, I, I);
     }

     exchange(ego, I);

     /* transpose locally, again, to get ordinary row-major (or the
	TRANSPOSED_OUT order) */
     cld = (plan_rdft *) ego->cld2;
     cld->apply(ego->cld2, I, I);
     if (ego->cld2rest) {
	  cld = (plan_rdft *) ego->cld2rest;
	  cld->apply(ego->cld2rest, I + ego->rest_Ioff, I + ego->rest_Ooff);
	  if (ego->cld3) {
	       cld = (plan_rdft *) ego->cld3;
	       cld->apply(ego->cld3, I, I);
	  }
     }
}

static int applicable(const S *ego, const problem *p_)
{
     const problem_mpi_transpose *p = (const problem_mpi_transpose *) p_;
     return XM(transpose_inplace_allowed)(p, (int) ego->algorithm);
}

static void awake(plan *ego_, enum wakefulness wakefulness)
{
     P *ego = (P *) ego_;
     X(plan_awake)(ego->cld1, wakefulness);
     X(plan_awake)(ego->cld2, wakefulness);
     X(plan_awake)(ego->cld2rest, wakefulness);
     X(plan_awake)(ego->cld3, wakefulness);
}

static void destroy(plan *ego_)
{
     P *ego = (P *) ego_;
     if (ego->block_type != FFTW_MPI_TYPE)
	  MPI_Type_free(&ego->block_type);
     MPI_Comm_free(&ego->comm);
     X(plan_destroy_internal)(ego->cld3);
     X(plan_destroy_internal)(ego->cld2rest);
     X(plan_destroy_internal)(ego->cld2);
     X(plan_destroy_internal)(ego->cld1);
}

static void print(const plan *ego_, printer *p)
{
     const P *ego = (const P *) ego_;
     p->print(p, "(mpi-transpose-inplace/%s%(%p%)%(%p%)%(%p%)%(%p%))",
	      AIP_Algorithm_name(ego->options.algorithm),
	      ego->cld1, ego->cld2, ego->cld2rest, ego->cld3);
}

/* MPI counts are ints: one block of n reals is sent as *count units of
   *unit reals, the smallest unit (1, vn, then a row of the block) that
   makes the count fit.  0 if none does. */
static int block_units(INT n, INT vn, INT row, int *count, INT *unit)
{
     *unit = 1;
     if (n > INT_MAX) *unit = vn;
     if (n / *unit > INT_MAX) *unit = row;
     if (n / *unit > INT_MAX || *unit > INT_MAX) return 0;
     *count = (int) (n / *unit);
     return 1;
}

static MPI_Datatype unit_type(INT unit)
{
     MPI_Datatype type;
     if (unit == 1) return FFTW_MPI_TYPE;
     MPI_Type_contiguous((int) unit, FFTW_MPI_TYPE, &type);
     MPI_Type_commit(&type);
     return type;
}

/* FFTW counts no cost for MPI (see transpose-pairwise's FIXME), so the
   estimate only orders the choices: FFTW's pairwise exchange first when
   the planner flag is absent, then HSA, LSA and MPICH, the order of the
   paper's measurements.  Timing planners (MEASURE, PATIENT) decide by
   measurement instead. */
static double estimate_rank(AIP_Algorithm algorithm)
{
     switch (algorithm) {
	 case AIP_ALGORITHM_HSA: return 1;
	 case AIP_ALGORITHM_LSA: return 2;
	 default: return 3;
     }
}

static plan *mkplan(const solver *ego_, const problem *p_, planner *plnr)
{
     const S *ego = (const S *) ego_;
     const problem_mpi_transpose *p;
     P *pln;
     plan *cld1 = 0, *cld2 = 0, *cld2rest = 0, *cld3 = 0;
     INT b, vn, unit, rest_Ioff, rest_Ooff;
     int my_pe, count;
     R *I;
     static const plan_adt padt = {
	  XM(transpose_solve), awake, print, destroy
     };

     if (!applicable(ego, p_))
	  return (plan *) 0;

     p = (const problem_mpi_transpose *) p_;
     vn = p->vn;
     I = p->I;
     b = p->block; /* every process holds one full block */

     /* the same on every process: the shape is uniform (applicable) */
     if (!block_units(b * p->tblock * vn, vn, p->tblock * vn, &count, &unit))
	  return (plan *) 0;

     MPI_Comm_rank(p->comm, &my_pe);

     if (!(p->flags & TRANSPOSED_IN)) { /* b x ny x vn -> ny x b x vn */
	  cld1 = X(mkplan_f_d)(plnr,
			       X(mkproblem_rdft_0_d)(X(mktensor_3d)
						     (b, p->ny * vn, vn,
						      p->ny, vn, b * vn,
						      vn, 1, 1),
						     I, I),
			       0, 0, NO_SLOW);
	  if (XM(any_true)(!cld1, p->comm)) goto nada;
     }

     if (XM(any_true)(!XM(mkplans_posttranspose)(p, plnr, I, I, my_pe,
						 &cld2, &cld2rest, &cld3,
						 &rest_Ioff, &rest_Ooff),
		      p->comm)) goto nada;

     pln = MKPLAN_MPI_TRANSPOSE(P, &padt, apply);

     pln->cld1 = cld1;
     pln->cld2 = cld2;
     pln->cld2rest = cld2rest;
     pln->rest_Ioff = rest_Ioff;
     pln->rest_Ooff = rest_Ooff;
     pln->cld3 = cld3;

     pln->count = count;
     pln->block_type = unit_type(unit);
     AIP_Options_init(&pln->options);
     pln->options.algorithm = ego->algorithm; /* aux: $AIP_AUX_BYTES */
     MPI_Comm_dup(p->comm, &pln->comm);

     X(ops_zero)(&pln->super.super.ops);
     if (cld1) X(ops_add2)(&cld1->ops, &pln->super.super.ops);
     if (cld2) X(ops_add2)(&cld2->ops, &pln->super.super.ops);
     if (cld2rest) X(ops_add2)(&cld2rest->ops, &pln->super.super.ops);
     if (cld3) X(ops_add2)(&cld3->ops, &pln->super.super.ops);
     pln->super.super.ops.other += estimate_rank(ego->algorithm);

     return &(pln->super.super);

 nada:
     X(plan_destroy_internal)(cld3);
     X(plan_destroy_internal)(cld2rest);
     X(plan_destroy_internal)(cld2);
     X(plan_destroy_internal)(cld1);
     return (plan *) 0;
}

static solver *mksolver(AIP_Algorithm algorithm)
{
     static const solver_adt sadt = { PROBLEM_MPI_TRANSPOSE, mkplan, 0 };
     S *slv = MKSOLVER(S, &sadt);
     slv->algorithm = algorithm;
     return &(slv->super);
}

/* Registration order is the wisdom identity of each instance (reg_id):
   append new algorithms, never reorder. */
void XM(transpose_inplace_register)(planner *p)
{
     REGISTER_SOLVER(p, mksolver(AIP_ALGORITHM_HSA));
     REGISTER_SOLVER(p, mksolver(AIP_ALGORITHM_LSA));
     REGISTER_SOLVER(p, mksolver(AIP_ALGORITHM_MPICH));
}
