/*
 * dft-rank-geq2-pipelined.c - in-place complex DFTs of rank >= 2,
 * distributed along the first dimension, whose global exchanges overlap
 * their local DFTs: dft-rank-geq2.c (flags 0) and
 * dft-rank-geq2-transposed.c (TRANSPOSED_OUT) as a pipeline of k chunks,
 * or, where no k fits the rows (n0 uneven), of k slices of every row
 * (rank-geq2-pipelined.c says how and why it is correct in place).
 *
 * Stage 1 is the DFT of the last rnk-1 dimensions of one row at a time,
 * where many processes want many tests in two passes cut into pieces
 * (the last dimension's lines, then the other dimensions' columns), so
 * that the chunk in flight advances between them; stage 2 the DFTs along
 * the first dimension.  (FFTW turns TRANSPOSED_IN into TRANSPOSED_OUT
 * of the dimensions swapped.)  One instance per chunk count k of
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
     INT roff, ioff;
     pipeline pl;
} P;

/* Piece `piece` of stage 1 of one row: every pass a DFT. */
static void row(const plan *ego_, R *at, INT piece)
{
     const P *ego = (const P *) ego_;
     plan *cld;
     XM(pipeline_row_piece)(&ego->pl.stage1, piece, &at, &cld);
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
static int rows_fit(const problem *p_, INT chunks, INT *J)
{
     const problem_mpi_dft *p = (const problem_mpi_dft *) p_;
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

/* Whether every pair's blocks of a slice are as large both ways, as the
   sliced pipeline's in-place exchanges need: the rows in the same blocks
   in and out (flags 0), or (TRANSPOSED_OUT) a second dimension as long
   as n0 in the same blocks as its rows. */
static int slices_fit(const problem_mpi_dft *p)
{
     const ddim *d = p->sz->dims;
     if (!(p->I == p->O && p->sz->rnk > 1 && XM(is_local_after)(1, p->sz, IB)))
	  return 0;
     if (p->flags == 0)
	  return XM(is_local_after)(1, p->sz, OB) && d[0].b[OB] == d[0].b[IB];
     return p->flags == TRANSPOSED_OUT && XM(is_local_after)(2, p->sz, OB)
	  && XM(num_blocks)(d[0].n, d[0].b[OB]) == 1
	  && d[1].n == d[0].n && d[1].b[OB] == d[0].b[IB];
}

/* The pipeline of chunks where it takes p, else the sliced one, J its
   slices. */
static int takes(const problem *p_, INT chunks, INT *J, int *sliced)
{
     const problem_mpi_dft *p = (const problem_mpi_dft *) p_;
     *sliced = !rows_fit(p_, chunks, J);
     if (!*sliced)
	  return 1;
     *J = slices_fit(p)
	  ? XM(pipeline_slices)(rows_fit, p_, p->sz->dims[0].n, p->sz->dims[0].b[IB],
				row_complex(p), chunks, p->flags != 0, p->comm)
	  : 0;
     return *J > 0;
}

static int applicable(const S *ego, const problem *p_, const planner *plnr,
		      INT *J, int *sliced)
{
     const problem_mpi_dft *p = (const problem_mpi_dft *) p_;
     return (takes(p_, ego->chunks, J, sliced)
	     && XM(pipelined_allowed)(p->comm, plnr) /* collective */
	     && (!NO_SLOWP(plnr) /* slow if dft-serial is applicable */
		 || !XM(dft_serial_applicable)(p)));
}

int XM(dft_pipelined_preempts)(const problem *p, const planner *plnr)
{
     UNUSED(plnr);
     return XM(pipeline_preempts)(takes, p, ((const problem_mpi_dft *) p)->comm);
}

static void awake(plan *ego_, enum wakefulness wakefulness)
{
     XM(pipeline_awake)(&((P *) ego_)->pl, wakefulness);
}

static void destroy(plan *ego_)
{
     XM(pipeline_destroy)(&((P *) ego_)->pl);
}

static void print(const plan *ego_, printer *p)
{
     p->print(p, "(mpi-dft-rank-geq2-pipelined");
     XM(pipeline_print)(&((const P *) ego_)->pl, p);
     p->print(p, ")");
}

static plan *mkplan(const solver *ego_, const problem *p_, planner *plnr)
{
     const S *ego = (const S *) ego_;
     const problem_mpi_dft *p = (const problem_mpi_dft *) p_;
     P *pln;
     pipeline pl;
     pipeline_rows rows = { 0 };
     R *ri, *ii;
     tensor *sz;
     INT J, b, here, tests, last, C, L = 1;
     int i, n_pes, my_pe, rnk = p->sz->rnk, sliced;
     static const plan_adt padt = {
          XM(dft_solve), awake, print, destroy
     };

     if (!applicable(ego, p_, plnr, &J, &sliced))
          return (plan *) 0;

     MPI_Comm_size(p->comm, &n_pes);
     MPI_Comm_rank(p->comm, &my_pe);
     b = p->sz->dims[0].n / n_pes;
     /* this process's rows: the sliced pipeline's may be none */
     here = sliced ? XM(block)(p->sz->dims[0].n, p->sz->dims[0].b[IB], my_pe) : b;
     X(extract_reim)(p->sign, p->I, &ri, &ii);
     last = p->sz->dims[rnk - 1].n;
     C = last * p->vn; /* complex numbers per line */
     for (i = 1; i < rnk - 1; ++i)
	  L *= p->sz->dims[i].n;

     /* sliced: nothing travels beside stage 1 */
     tests = sliced ? 1 : XM(pipeline_stage1_tests)(b, ego->chunks, L * C, n_pes);
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
	  rows.whole = X(mkplan_d)(plnr,
				   X(mkproblem_dft_d)(sz, XM(pipeline_row_vector)(here, p->vn, 2, 2),
						      ri, ii, ri, ii));
	  if (XM(any_true)(!rows.whole, p->comm)) goto nada;
     } else {
	  /* the L lines of the last dimension, then the C columns */
	  XM(pipeline_row_pieces)(&rows, L, C, tests);
	  rows.lines = X(mkplan_d)(plnr,
				   X(mkproblem_dft_d)(X(mktensor_1d)(last, 2 * p->vn, 2 * p->vn),
						      X(mktensor_2d)(L / rows.line_pieces,
								     2 * C, 2 * C, p->vn, 2, 2),
						      ri, ii, ri, ii));
	  if (XM(any_true)(!rows.lines, p->comm)) goto nada;
	  if (!XM(pipeline_plan_columns)(&rows, plnr, p->sz, C, ri, ii, p->comm))
	       goto nada;
     }

     if (sliced ? !XM(pipeline_init_sliced)(&pl, plnr, p->I, p->sign,
					    p->sz->dims[0].n, p->sz->dims[0].b[IB],
					    L * C, J, 0, p->flags != 0, &rows, p->comm)
	 : !XM(pipeline_init)(&pl, plnr, p->I, p->sign, p->sz->dims[0].n, b,
			      L * C, J, ego->chunks, p->flags == 0, 0, &rows, p->comm))
	  return (plan *) 0; /* on every process; rows destroyed */

     pln = MKPLAN_MPI_DFT(P, &padt, apply);
     pln->roff = ri - p->I;
     pln->ioff = ii - p->I;
     pln->pl = pl;
     XM(pipeline_ops)(&pl, ego->preference, &pln->super.super.ops);
     return &(pln->super.super);

 nada:
     X(plan_destroy_internal)(rows.columns_last);
     X(plan_destroy_internal)(rows.columns);
     X(plan_destroy_internal)(rows.lines);
     X(plan_destroy_internal)(rows.whole);
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
