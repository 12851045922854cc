/*
 * dft-rank-geq2-pipelined.c - in-place complex DFTs of rank >= 2,
 * distributed along the first dimension, whose global exchanges overlap
 * their local DFTs: dft-rank-geq2.c (flags 0) and
 * dft-rank-geq2-transposed.c (TRANSPOSED_OUT) as a pipeline of k chunks
 * (rank-geq2-pipelined.c says how and why it is correct in place).
 *
 * Stage 1 is the DFT of the last rnk-1 dimensions of one row at a time,
 * where many processes want many tests in two passes cut into pieces
 * (the last dimension's lines, then the other dimensions' columns), so
 * that the chunk in flight advances between them; stage 2 the DFTs along
 * the first dimension.  One instance per chunk count k of
 * PIPELINE_CHUNKS, planned only under MEASURE/PATIENT unless
 * FFTW_MPI_INPLACE_ALGORITHM=NAME-pipelined forces them; then FFTW's
 * rank-geq2 solvers give way wherever one of them takes the problem.
 */

#include "mpi-dft.h"
#include "dft/dft.h"
#include "rank-geq2-pipelined.h"

typedef struct {
     solver super;
     INT chunks;
     int preference; /* 0, 1, ...: its place in PIPELINE_CHUNKS */
} S;

typedef struct {
     plan_mpi_dft super;

     /* stage 1 of one row: whole (cld1), or in pieces of two passes, the
	last dimension's DFTs in groups of lines, then the other
	dimensions' in groups of columns */
     plan *cld1, *lines, *columns;
     INT line_pieces, line_step, column_step;
     INT roff, ioff;
     pipeline pl;
} P;

/* Piece `piece` of stage 1 of one row. */
static void row(const plan *ego_, R *at, INT piece)
{
     const P *ego = (const P *) ego_;
     plan *cld = ego->cld1;
     if (!cld && piece < ego->line_pieces) {
	  cld = ego->lines;
	  at += piece * ego->line_step;
     } else if (!cld) {
	  cld = ego->columns;
	  at += (piece - ego->line_pieces) * ego->column_step;
     }
     ((plan_dft *) cld)->apply(cld, at + ego->roff, at + ego->ioff,
			       at + ego->roff, at + ego->ioff);
}

static void apply(const plan *ego_, R *I, R *O)
{
     const P *ego = (const P *) ego_;
     UNUSED(O); /* == I */
     XM(pipeline_apply)(&ego->pl, ego_, row, I);
}

/* The complex numbers of one row: the last rnk-1 dimensions and vn. */
static INT row_complex(const problem_mpi_dft *p)
{
     INT n = p->vn;
     int i;
     for (i = 1; i < p->sz->rnk; ++i)
	  n *= p->sz->dims[i].n;
     return n;
}

/* Whether the pipeline of `chunks` takes p, and its J: the chunks for
   flags 0, the local rows of the second dimension for TRANSPOSED_OUT. */
static int takes(const problem_mpi_dft *p, INT chunks, INT *J)
{
     const ddim *d = p->sz->dims;
     INT n0, rows;
     int n_pes;

     if (!(p->I == p->O && p->sz->rnk > 1
	   && (p->flags == 0 || p->flags == TRANSPOSED_OUT)
	   && XM(is_local_after)(1, p->sz, IB)))
	  return 0;
     MPI_Comm_size(p->comm, &n_pes);
     n0 = d[0].n;
     rows = n0 / n_pes;
     if (d[0].b[IB] != rows)
	  return 0;
     if (p->flags == 0) {
	  if (!XM(is_local_after)(1, p->sz, OB) || d[0].b[OB] != rows)
	       return 0;
	  *J = chunks;
     } else {
	  if (!XM(is_local_after)(2, p->sz, OB)
	      || XM(num_blocks)(n0, d[0].b[OB]) != 1
	      || d[1].n % n_pes || d[1].b[OB] != d[1].n / n_pes)
	       return 0;
	  *J = d[1].n / n_pes;
     }
     return XM(pipeline_fits)(n0, rows, row_complex(p), *J, chunks, n_pes);
}

static int applicable(const S *ego, const problem *p_, const planner *plnr,
		      INT *J)
{
     const problem_mpi_dft *p = (const problem_mpi_dft *) p_;
     return (takes(p, ego->chunks, J)
	     && XM(pipelined_allowed)(p->comm, plnr) /* collective */
	     && (!NO_SLOWP(plnr) /* slow if dft-serial is applicable */
		 || !XM(dft_serial_applicable)(p)));
}

int XM(dft_pipelined_preempts)(const problem *p_, const planner *plnr)
{
     const problem_mpi_dft *p = (const problem_mpi_dft *) p_;
     static const INT chunks[] = PIPELINE_CHUNKS;
     INT J;
     int i;
     UNUSED(plnr);
     for (i = 0; i < (int) (sizeof chunks / sizeof *chunks); ++i)
	  if (takes(p, chunks[i], &J))
	       return XM(pipelined_forced)(p->comm); /* collective */
     return 0;
}

static void awake(plan *ego_, enum wakefulness wakefulness)
{
     P *ego = (P *) ego_;
     X(plan_awake)(ego->cld1, wakefulness);
     X(plan_awake)(ego->lines, wakefulness);
     X(plan_awake)(ego->columns, wakefulness);
     XM(pipeline_awake)(&ego->pl, wakefulness);
}

static void destroy(plan *ego_)
{
     P *ego = (P *) ego_;
     XM(pipeline_destroy)(&ego->pl);
     X(plan_destroy_internal)(ego->columns);
     X(plan_destroy_internal)(ego->lines);
     X(plan_destroy_internal)(ego->cld1);
}

static void print(const plan *ego_, printer *p)
{
     const P *ego = (const P *) ego_;
     p->print(p, "(mpi-dft-rank-geq2-pipelined");
     XM(pipeline_print)(&ego->pl, p);
     if (ego->cld1)
	  p->print(p, "%(%p%))", ego->cld1);
     else
	  p->print(p, "(lines/%D%(%p%))(columns/%D%(%p%)))", ego->line_pieces,
		   ego->lines, ego->pl.pieces1 - ego->line_pieces, ego->columns);
}

/* The dimensions of a row but its last, strided as in the row, whose
   last dimension with vn is `columns` complex numbers. */
static tensor *outer_dims(const problem_mpi_dft *p, INT columns)
{
     int rnk = p->sz->rnk, i;
     tensor *sz = X(mktensor)(rnk - 2);
     INT stride = 2 * columns;
     for (i = rnk - 3; i >= 0; --i) {
	  sz->dims[i].n = p->sz->dims[i+1].n;
	  sz->dims[i].is = sz->dims[i].os = stride;
	  stride *= p->sz->dims[i+1].n;
     }
     return sz;
}

static plan *mkplan(const solver *ego_, const problem *p_, planner *plnr)
{
     const S *ego = (const S *) ego_;
     const problem_mpi_dft *p = (const problem_mpi_dft *) p_;
     P *pln;
     plan *cld1 = 0, *lines = 0, *columns = 0;
     pipeline pl;
     R *ri, *ii;
     tensor *sz;
     INT J, rows, tests, last, C, L = 1, line_pieces = 0, column_pieces = 0;
     int i, n_pes, rnk = p->sz->rnk;
     static const plan_adt padt = {
          XM(dft_solve), awake, print, destroy
     };

     if (!applicable(ego, p_, plnr, &J))
          return (plan *) 0;

     MPI_Comm_size(p->comm, &n_pes);
     rows = p->sz->dims[0].n / n_pes;
     X(extract_reim)(p->sign, p->I, &ri, &ii);
     last = p->sz->dims[rnk - 1].n;
     C = last * p->vn;
     for (i = 1; i < rnk - 1; ++i)
	  L *= p->sz->dims[i].n;

     tests = XM(pipeline_stage1_tests)(rows, ego->chunks, n_pes);
     if (rnk == 2 || tests <= 1) {
	  /* one row whole: the last rnk-1 dimensions, with vn */
	  sz = X(mktensor)(rnk - 1);
	  i = rnk - 2;
	  sz->dims[i].n = last;
	  sz->dims[i].is = sz->dims[i].os = 2 * p->vn;
	  for (--i; i >= 0; --i) {
	       sz->dims[i].n = p->sz->dims[i+1].n;
	       sz->dims[i].is = sz->dims[i].os = sz->dims[i+1].n * sz->dims[i+1].is;
	  }
	  cld1 = X(mkplan_d)(plnr,
			     X(mkproblem_dft_d)(sz, X(mktensor_1d)(p->vn, 2, 2),
						ri, ii, ri, ii));
	  if (XM(any_true)(!cld1, p->comm)) goto nada;
     } else {
	  /* the L lines of the last dimension, then the C columns */
	  line_pieces = XM(pipeline_pieces)(L, (tests + 1) / 2);
	  column_pieces = XM(pipeline_pieces)(C, (tests + 1) / 2);
	  lines = X(mkplan_d)(plnr,
			      X(mkproblem_dft_d)(X(mktensor_1d)(last, 2 * p->vn, 2 * p->vn),
						 X(mktensor_2d)(L / line_pieces, 2 * C, 2 * C,
								p->vn, 2, 2),
						 ri, ii, ri, ii));
	  if (XM(any_true)(!lines, p->comm)) goto nada;
	  columns = X(mkplan_d)(plnr,
				X(mkproblem_dft_d)(outer_dims(p, C),
						   X(mktensor_1d)(C / column_pieces, 2, 2),
						   ri, ii, ri, ii));
	  if (XM(any_true)(!columns, p->comm)) goto nada;
     }

     if (!XM(pipeline_init)(&pl, plnr, p->I, p->sign, p->sz->dims[0].n, rows,
			    L * C, J, ego->chunks, p->flags == 0,
			    cld1 ? 1 : line_pieces + column_pieces, p->comm))
	  goto nada; /* on every process */

     pln = MKPLAN_MPI_DFT(P, &padt, apply);
     pln->cld1 = cld1;
     pln->lines = lines;
     pln->columns = columns;
     pln->line_pieces = line_pieces;
     pln->line_step = line_pieces ? 2 * C * (L / line_pieces) : 0;
     pln->column_step = column_pieces ? 2 * (C / column_pieces) : 0;
     pln->roff = ri - p->I;
     pln->ioff = ii - p->I;
     pln->pl = pl;

     XM(pipeline_ops)(&pl, &pln->super.super.ops);
     if (cld1)
	  X(ops_madd2)(rows, &cld1->ops, &pln->super.super.ops);
     else {
	  X(ops_madd2)(rows * line_pieces, &lines->ops, &pln->super.super.ops);
	  X(ops_madd2)(rows * column_pieces, &columns->ops, &pln->super.super.ops);
     }
     pln->super.super.ops.other += ego->preference;
     return &(pln->super.super);

 nada:
     X(plan_destroy_internal)(columns);
     X(plan_destroy_internal)(lines);
     X(plan_destroy_internal)(cld1);
     return (plan *) 0;
}

static solver *mksolver(INT chunks, int preference)
{
     static const solver_adt sadt = { PROBLEM_MPI_DFT, mkplan, 0 };
     S *slv = MKSOLVER(S, &sadt);
     slv->chunks = chunks;
     slv->preference = preference;
     return &(slv->super);
}

void XM(dft_rank_geq2_pipelined_register)(planner *p)
{
     static const INT chunks[] = PIPELINE_CHUNKS;
     int i;
     for (i = 0; i < (int) (sizeof chunks / sizeof *chunks); ++i)
	  REGISTER_SOLVER(p, mksolver(chunks[i], i));
}
