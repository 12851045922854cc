/*
 * rdft2-rank-geq2-pipelined.c - in-place r2c and c2r transforms of rank
 * >= 2, distributed along the first dimension, whose global exchanges
 * overlap their local transforms: rdft2-rank-geq2.c (flags 0) and
 * rdft2-rank-geq2-transposed.c (r2c TRANSPOSED_OUT, c2r TRANSPOSED_IN) as
 * a pipeline of k chunks, or, where no k fits the rows (n0 uneven), of k
 * slices of every row (rank-geq2-pipelined.c says how and why it is
 * correct in place).
 *
 * Stage 1 is the r2c transform of the last rnk-1 dimensions of one row
 * at a time (its padded reals become n1 x ... x (n/2+1) complex numbers
 * in place), where many processes want many tests in two passes cut into
 * pieces (the last dimension's r2c lines, then the other dimensions'
 * columns), so that the chunk in flight advances between them; stage 2
 * the forward DFTs along the first dimension.  c2r runs the pipeline
 * reversed: stage 2's backward DFTs first, and stage 1 last, the columns'
 * backward DFTs before the c2r lines.  One instance per chunk count k of
 * PIPELINE_CHUNKS, planned only under MEASURE/PATIENT unless
 * FFTW_MPI_INPLACE_ALGORITHM=NAME-pipelined forces them; then FFTW's
 * rank-geq2 solvers give way wherever one of them takes the problem.
 */

#include "mpi-rdft2.h"
#include "rdft/rdft.h"
#include "dft/dft.h"
#include "rank-geq2-pipelined.h"

typedef struct {
     solver super;
     INT chunks;
     int preference; /* 0, 1, ...: its place in PIPELINE_CHUNKS */
} S;

typedef struct {
     plan_mpi_rdft2 super;
     INT vn;
     INT roff, ioff; /* of the columns' DFTs: backward ones swap them */
     pipeline pl;
} P;

/* Piece `piece` of stage 1 of one row: r2c or c2r (whole, lines) or DFTs
   (columns), in place. */
static void row(const plan *ego_, R *at, INT piece)
{
     const P *ego = (const P *) ego_;
     plan *cld;
     if (XM(pipeline_row_piece)(&ego->pl.stage1, piece, &at, &cld) == ROW_COLUMNS)
	  ((plan_dft *) cld)->apply(cld, at + ego->roff, at + ego->ioff,
				    at + ego->roff, at + ego->ioff);
     else
	  ((plan_rdft2 *) cld)->apply(cld, at, at + ego->vn, at, at + 1);
}

static void apply(const plan *ego_, R *I, R *O)
{
     const P *ego = (const P *) ego_;
     UNUSED(O); /* == I */
     XM(pipeline_apply)(&ego->pl, ego_, row, I);
}

/* The second dimension of the complex array: n1, or n1/2+1 in 2D, and its
   block on the complex side (OB for r2c, IB for c2r). */
static INT complex_n1(const problem_mpi_rdft2 *p, block_kind side, INT *b1)
{
     INT n1 = p->sz->dims[1].n;
     *b1 = p->sz->dims[1].b[side];
     if (p->sz->rnk == 2) { /* as rdft2-rank-geq2-transposed */
	  *b1 = *b1 == n1 ? n1 / 2 + 1 : *b1;
	  n1 = n1 / 2 + 1;
     }
     return n1;
}

/* The complex numbers of one row after stage 1: the last rnk-1
   dimensions, the last cut to n/2+1, and vn. */
static INT row_complex(const problem_mpi_rdft2 *p)
{
     INT n = p->vn * (p->sz->dims[p->sz->rnk - 1].n / 2 + 1);
     int i;
     for (i = 1; i < p->sz->rnk - 1; ++i)
	  n *= p->sz->dims[i].n;
     return n;
}

/* Whether the pipeline of `chunks` takes p, and its J: the chunks for
   flags 0, the local rows of the second dimension for transposed complex
   numbers (r2c's TRANSPOSED_OUT, c2r's TRANSPOSED_IN). */
static int rows_fit(const problem *p_, INT chunks, INT *J)
{
     const problem_mpi_rdft2 *p = (const problem_mpi_rdft2 *) p_;
     const ddim *d = p->sz->dims;
     int r2c = p->kind == R2HC;
     /* the side in rows of reals, and the complex side */
     block_kind reals = r2c ? IB : OB, complex = r2c ? OB : IB;
     INT n0, rows, n1, b1;
     int n_pes;

     if (!(p->I == p->O && p->sz->rnk > 1 && (r2c || p->kind == HC2R)
	   && (p->flags == 0
	       || p->flags == (r2c ? TRANSPOSED_OUT : TRANSPOSED_IN))
	   && XM(is_local_after)(1, p->sz, reals)))
	  return 0;
     MPI_Comm_size(p->comm, &n_pes);
     n0 = d[0].n;
     rows = n0 / n_pes;
     if (d[0].b[reals] != rows)
	  return 0;
     if (p->flags == 0) {
	  if (!XM(is_local_after)(1, p->sz, complex) || d[0].b[complex] != rows)
	       return 0;
	  *J = chunks;
     } else {
	  n1 = complex_n1(p, complex, &b1);
	  if (!XM(is_local_after)(2, p->sz, complex)
	      || XM(num_blocks)(n0, d[0].b[complex]) != 1
	      || n1 % n_pes || b1 != n1 / n_pes)
	       return 0;
	  *J = n1 / n_pes;
     }
     return XM(pipeline_fits)(n0, rows, row_complex(p), *J, chunks, n_pes);
}

/* Whether every pair's blocks of a slice are as large both ways, as the
   sliced pipeline's in-place exchanges need: the rows in the same blocks
   on both sides (flags 0), or (r2c's TRANSPOSED_OUT, c2r's
   TRANSPOSED_IN) a complex second dimension as long as n0 in the same
   blocks as its rows. */
static int slices_fit(const problem_mpi_rdft2 *p)
{
     const ddim *d = p->sz->dims;
     int r2c = p->kind == R2HC;
     block_kind reals = r2c ? IB : OB, complex = r2c ? OB : IB;
     INT n1, b1;
     if (!(p->I == p->O && p->sz->rnk > 1 && (r2c || p->kind == HC2R)
	   && XM(is_local_after)(1, p->sz, reals)))
	  return 0;
     if (p->flags == 0)
	  return XM(is_local_after)(1, p->sz, complex)
	       && d[0].b[complex] == d[0].b[reals];
     n1 = complex_n1(p, complex, &b1);
     return p->flags == (r2c ? TRANSPOSED_OUT : TRANSPOSED_IN)
	  && XM(is_local_after)(2, p->sz, complex)
	  && XM(num_blocks)(d[0].n, d[0].b[complex]) == 1
	  && n1 == d[0].n && b1 == d[0].b[reals];
}

/* The pipeline of chunks where it takes p, else the sliced one, J its
   slices. */
static int takes(const problem *p_, INT chunks, INT *J, int *sliced)
{
     const problem_mpi_rdft2 *p = (const problem_mpi_rdft2 *) p_;
     block_kind reals = p->kind == R2HC ? IB : OB;
     *sliced = !rows_fit(p_, chunks, J);
     if (!*sliced)
	  return 1;
     *J = slices_fit(p)
	  ? XM(pipeline_slices)(rows_fit, p_, p->sz->dims[0].n, p->sz->dims[0].b[reals],
				row_complex(p), chunks, p->flags != 0, p->comm)
	  : 0;
     return *J > 0;
}

static int applicable(const S *ego, const problem *p_, const planner *plnr,
		      INT *J, int *sliced)
{
     const problem_mpi_rdft2 *p = (const problem_mpi_rdft2 *) p_;
     return (takes(p_, ego->chunks, J, sliced)
	     && XM(pipelined_allowed)(p->comm, plnr) /* collective */
	     && (!NO_SLOWP(plnr) /* slow if rdft2-serial is applicable */
		 || !XM(rdft2_serial_applicable)(p)));
}

int XM(rdft2_pipelined_preempts)(const problem *p, const planner *plnr)
{
     UNUSED(plnr);
     return XM(pipeline_preempts)(takes, p, ((const problem_mpi_rdft2 *) p)->comm);
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
     p->print(p, "(mpi-rdft2-rank-geq2-pipelined");
     XM(pipeline_print)(&((const P *) ego_)->pl, p);
     p->print(p, ")");
}

static plan *mkplan(const solver *ego_, const problem *p_, planner *plnr)
{
     const S *ego = (const S *) ego_;
     const problem_mpi_rdft2 *p = (const problem_mpi_rdft2 *) p_;
     P *pln;
     pipeline pl;
     pipeline_rows rows = { 0 };
     tensor *sz;
     INT J, b, here, tests, last, C, L = 1;
     int i, n_pes, my_pe, rnk = p->sz->rnk, r2c = p->kind == R2HC, sliced;
     /* the vector's input and output strides: 1 for reals, 2 for complex */
     INT ivs = r2c ? 1 : 2, ovs = r2c ? 2 : 1;
     R *I = p->I, *ri = r2c ? I : I + 1, *ii = r2c ? I + 1 : I;
     static const plan_adt padt = {
          XM(rdft2_solve), awake, print, destroy
     };

     if (!applicable(ego, p_, plnr, &J, &sliced))
          return (plan *) 0;

     MPI_Comm_size(p->comm, &n_pes);
     MPI_Comm_rank(p->comm, &my_pe);
     b = p->sz->dims[0].n / n_pes;
     /* this process's rows: the sliced pipeline's may be none */
     here = sliced ? XM(block)(p->sz->dims[0].n, p->sz->dims[0].b[r2c ? IB : OB], my_pe) : b;
     last = p->sz->dims[rnk - 1].n;
     C = (last / 2 + 1) * p->vn; /* complex numbers per line */
     for (i = 1; i < rnk - 1; ++i)
	  L *= p->sz->dims[i].n;

     /* sliced: nothing travels beside stage 1 */
     tests = sliced ? 1 : XM(pipeline_stage1_tests)(b, ego->chunks, L * C, n_pes);
     if (rnk == 2 || tests <= 1) {
	  /* one row whole: the last rnk-1 dimensions, with vn, strided as
	     rdft2-rank-geq2's: the complex ones, the last cut to n/2+1 */
	  sz = X(mktensor)(rnk - 1);
	  i = rnk - 2;
	  sz->dims[i].is = sz->dims[i].os = 2 * p->vn;
	  sz->dims[i].n = last / 2 + 1;
	  for (--i; i >= 0; --i) {
	       sz->dims[i].n = p->sz->dims[i+1].n;
	       sz->dims[i].is = sz->dims[i].os = sz->dims[i+1].n * sz->dims[i+1].is;
	  }
	  sz->dims[rnk - 2].n = last;
	  rows.whole = X(mkplan_d)(plnr,
				   X(mkproblem_rdft2_d)(sz, XM(pipeline_row_vector)(here, p->vn, ivs, ovs),
							I, I + p->vn, I, I + 1, p->kind));
	  if (XM(any_true)(!rows.whole, p->comm)) goto nada;
     } else {
	  /* the L lines of the last dimension, then the C columns */
	  XM(pipeline_row_pieces)(&rows, L, C, tests);
	  rows.lines = X(mkplan_d)(plnr,
				   X(mkproblem_rdft2_d)(X(mktensor_1d)(last, 2 * p->vn, 2 * p->vn),
							X(mktensor_2d)(L / rows.line_pieces,
								       2 * C, 2 * C, p->vn, ivs, ovs),
							I, I + p->vn, I, I + 1, p->kind));
	  if (XM(any_true)(!rows.lines, p->comm)) goto nada;
	  if (!XM(pipeline_plan_columns)(&rows, plnr, p->sz, C, ri, ii, p->comm))
	       goto nada;
     }

     if (sliced ? !XM(pipeline_init_sliced)(&pl, plnr, I, r2c ? FFT_SIGN : -FFT_SIGN,
					    p->sz->dims[0].n, p->sz->dims[0].b[r2c ? IB : OB],
					    L * C, J, !r2c, p->flags != 0, &rows, p->comm)
	 : !XM(pipeline_init)(&pl, plnr, I, r2c ? FFT_SIGN : -FFT_SIGN,
			      p->sz->dims[0].n, b, L * C, J, ego->chunks,
			      p->flags == 0, !r2c, &rows, p->comm))
	  return (plan *) 0; /* on every process; rows destroyed */

     pln = MKPLAN_MPI_RDFT2(P, &padt, apply);
     pln->vn = p->vn;
     pln->roff = ri - I;
     pln->ioff = ii - I;
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
     static const solver_adt sadt = { PROBLEM_MPI_RDFT2, mkplan, 0 };
     S *slv = MKSOLVER(S, &sadt);
     slv->chunks = chunks;
     slv->preference = preference;
     return &(slv->super);
}

void XM(rdft2_rank_geq2_pipelined_register)(planner *p)
{
     static const INT chunks[] = PIPELINE_CHUNKS;
     int i;
     for (i = 0; i < (int) (sizeof chunks / sizeof *chunks); ++i)
	  REGISTER_SOLVER(p, mksolver(chunks[i], i));
}
