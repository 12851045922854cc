/*
 * rank-geq2-pipelined.c - the pipeline of the pipelined in-place
 * transforms of rank >= 2, which hide their global exchanges behind their
 * local FFTs (dft-rank-geq2-pipelined.c, rdft2-rank-geq2-pipelined.c).
 *
 * FFTW's rank-geq2 transforms run their parts one after the other: the
 * local transforms of the last dimensions of every row (stage 1), a
 * global transpose, the DFTs along the first dimension n0 (stage 2) and,
 * unless the output may stay transposed, a transpose back.  On many
 * processes the exchanges cost as much as a third of the whole; nothing
 * overlaps them.  Here each exchange is cut into chunks and runs as a
 * nonblocking plan of liballtoall_inplace (AIP_Plan_start/test/wait)
 * while the next chunk is computed, the computation calling
 * AIP_Plan_test between pieces of it so that the exchange advances.  Each
 * test refills the exchange's ring, so a chunk's computation is cut into
 * as many pieces as the exchange has steps, or one per budget's worth of
 * its bytes where that is more (exchange_tests): the two passes of each
 * row's local transform in groups of lines and of columns (stage 1), the
 * columns of a slice (stage 2), groups of columns a multiple of 128 bytes
 * wide (pipeline_cut).  The overlap of
 * nonblocking all-to-all and 3D FFTs is Hoefler, Gottschling,
 * Lumsdaine and Rehm, "Optimizing a Conjugate Gradient Solver with
 * Non-Blocking Collective Operations" (2007) and Kandalla et al.,
 * "High-Performance and Scalable Non-Blocking All-to-All with
 * Collective Offload on InfiniBand Clusters" (ISC 2011); both pay with
 * whole-array buffers.  Here every exchange is in place and one chunk
 * travels at a time, so the memory is the local array plus the one
 * exchange plan's aux budget ($AIP_AUX_BYTES), as for transpose-inplace.
 *
 * Each of the n_pes processes holds `rows` = n0 / n_pes rows; after
 * stage 1 a row is n_pes x J x yc complex numbers: process s's slice of
 * the second (transposed) dimension, itself J x yc.  With k chunks of
 * bc = rows / k rows:
 *
 *  forward   for each chunk c: stage 1 of its rows, in pieces; `pre`
 *            lays the chunk [xc][s][j][t] -> [s][j][xc][t], so that
 *            what goes to s is contiguous; its exchange starts once chunk
 *            c-1's is done.
 *            What arrives from s in chunk c's place is its rows of that
 *            chunk: the array is [c][s][j][xc][t].
 *  mid       `mid` lays it [j][s][c][xc][t]: row x = s rows + c bc + xc
 *            of the whole first dimension, so each j is an n0 x yc array
 *            whose columns stage 2 transforms with one stride.
 *  TRANSPOSED_OUT  J is the local rows of the second dimension and yc
 *            the rest: [j][x][t] is FFTW's transposed output, and stage 2
 *            runs on all of it.
 *  back      (flags 0, J = k) for each j: stage 2 of its n0 x yc columns,
 *            in pieces between tests; its exchange starts once j-1's is
 *            done.  Rows s rows .. (s+1) rows - 1 of j go to s, and what
 *            arrives is [j][s][row][t]; `post` lays it [row][s][j][t],
 *            which is the row-major output.
 *
 * edges     The last chunk's exchange and the last slice's have no
 *            computation beside them, but for the permutation that
 *            follows: mid's cycles that hold no tuple of the last chunk
 *            (with J = k, mid swaps chunk c's slice j with chunk j's slice
 *            c: 3/4 of its moves with 8 chunks) and post's clear of the
 *            last slice (about a third) move while it travels,
 *            in groups with a test after each; the rest after its wait.
 *
 * reversed  (c2r, whose c2r transforms of the last dimensions must come
 *            last) every part inverted, in the opposite order: `post`
 *            inverted (flags 0), then for each j the exchange of slice j+1
 *            travels while stage 2 runs on slice j (TRANSPOSED_IN: stage 2
 *            on all of [j][x][t]); `mid` inverted; then for each chunk c,
 *            chunk c+1 travels while chunk c is laid out by `pre` inverted
 *            and goes through stage 1.  The first slice and chunk travel
 *            beside the cycles of `post` and `mid` inverted clear of them.
 *
 * Correct in place because every exchange reads and writes only its own
 * chunk (forward) or slice (back), which no computation touches while it
 * travels: stage 1 works on chunk c+1, stage 2 on slice j+1 (reversed:
 * c and j, while c+1 and j+1 travel), and the permutations run only on
 * chunks not in flight, when no exchange is, or in cycles that hold no
 * tuple of the one in flight.  Both exchanges of flags
 * 0 have blocks of rows x yc complex, so one plan serves both.
 *
 * The cost against FFTW's rank-geq2: the same exchanges in 2k messages
 * per pair instead of 2, and three passes of local permutation (pre, mid,
 * post) against FFTW's four local transposes.  The planner sees no
 * overlap in an estimate, so the solvers compete only under
 * MEASURE/PATIENT across nodes, or when
 * FFTW_MPI_INPLACE_ALGORITHM=NAME-pipelined forces them
 * (transpose-inplace-choice.c).  The pipeline of chunks takes the shapes
 * whose exchanges are symmetric: n0, and the second dimension for
 * TRANSPOSED_OUT, divisible by the processes with FFTW's default blocks;
 * the rows by k; a row by processes x k.
 *
 * Uneven rows (flags 0 where no k fits: n0 not divisible by the
 * processes, say) cannot be cut in chunks of rows in place: a chunk comes
 * back from its exchange as large as it went only if every process holds
 * as many of its rows.  So the sliced pipeline (pipeline_init_sliced)
 * cuts each row's columns instead, where a row is n0 M complex numbers:
 * slice j is columns j W .. (j+1) W - 1, W = n0 m, m = M / k, and within
 * it process r's share is r's rows times m.  Process s sends r b_s x b_r
 * m and receives as much in the same place, so a slice's exchange is
 * symmetric whatever the blocks: an in-place Alltoallv plan whose
 * schedules are the symmetric algorithm's, and its own inverse.  After it
 * a slice holds the n0 x b_r m columns of stage 2.  Stage 1 runs on all
 * the rows first (reversed: last), with nothing beside it, since a slice
 * spans every row; then slice j's stage 2 runs while slice j+1 travels
 * forward and j-1 back, queued on the one plan.  The same argument holds:
 * each exchange touches only its slice, stage 2 only slice j.  Both
 * exchanges hide behind stage 2 alone (a third of a 3D transform's FFTs)
 * where the chunks have both stages to hide behind.  Where M has no
 * divisor near k (r2c 512^3 on 3 processes: M = 257, prime) the last
 * slice is wider, m + M mod k, with its own exchange plan, stage 2 and
 * permutations (pipeline->wider); the two plans, never in flight
 * together, take half the budget each.
 *
 * Uneven rows with transposed output (TRANSPOSED_OUT; TRANSPOSED_IN
 * reversed) are sliced the same way where the second dimension is as
 * long as n0, in the same blocks, as a cube's is: r's block of y is then
 * as long as its rows, so slice j, every y's columns j m .. (j+1) m - 1
 * of its M, has blocks b_s x b_r m both ways.  The slices travel once,
 * each beside the stage 2 of the slice before (reversed: after); `pre`
 * and `mid` move in one pass (tuple_compose_init: a third less time than
 * two), and `unslice` lays the slices out as FFTW's [y][x][M].  Its
 * slices are equal (a divisor of M near k): with a wider last one, pre
 * and unslice would move tuples of gcd(m, m_last) complex numbers, one
 * where M is prime.
 */

#include "mpi-dft.h"
#include "dft/dft.h"
#include "rank-geq2-pipelined.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* ---- The permutations (tuple-cycles.c) ----------------------------- */

/* [n0][n1][n2] -> the order o0, o1, o2 */
static void permutation_init(tuple_permutation *t, INT n0, INT n1, INT n2,
			     int o0, int o1, int o2, INT tuple)
{
     const INT n[3] = { n0, n1, n2 };
     const int order[3] = { o0, o1, o2 };
     XM(tuple_permutation_init)(t, 3, n, order, tuple);
}

/* A permutation's shape: "8x128x8-210", "86x3-86-84" (rows x segments,
   their sizes), two composed "225x5-10-then-9x3-9-7". */
static void print_shape(const tuple_permutation *t, printer *p)
{
     if (t->m == -1) {
	  print_shape(&t->parts[0], p);
	  p->print(p, "-then-");
	  print_shape(&t->parts[1], p);
     } else if (t->m == 0)
	  p->print(p, "%Dx%D-%D-%D", t->segments.rows, t->segments.count,
		   t->segments.width, t->segments.last);
     else if (t->m == 2)
	  p->print(p, "%Dx%D-%d%d", t->n[0], t->n[1], t->order[0], t->order[1]);
     else
	  p->print(p, "%Dx%Dx%D-%d%d%d", t->n[0], t->n[1], t->n[2],
		   t->order[0], t->order[1], t->order[2]);
}

/* "(mid-8x128x8-210-x8200-beside2688)": `beside` of its cycles move
   while an exchange travels. */
static void print_permutation(const tuple_permutation *t, const char *name,
			      INT beside, printer *p)
{
     p->print(p, "(%s-", name);
     print_shape(t, p);
     p->print(p, "-x%D", t->tuple);
     if (beside > 0)
	  p->print(p, "-beside%D", beside);
     p->print(p, ")");
}

/* ---- The exchange ---------------------------------------------------- */

static void check(const pipeline *pl, int rc)
{
     if (rc != MPI_SUCCESS) {
	  /* the library has printed what went wrong; a plan cannot say so */
	  char message[MPI_MAX_ERROR_STRING];
	  int len;
	  MPI_Error_string(rc, message, &len);
	  fprintf(stderr, "fftw_mpi: pipelined in-place exchange failed: %s\n",
		  message);
	  MPI_Abort(pl->comm, rc);
     }
}

static void advance(const pipeline *pl)
{
     int done;
     check(pl, AIP_Plan_test(pl->exchange, &done));
}

/* One block of every exchange is rows / k x J x yc = rows x yc complex
   numbers (J = k where there is an exchange back), in units of yc. */
static int plan_exchange(pipeline *pl, MPI_Comm comm)
{
     MPI_Datatype unit;
     AIP_Options options;
     int rc;

     MPI_Comm_dup(comm, &pl->comm);
     MPI_Comm_set_errhandler(pl->comm, MPI_ERRORS_RETURN);
     MPI_Type_contiguous((int) (2 * pl->yc), FFTW_MPI_TYPE, &unit);
     MPI_Type_commit(&unit);
     AIP_Options_init(&options);
     options.algorithm = XM(pipelined_algorithm)(comm);
     rc = AIP_Alltoall_init((int) (pl->rows / pl->chunks * pl->J), unit,
			    pl->comm, &options, &pl->exchange);
     MPI_Type_free(&unit);
     if (rc != MPI_SUCCESS)
	  MPI_Comm_free(&pl->comm);
     return rc == MPI_SUCCESS;
}

/* The sliced pipeline's exchange of one slice: process s holds rows b_s
   x n0 m complex numbers of it and sends r its b_s x b_r m (the columns
   of r's rows), in units of m; what r sends s is as large, to the same
   place (pipeline_init_sliced), so the schedules run it, and it is its
   own inverse.  On pl->comm, which the caller made. */
static int plan_exchange_sliced(pipeline *pl, INT block,
				const AIP_Options *options)
{
     MPI_Datatype unit;
     int *counts, *displs, r, rc;

     counts = (int *) MALLOC(2 * sizeof(int) * (size_t) pl->n_pes, OTHER);
     displs = counts + pl->n_pes;
     for (r = 0; r < pl->n_pes; ++r) {
	  counts[r] = (int) (pl->rows * XM(block)(pl->n0, block, r));
	  displs[r] = (int) (pl->rows * X(imin)(r * block, pl->n0));
     }
     MPI_Type_contiguous((int) (2 * pl->yc), FFTW_MPI_TYPE, &unit);
     MPI_Type_commit(&unit);
     rc = AIP_Alltoallv_init(counts, displs, unit, pl->comm, options,
			     &pl->exchange);
     MPI_Type_free(&unit);
     X(ifree)(counts);
     return rc == MPI_SUCCESS;
}

/* ---- The pipeline ---------------------------------------------------- */

int XM(pipeline_fits)(INT n0, INT rows, INT row_complex, INT J, INT chunks,
		      int n_pes)
{
     return n_pes > 1 && n0 == rows * n_pes
	  && rows % chunks == 0 && row_complex % (n_pes * J) == 0
	  && rows / chunks * J <= INT_MAX
	  && 2 * (row_complex / (n_pes * J)) <= INT_MAX;
}

/* FFTW_MEASURE zeroes and runs every candidate on the problem's own
   array, and a process that holds no row can have an array shorter than
   one (c2c 2x40 on 3 processes: fftw_mpi_local_size gives the third 24
   complex numbers, its 12 x 2 of the transposed layout, where a row is
   40): the plan of its rows must touch nothing, as FFTW's rank-geq2 plans
   its vector of no rows. */
tensor *XM(pipeline_row_vector)(INT rows_here, INT vn, INT is, INT os)
{
     return X(mktensor_1d)(rows_here > 0 ? vn : 0, is, os);
}

INT XM(pipeline_pieces)(INT n, INT target)
{
     INT below, above;
     target = X(imax)(1, X(imin)(target, n));
     for (below = target; n % below; --below)
	  ;
     for (above = target; n % above; ++above)
	  ;
     return above - target <= target - below ? above : below;
}

/* A test can at most refill the ring of the exchange in flight, the
   plan's aux budget, and moves it about one step on.  So an exchange of
   `bytes` per process wants a test per step, and one per budget's worth of
   bytes where that is more: with blocks larger than the budget (1024^3 on 16
   processes, 4 chunks: 8 MiB blocks, 1 MiB budget), one test per step left
   the ring empty for most of each piece of computation.  Two per budget
   hid no more there (SMPI, docs/results.md), in narrower pieces, which
   run slower per column. */
static INT exchange_tests(double bytes, int n_pes)
{
     AIP_Options options, resolved;
     double budget, by_bytes;
     AIP_Options_init(&options);
     if (AIP_Options_resolve(&options, &resolved) != MPI_SUCCESS)
	  return n_pes - 1; /* the exchange's planning will say what is wrong */
     budget = resolved.aux_bytes > 0 ? (double) resolved.aux_bytes : 1.0;
     by_bytes = bytes / budget;
     return by_bytes > (double) (n_pes - 1) ? (INT) by_bytes + 1 : n_pes - 1;
}

INT XM(pipeline_stage1_tests)(INT rows, INT chunks, INT row_complex,
			      int n_pes)
{
     INT bc = rows / chunks;
     INT tests = exchange_tests((double) bc * (double) row_complex
				* 2.0 * sizeof(R), n_pes);
     return (tests + bc - 1) / bc;
}

pipeline_cut XM(pipeline_cut_columns)(INT C, INT target)
{
     const INT group = PIPELINE_COLUMN_BYTES / (2 * (INT) sizeof(R));
     pipeline_cut cut;
     target = X(imax)(1, X(imin)(target, C));
     /* the multiple of `group` nearest C / target, at least one group */
     cut.width = X(imax)(group, (C / target + group / 2) / group * group);
     cut.pieces = C / cut.width;
     if (cut.pieces <= 1) {
	  cut.pieces = 1;
	  cut.width = C;
     }
     cut.last = C - (cut.pieces - 1) * cut.width;
     return cut;
}

void XM(pipeline_row_pieces)(pipeline_rows *r, INT L, INT C, INT tests)
{
     r->cut = XM(pipeline_cut_columns)(C, (tests + 1) / 2);
     /* the lines make up what the columns could not (C narrow) */
     r->line_pieces = XM(pipeline_pieces)(L, tests - r->cut.pieces);
     r->line_step = 2 * C * (L / r->line_pieces);
}

/* The DFTs of dims over `columns` side by side, in place on ri/ii. */
static plan *plan_columns(planner *plnr, const tensor *dims, INT columns,
			  R *ri, R *ii)
{
     return X(mkplan_d)(plnr,
			X(mkproblem_dft_d)(X(tensor_copy)(dims),
					   X(mktensor_1d)(columns, 2, 2),
					   ri, ii, ri, ii));
}

/* Stage 2 beside an exchange: `width` columns of n0 numbers, rows
   `stride` complex numbers apart, cut for `tests` tests; 0 where FFTW
   planned none (pl->cld2 and cld2_last then as far as they got). */
static int plan_stage2(pipeline *pl, planner *plnr, INT n0, INT width,
		       INT stride, INT tests, R *ri, R *ii)
{
     tensor *dims = X(mktensor_1d)(n0, 2 * stride, 2 * stride);
     pl->cut2 = XM(pipeline_cut_columns)(width, tests);
     pl->cld2 = plan_columns(plnr, dims, pl->cut2.width, ri, ii);
     if (pl->cut2.last != pl->cut2.width)
	  pl->cld2_last = plan_columns(plnr, dims, pl->cut2.last, ri, ii);
     X(tensor_destroy)(dims);
     return pl->cld2 && (pl->cut2.last == pl->cut2.width || pl->cld2_last);
}

static void stage2_destroy(pipeline *pl)
{
     X(plan_destroy_internal)(pl->cld2_last);
     X(plan_destroy_internal)(pl->cld2);
     pl->cld2 = pl->cld2_last = 0;
}

int XM(pipeline_plan_columns)(pipeline_rows *r, planner *plnr,
			      const dtensor *sz, INT C, R *ri, R *ii,
			      MPI_Comm comm)
{
     tensor *dims = XM(pipeline_outer_dims)(sz, C);
     int wider = r->cut.last != r->cut.width;
     r->columns = plan_columns(plnr, dims, r->cut.width, ri, ii);
     if (wider)
	  r->columns_last = plan_columns(plnr, dims, r->cut.last, ri, ii);
     X(tensor_destroy)(dims);
     return !XM(any_true)(!r->columns || (wider && !r->columns_last), comm);
}

/* The plan of piece q of a cut planned as `piece` and `last`. */
static plan *cut_piece(const pipeline_cut *cut, INT q, plan *piece, plan *last)
{
     return q == cut->pieces - 1 && last ? last : piece;
}

tensor *XM(pipeline_outer_dims)(const dtensor *sz, INT columns)
{
     int i;
     tensor *t = X(mktensor)(sz->rnk - 2);
     INT stride = 2 * columns;
     for (i = sz->rnk - 3; i >= 0; --i) {
	  t->dims[i].n = sz->dims[i+1].n;
	  t->dims[i].is = t->dims[i].os = stride;
	  stride *= sz->dims[i+1].n;
     }
     return t;
}

static void rows_destroy(const pipeline_rows *r)
{
     X(plan_destroy_internal)(r->columns_last);
     X(plan_destroy_internal)(r->columns);
     X(plan_destroy_internal)(r->lines);
     X(plan_destroy_internal)(r->whole);
}

pipeline_row_pass XM(pipeline_row_piece)(const pipeline_rows *r, INT piece,
					 R **at, plan **cld)
{
     if (r->whole) {
	  *cld = r->whole;
	  return ROW_WHOLE;
     }
     if (r->columns_first) /* as the lines first, the passes swapped */
	  piece = piece < r->cut.pieces
	       ? r->line_pieces + piece : piece - r->cut.pieces;
     if (piece < r->line_pieces) {
	  *cld = r->lines;
	  *at += piece * r->line_step;
	  return ROW_LINES;
     }
     piece -= r->line_pieces;
     *cld = cut_piece(&r->cut, piece, r->columns, r->columns_last);
     *at += piece * 2 * r->cut.width;
     return ROW_COLUMNS;
}

int XM(pipeline_rows_take)(pipeline_rows_fit_fn fits, const problem *p)
{
     static const INT chunks[] = PIPELINE_CHUNKS;
     INT J;
     int i;
     for (i = 0; i < (int) (sizeof chunks / sizeof *chunks); ++i)
	  if (fits(p, chunks[i], &J))
	       return 1;
     return 0;
}

int XM(pipeline_preempts)(pipeline_takes_fn takes, const problem *p,
			  MPI_Comm comm)
{
     static const INT chunks[] = PIPELINE_CHUNKS;
     INT J;
     int i, sliced;
     for (i = 0; i < (int) (sizeof chunks / sizeof *chunks); ++i)
	  if (takes(p, chunks[i], &J, &sliced))
	       return XM(pipelined_forced)(comm); /* collective */
     return 0;
}

/* How many slices the instance of `chunks` cuts a row's M into: a
   divisor of M near it (half to twice), else `chunks`, all M / chunks but
   the last, which takes the rest, if that is less than twice the others:
   r2c 512^3 on 3 processes has M = 257, prime. */
static INT slice_count(INT M, INT chunks)
{
     INT d = XM(pipeline_pieces)(M, chunks);
     if (d >= 2 && 2 * d >= chunks && d <= 2 * chunks)
	  return d;
     return M / chunks >= M % chunks ? chunks : 0;
}

INT XM(pipeline_slices)(pipeline_rows_fit_fn fits, const problem *p, INT n0,
			INT block, INT row_complex, INT chunks, int transposed,
			MPI_Comm comm)
{
     static const INT counts[] = PIPELINE_CHUNKS;
     INT M, slices, widest;
     int i, n_pes;
     if (XM(pipeline_rows_take)(fits, p))
	  return 0;
     MPI_Comm_size(comm, &n_pes);
     if (n_pes < 2 || block <= 0 || block >= n0 || row_complex % n0)
	  return 0; /* one process with rows: nothing to exchange */
     M = row_complex / n0;
     slices = slice_count(M, chunks);
     if (transposed && slices > 0 && M % slices)
	  return 0; /* the transposed output wants equal slices */
     for (i = 0; counts[i] != chunks; ++i)
	  if (slice_count(M, counts[i]) == slices)
	       return 0; /* an instance before planned these slices */
     /* the exchange's counts block^2 and displacements n0 block, in units
	of m complex numbers (2 m reals), the last slice's the widest */
     widest = slices > 0 ? M - (slices - 1) * (M / slices) : 0;
     if (slices < 2 || (double) block * (double) n0 > (double) INT_MAX
	 || 2 * widest > INT_MAX)
	  return 0;
     return slices;
}

int XM(pipeline_init)(pipeline *pl, planner *plnr, R *data, int sign,
		      INT n0, INT rows, INT row_complex, INT J, INT chunks,
		      int back, int reversed, const pipeline_rows *stage1,
		      MPI_Comm comm)
{
     R *ri, *ii;
     INT bc = rows / chunks, yc;
     int planned;

     memset(pl, 0, sizeof *pl);
     MPI_Comm_size(comm, &pl->n_pes);
     pl->rows = rows;
     pl->chunks = chunks;
     pl->J = J;
     pl->n0 = n0;
     pl->back = back;
     pl->reversed = reversed;
     pl->sign = sign;
     pl->yc = yc = row_complex / (pl->n_pes * J);
     pl->comm = MPI_COMM_NULL;

     X(extract_reim)(sign, data, &ri, &ii);
     if (back) /* a slice's stage 2 tests as its exchange wants (exchange_tests) */
	  planned = plan_stage2(pl, plnr, n0, yc, yc, X(imax)(exchange_tests(
		    (double) n0 * (double) yc * 2.0 * sizeof(R), pl->n_pes), 2),
				ri, ii);
     else { /* TRANSPOSED_OUT: all J slices at once */
	  tensor *dims = X(mktensor_1d)(n0, 2 * yc, 2 * yc);
	  pl->cut2.pieces = 1;
	  pl->cut2.width = pl->cut2.last = J * yc;
	  pl->cld2 = X(mkplan_d)(plnr,
				 X(mkproblem_dft_d)(dims,
						    X(mktensor_2d)(J, 2 * n0 * yc, 2 * n0 * yc,
								   yc, 2, 2),
						    ri, ii, ri, ii));
	  planned = pl->cld2 != 0;
     }
     if (XM(any_true)(!planned, comm) || !plan_exchange(pl, comm)) {
	  stage2_destroy(pl);
	  rows_destroy(stage1);
	  return 0;
     }
     pl->stage1 = *stage1;
     pl->stage1.columns_first = reversed;

     {
	  /* the tuples of one chunk (mid) and of one slice (post) */
	  INT chunk = pl->n_pes * J, slice = pl->n_pes * rows;
	  if (!reversed) {
	       /* [xc][s][j][t] -> [s][j][xc][t] within a chunk */
	       permutation_init(&pl->pre, bc, pl->n_pes, J, 1, 2, 0, 2 * yc);
	       /* [c][s][j][xc t] -> [j][s][c][xc t]; beside the last chunk */
	       permutation_init(&pl->mid, chunks, pl->n_pes, J, 2, 1, 0, 2 * bc * yc);
	       pl->mid_beside = XM(tuple_permutation_defer)(&pl->mid, (chunks - 1) * chunk,
							    chunks * chunk);
	       /* [j][s][row][t] -> [row][s][j][t]; beside the last slice */
	       if (back) {
		    permutation_init(&pl->post, J, pl->n_pes, rows, 2, 1, 0, 2 * yc);
		    pl->post_beside = XM(tuple_permutation_defer)(&pl->post, (J - 1) * slice,
								  J * slice);
	       }
	  } else { /* the inverses, beside the first chunk and slice */
	       permutation_init(&pl->pre, pl->n_pes, J, bc, 2, 0, 1, 2 * yc);
	       permutation_init(&pl->mid, J, pl->n_pes, chunks, 2, 1, 0, 2 * bc * yc);
	       pl->mid_beside = XM(tuple_permutation_defer)(&pl->mid, 0, chunk);
	       if (back) {
		    permutation_init(&pl->post, rows, pl->n_pes, J, 2, 1, 0, 2 * yc);
		    pl->post_beside = XM(tuple_permutation_defer)(&pl->post, 0, slice);
	       }
	  }
	  pl->mid_tests = X(imin)(pl->mid_beside,
				  exchange_tests((double) bc * (double) row_complex
						 * 2.0 * sizeof(R), pl->n_pes));
	  pl->post_tests = X(imin)(pl->post_beside,
				   exchange_tests((double) n0 * (double) yc
						  * 2.0 * sizeof(R), pl->n_pes));
     }
     return 1;
}

/* Whether the sliced pipeline's slices travel before their stage 2
   (flags 0, TRANSPOSED_OUT), laid out by mid, and after it (flags 0's
   way back, TRANSPOSED_IN), then laid out by post. */
static int slices_travel_before(const pipeline *pl)
{
     return pl->back || !pl->reversed;
}

static int slices_travel_after(const pipeline *pl)
{
     return pl->back || pl->reversed;
}

/* The pieces of one width of slice, n0 m complex numbers of each of
   pl->rows rows (m = pl->yc): stage 2 of its n0 x rows m columns beside
   two exchanges, its exchange, and mid and post (those it needs),
   whose cycles move beside the first slice's exchange and the last's, in
   groups that test it, between them, as often as it wants.  0 if
   anything failed on some process, what it planned kept in pl. */
static int plan_slice(pipeline *pl, planner *plnr, R *ri, R *ii, INT block,
		      INT slices, const AIP_Options *options)
{
     INT b = pl->rows, width = b * pl->yc, tests;
     INT segments = XM(num_blocks)(pl->n0, block);
     INT last = pl->n0 - (segments - 1) * block;
     int planned;

     tests = 2 * exchange_tests((double) pl->n0 * (double) width * 2.0 * sizeof(R),
				pl->n_pes);
     planned = width == 0 /* no rows here */
	  || plan_stage2(pl, plnr, pl->n0, width, width, tests, ri, ii);
     if (XM(any_true)(!planned, pl->comm) || !plan_exchange_sliced(pl, block, options))
	  return 0;
     if (slices_travel_before(pl))
	  XM(tuple_segments_init)(&pl->mid, b, segments, block, last, 0, 2 * pl->yc);
     if (slices_travel_after(pl))
	  XM(tuple_segments_init)(&pl->post, b, segments, block, last, 1, 2 * pl->yc);
     pl->mid_beside = pl->mid.cycles;
     pl->post_beside = pl->post.cycles;
     tests = exchange_tests((double) b * (double) pl->n0 * (double) pl->yc
			    * 2.0 * sizeof(R), pl->n_pes);
     pl->mid_tests = X(imin)(pl->mid.cycles, (tests + slices - 2) / (slices - 1));
     pl->post_tests = X(imin)(pl->post.cycles, (tests + slices - 2) / (slices - 1));
     return 1;
}

static void slice_destroy(pipeline *pl)
{
     XM(tuple_permutation_free)(&pl->mid);
     XM(tuple_permutation_free)(&pl->post);
     if (pl->exchange)
	  AIP_Plan_free(&pl->exchange); /* before comm, which carries it */
     stage2_destroy(pl);
}

/* Half the aux budget, for each of two exchange plans that are never in
   flight together. */
static long long half_budget(void)
{
     AIP_Options options, resolved;
     AIP_Options_init(&options);
     if (AIP_Options_resolve(&options, &resolved) != MPI_SUCCESS)
	  return AIP_AUX_BYTES_DEFAULT; /* the exchange's planning will say why */
     return resolved.aux_bytes / 2;
}

/* Uneven rows: slice j of every row is columns j W .. (j+1) W - 1, W =
   n0 m (the last slice n0 m_last wide, m_last = M - (slices - 1) m);
   within it process r's columns are r's rows times m.  `pre` lays the
   rows [x][j][W] as slices [j][x][W] and `mid` each slice [x][r][w_r] ->
   [r][x][w_r] (segments, w_r = b_r m): the block for r contiguous.
   After the exchange a slice is [r][b_r][w_s] = the n0 x w_s columns of
   stage 2; the exchange back returns it to [r][x][w_r], `post` lays it
   [x][r][w_r] and `unslice` the slices back as rows.  A wider last slice
   has its own exchange, stage 2, mid and post (pl->wider), and the two
   exchange plans half the budget each.

   Transposed, a row is [y][t], y the second dimension (n0 long, in n0's
   blocks) and t the M complex numbers of the others: slice j is every
   y's t = j m .. (j+1) m - 1, so that r's columns are its y.  `pre` lays
   [x][y][j][t] as [j][x][y][t] (a transpose in tuples of m) and `mid`
   each slice as above, in one pass; after the exchange slice j is
   [x][y_s][t], the n0 x b_s m columns of stage 2; `unslice` lays
   [j][x][y_s][t] as FFTW's transposed [y_s][x][j][t].  Its slices are
   equal: with a wider one, pre and unslice would move tuples of gcd(m,
   m_last), as small as one complex number. */
int XM(pipeline_init_sliced)(pipeline *pl, planner *plnr, R *data, int sign,
			     INT n0, INT block, INT row_complex, INT slices,
			     int reversed, int transposed,
			     const pipeline_rows *stage1, MPI_Comm comm)
{
     INT M = row_complex / n0, m = M / slices, m_last = M - (slices - 1) * m;
     INT g = XM(tuple_gcd)(m, m_last);
     AIP_Options options;
     R *ri, *ii;
     int rank;

     memset(pl, 0, sizeof *pl);
     MPI_Comm_size(comm, &pl->n_pes);
     MPI_Comm_rank(comm, &rank);
     pl->sliced = 1;
     pl->rows = XM(block)(n0, block, rank);
     pl->chunks = pl->J = slices;
     pl->n0 = n0;
     pl->back = !transposed;
     pl->reversed = reversed;
     pl->sign = sign;
     pl->yc = m;
     pl->stage1 = *stage1;
     A(!transposed || m_last == m); /* XM(pipeline_slices) */
     MPI_Comm_dup(comm, &pl->comm);
     MPI_Comm_set_errhandler(pl->comm, MPI_ERRORS_RETURN);
     AIP_Options_init(&options);
     options.algorithm = XM(pipelined_algorithm)(comm);
     X(extract_reim)(sign, data, &ri, &ii);

     if (m_last != m) {
	  pipeline *w = pl->wider = (pipeline *) MALLOC(sizeof *w, PLANS);
	  memset(w, 0, sizeof *w);
	  w->n_pes = pl->n_pes;
	  w->rows = pl->rows;
	  w->n0 = n0;
	  w->back = 1;
	  w->reversed = reversed;
	  w->sign = sign;
	  w->yc = m_last;
	  w->comm = pl->comm; /* pl's */
	  options.aux_bytes = half_budget();
     }
     if (!plan_slice(pl, plnr, ri, ii, block, slices, &options)
	 || (pl->wider && !plan_slice(pl->wider, plnr, ri, ii, block, slices,
				      &options))) {
	  XM(pipeline_destroy)(pl);
	  return 0;
     }

     if (transposed) {
	  /* tuples of m complex numbers, a slice b n0 of them; TRANSPOSED_IN:
	     the inverses, the output's first.  pre and mid (reversed: post
	     and unslice) in one pass, whose cycles clear of the slice that
	     travels beside it (the first; reversed: the last) move while it
	     does. */
	  INT b = pl->rows, span = b * n0;
	  tuple_permutation rows_to_slices;
	  if (!reversed) {
	       XM(tuple_transpose_init)(&rows_to_slices, span, slices, 2 * m);
	       XM(tuple_compose_init)(&pl->pre, &rows_to_slices, &pl->mid, span);
	       permutation_init(&pl->unslice, slices, n0, b, 2, 1, 0, 2 * m);
	       pl->lay_beside = XM(tuple_permutation_defer)(&pl->pre, 0, span);
	  } else {
	       permutation_init(&pl->pre, b, n0, slices, 2, 1, 0, 2 * m);
	       XM(tuple_transpose_init)(&rows_to_slices, slices, span, 2 * m);
	       XM(tuple_compose_init)(&pl->unslice, &pl->post, &rows_to_slices, span);
	       pl->lay_beside = XM(tuple_permutation_defer)(&pl->unslice,
							    (slices - 1) * span,
							    slices * span);
	  }
	  XM(tuple_permutation_free)(&rows_to_slices);
	  pl->lay_tests = X(imin)(pl->lay_beside,
				  exchange_tests((double) span * (double) m
						 * 2.0 * sizeof(R), pl->n_pes));
	  return 1;
     }
     /* the slices' tuples: n0 g complex numbers (a whole slice where the
	slices are equal) */
     XM(tuple_segments_init)(&pl->pre, pl->rows, slices, m / g, m_last / g, 0,
			     2 * n0 * g);
     XM(tuple_segments_init)(&pl->unslice, pl->rows, slices, m / g, m_last / g,
			     1, 2 * n0 * g);
     return 1;
}

void XM(pipeline_destroy)(pipeline *pl)
{
     if (pl->wider) {
	  slice_destroy(pl->wider);
	  X(ifree)(pl->wider);
	  pl->wider = 0;
     }
     XM(tuple_permutation_free)(&pl->unslice);
     XM(tuple_permutation_free)(&pl->pre);
     slice_destroy(pl);
     if (pl->comm != MPI_COMM_NULL)
	  MPI_Comm_free(&pl->comm);
     rows_destroy(&pl->stage1);
}

void XM(pipeline_awake)(pipeline *pl, enum wakefulness wakefulness)
{
     X(plan_awake)(pl->cld2, wakefulness);
     X(plan_awake)(pl->cld2_last, wakefulness);
     X(plan_awake)(pl->stage1.whole, wakefulness);
     X(plan_awake)(pl->stage1.lines, wakefulness);
     X(plan_awake)(pl->stage1.columns, wakefulness);
     X(plan_awake)(pl->stage1.columns_last, wakefulness);
     if (pl->wider)
	  XM(pipeline_awake)(pl->wider, wakefulness);
}

/* Piece q of stage 2 in place on the complex numbers at a (where the
   piece starts): as planned, for data. */
static void stage2(const pipeline *pl, INT q, R *a)
{
     plan *cld = cut_piece(&pl->cut2, q, pl->cld2, pl->cld2_last);
     R *ri, *ii;
     X(extract_reim)(pl->sign, a, &ri, &ii);
     ((plan_dft *) cld)->apply(cld, ri, ii, ri, ii);
}

/* The cycles of t that are clear of the exchange in flight (the first
   `beside`), in `tests` groups with a test of the exchange after each. */
static void permute_beside(const pipeline *pl, const tuple_permutation *t,
			   INT beside, INT tests, R *data)
{
     INT g;
     for (g = 0; g < tests; ++g) {
	  XM(permute_tuple_cycles)(t, data, beside * g / tests,
				   beside * (g + 1) / tests);
	  advance(pl);
     }
}

/* The cycles of t that hold tuples of the chunk or slice that travels
   beside the others (all but the first `beside`): they move before it
   starts or once it has arrived. */
static void permute_held(const tuple_permutation *t, INT beside, R *data)
{
     XM(permute_tuple_cycles)(t, data, beside, t->cycles);
}

/* Where the parts are: the rows of a chunk, the reals of a row, of a
   slice and of a piece of a slice's stage 2, and the pieces of a row's
   stage 1. */
typedef struct {
     INT bc, row, slice, piece2, pieces1;
} pipeline_layout;

static pipeline_layout layout(const pipeline *pl)
{
     pipeline_layout l;
     l.bc = pl->rows / pl->chunks;
     l.row = 2 * pl->n_pes * pl->J * pl->yc;
     l.slice = 2 * pl->n0 * pl->yc;
     l.piece2 = 2 * pl->cut2.width;
     l.pieces1 = pl->stage1.whole ? 1
	  : pl->stage1.line_pieces + pl->stage1.cut.pieces;
     return l;
}

static void apply_forward(const pipeline *pl, const plan *owner,
			  pipeline_row_fn stage1, R *data)
{
     const pipeline_layout l = layout(pl);
     INT c, r, j, q;

     /* forward: chunk c travels while chunk c+1 goes through stage 1 */
     for (c = 0; c < pl->chunks; ++c) {
	  R *chunk = data + c * l.bc * l.row;
	  for (r = 0; r < l.bc; ++r)
	       for (q = 0; q < l.pieces1; ++q) {
		    stage1(owner, chunk + r * l.row, q);
		    if (c > 0) advance(pl);
	       }
	  XM(permute_tuples)(&pl->pre, chunk);
	  if (c > 0) check(pl, AIP_Plan_wait(pl->exchange));
	  check(pl, AIP_Plan_start(pl->exchange, chunk));
     }
     /* the last chunk travels while mid moves what is clear of it */
     permute_beside(pl, &pl->mid, pl->mid_beside, pl->mid_tests, data);
     check(pl, AIP_Plan_wait(pl->exchange));
     permute_held(&pl->mid, pl->mid_beside, data);

     if (!pl->back) { /* TRANSPOSED_OUT: [j][x][t] is the output */
	  stage2(pl, 0, data);
	  return;
     }

     /* back: slice j travels while slice j+1 goes through stage 2 */
     for (j = 0; j < pl->J; ++j) {
	  R *at = data + j * l.slice;
	  for (q = 0; q < pl->cut2.pieces; ++q) {
	       stage2(pl, q, at + q * l.piece2);
	       if (j > 0) advance(pl);
	  }
	  if (j > 0) check(pl, AIP_Plan_wait(pl->exchange));
	  check(pl, AIP_Plan_start(pl->exchange, at));
     }
     permute_beside(pl, &pl->post, pl->post_beside, pl->post_tests, data);
     check(pl, AIP_Plan_wait(pl->exchange));
     permute_held(&pl->post, pl->post_beside, data);
}

/* apply_forward's inverse, backwards: slice j+1 travels while slice j
   goes through stage 2, chunk c+1 while chunk c goes through stage 1. */
static void apply_reversed(const pipeline *pl, const plan *owner,
			   pipeline_row_fn stage1, R *data)
{
     const pipeline_layout l = layout(pl);
     INT c, r, j, q;

     if (pl->back) {
	  /* slice 0 travels while post moves what is clear of it */
	  permute_held(&pl->post, pl->post_beside, data);
	  check(pl, AIP_Plan_start(pl->exchange, data));
	  permute_beside(pl, &pl->post, pl->post_beside, pl->post_tests, data);
	  for (j = 0; j < pl->J; ++j) {
	       R *at = data + j * l.slice;
	       int next = j + 1 < pl->J;
	       check(pl, AIP_Plan_wait(pl->exchange));
	       if (next) check(pl, AIP_Plan_start(pl->exchange, at + l.slice));
	       for (q = 0; q < pl->cut2.pieces; ++q) {
		    stage2(pl, q, at + q * l.piece2);
		    if (next) advance(pl);
	       }
	  }
     } else /* TRANSPOSED_IN: the input is [j][x][t] */
	  stage2(pl, 0, data);
     permute_held(&pl->mid, pl->mid_beside, data);
     check(pl, AIP_Plan_start(pl->exchange, data));
     permute_beside(pl, &pl->mid, pl->mid_beside, pl->mid_tests, data);
     for (c = 0; c < pl->chunks; ++c) {
	  R *chunk = data + c * l.bc * l.row;
	  int next = c + 1 < pl->chunks;
	  check(pl, AIP_Plan_wait(pl->exchange));
	  if (next) check(pl, AIP_Plan_start(pl->exchange, chunk + l.bc * l.row));
	  XM(permute_tuples)(&pl->pre, chunk);
	  for (r = 0; r < l.bc; ++r)
	       for (q = 0; q < l.pieces1; ++q) {
		    stage1(owner, chunk + r * l.row, q);
		    if (next) advance(pl);
	       }
     }
}

/* Slice j's exchange, stage 2, mid and post: the wider last slice's own
   where it has them. */
static const pipeline *slice_pieces(const pipeline *pl, INT j)
{
     return j == pl->J - 1 && pl->wider ? pl->wider : pl;
}

/* The sliced pipeline's exchanges, started one after the other as each
   test finds the one before done: slice j+1's forward, then slice j-1's
   back, while stage 2 runs on slice j; each on its slice's plan. */
typedef struct {
     const pipeline *pieces[2];
     R *slices[2];
     int queued, started;
     const pipeline *in_flight;
} exchange_queue;

static void queue_push(exchange_queue *q, const pipeline *pieces, R *slice)
{
     q->pieces[q->queued] = pieces;
     q->slices[q->queued++] = slice;
}

static void queue_advance(exchange_queue *q)
{
     if (q->in_flight) {
	  int done;
	  check(q->in_flight, AIP_Plan_test(q->in_flight->exchange, &done));
	  if (done)
	       q->in_flight = 0;
     }
     if (!q->in_flight && q->started < q->queued) {
	  q->in_flight = q->pieces[q->started];
	  check(q->in_flight, AIP_Plan_start(q->in_flight->exchange,
					     q->slices[q->started++]));
     }
}

static void queue_drain(exchange_queue *q)
{
     while (q->in_flight || q->started < q->queued) {
	  if (q->in_flight)
	       check(q->in_flight, AIP_Plan_wait(q->in_flight->exchange));
	  q->in_flight = 0;
	  queue_advance(q);
     }
}

/* Uneven rows (pipeline_init_sliced): stage 1 of every row (reversed:
   last), the slices laid out, then slice j's stage 2 while j+1 travels
   forward and j-1 back; the exchange is its own inverse, so reversed
   runs the same exchanges with stage 2 inverse between them.
   Transposed, the slices travel once: TRANSPOSED_OUT's while the slice
   before goes through stage 2, TRANSPOSED_IN's while the slice after
   does.  Slices start every `slice` reals, the last one as wide or
   wider. */
static void apply_sliced(const pipeline *pl, const plan *owner,
			 pipeline_row_fn stage1, R *data)
{
     const pipeline *last = slice_pieces(pl, pl->J - 1);
     const INT slice = 2 * pl->rows * pl->n0 * pl->yc;
     const INT row = 2 * pl->n0 * ((pl->J - 1) * pl->yc + last->yc);
     const int before = slices_travel_before(pl), after = slices_travel_after(pl);
     INT x, j, q;

     if (!pl->reversed)
	  for (x = 0; x < pl->rows; ++x)
	       stage1(owner, data + x * row, 0);
     if (!pl->back && !pl->reversed) {
	  /* TRANSPOSED_OUT: the first slice travels while pre (with mid)
	     moves the cycles clear of it */
	  permute_held(&pl->pre, pl->lay_beside, data);
	  check(pl, AIP_Plan_start(pl->exchange, data));
	  permute_beside(pl, &pl->pre, pl->lay_beside, pl->lay_tests, data);
	  check(pl, AIP_Plan_wait(pl->exchange));
     } else
	  XM(permute_tuples)(&pl->pre, data);
     if (pl->back) { /* the first slice travels while mid lays out the others */
	  XM(permute_tuples)(&pl->mid, data);
	  check(pl, AIP_Plan_start(pl->exchange, data));
	  for (j = 1; j < pl->J; ++j) {
	       const pipeline *s = slice_pieces(pl, j);
	       permute_beside(pl, &s->mid, s->mid_beside, s->mid_tests,
			      data + j * slice);
	  }
	  check(pl, AIP_Plan_wait(pl->exchange));
     }

     for (j = 0; j < pl->J; ++j) {
	  const pipeline *s = slice_pieces(pl, j);
	  R *at = data + j * slice;
	  exchange_queue queue = { { 0, 0 }, { 0, 0 }, 0, 0, 0 };
	  if (before && j + 1 < pl->J)
	       queue_push(&queue, slice_pieces(pl, j + 1), at + slice);
	  if (after && j > 0)
	       queue_push(&queue, pl, at - slice);
	  queue_advance(&queue);
	  for (q = 0; q < s->cut2.pieces; ++q) {
	       stage2(s, q, at + q * 2 * s->cut2.width);
	       queue_advance(&queue);
	  }
	  queue_drain(&queue);
     }

     if (pl->back) { /* the last slice travels while post lays out the others */
	  check(pl, AIP_Plan_start(last->exchange, data + (pl->J - 1) * slice));
	  for (j = 0; j + 1 < pl->J; ++j)
	       permute_beside(last, &pl->post, pl->post_beside, pl->post_tests,
			      data + j * slice);
	  check(pl, AIP_Plan_wait(last->exchange));
	  XM(permute_tuples)(&last->post, data + (pl->J - 1) * slice);
	  XM(permute_tuples)(&pl->unslice, data);
     } else if (pl->reversed) {
	  /* TRANSPOSED_IN: the last slice travels while unslice (with post)
	     moves the cycles clear of it */
	  check(pl, AIP_Plan_start(pl->exchange, data + (pl->J - 1) * slice));
	  permute_beside(pl, &pl->unslice, pl->lay_beside, pl->lay_tests, data);
	  check(pl, AIP_Plan_wait(pl->exchange));
	  permute_held(&pl->unslice, pl->lay_beside, data);
     } else
	  XM(permute_tuples)(&pl->unslice, data);
     if (pl->reversed)
	  for (x = 0; x < pl->rows; ++x)
	       stage1(owner, data + x * row, 0);
}

void XM(pipeline_apply)(const pipeline *pl, const plan *owner,
			pipeline_row_fn stage1, R *data)
{
     if (pl->sliced)
	  apply_sliced(pl, owner, stage1, data);
     else
	  (pl->reversed ? apply_reversed : apply_forward)(pl, owner, stage1, data);
}

/* "(NAME/PIECES(plan))", or where the last piece is wider
   "(NAME/PIECES-lastCOLUMNS(plan)(the last's plan))" */
static void print_cut(const char *name, const pipeline_cut *cut,
		      const plan *piece, const plan *last, printer *p)
{
     p->print(p, "(%s/%D", name, cut->pieces);
     if (last)
	  p->print(p, "-last%D%(%p%)%(%p%))", cut->last, piece, last);
     else
	  p->print(p, "%(%p%))", piece);
}

static void print_stage1(const pipeline_rows *r, printer *p)
{
     if (r->whole) {
	  p->print(p, "%(%p%)", r->whole);
	  return;
     }
     if (!r->columns_first)
	  p->print(p, "(lines/%D%(%p%))", r->line_pieces, r->lines);
     print_cut("columns", &r->cut, r->columns, r->columns_last, p);
     if (r->columns_first)
	  p->print(p, "(lines/%D%(%p%))", r->line_pieces, r->lines);
}

static void print_stage2(const pipeline *pl, printer *p)
{
     print_cut("stage2", &pl->cut2, pl->cld2, pl->cld2_last, p);
}

/* "(stage1)(pre...)(mid...)(stage2)(post...)(unslice...)", stage 1 last
   where reversed; a wider last slice's own parts after the others',
   "(last-mM(mid...)(stage2)(post...))". */
static void print_slice(const pipeline *pl, printer *p)
{
     if (pl->back) /* transposed: in pre or unslice */
	  print_permutation(&pl->mid, "mid", 0, p);
     if (pl->cld2)
	  print_stage2(pl, p);
     if (pl->back)
	  print_permutation(&pl->post, "post", 0, p);
}

static void print_sliced(const pipeline *pl, printer *p)
{
     if (!pl->reversed)
	  print_stage1(&pl->stage1, p);
     print_permutation(&pl->pre, "pre",
		       pl->back || pl->reversed ? 0 : pl->lay_beside, p);
     print_slice(pl, p);
     if (pl->wider) {
	  p->print(p, "(last-m%D", pl->wider->yc);
	  print_slice(pl->wider, p);
	  p->print(p, ")");
     }
     print_permutation(&pl->unslice, "unslice",
		       pl->back || !pl->reversed ? 0 : pl->lay_beside, p);
     if (pl->reversed)
	  print_stage1(&pl->stage1, p);
}

void XM(pipeline_print)(const pipeline *pl, printer *p)
{
     AIP_Algorithm runs = AIP_Plan_algorithm(pl->exchange);
     size_t bytes = AIP_Plan_bytes(pl->exchange)
	  + (pl->wider ? AIP_Plan_bytes(pl->wider->exchange) : 0);
     p->print(p, "/k%D%s%s-%s-aux%D", pl->chunks,
	      !pl->sliced ? "" : pl->back ? "-sliced" : "-sliced-transposed",
	      pl->reversed ? "-reversed" : "",
	      AIP_Algorithm_name(runs), (INT) bytes);
     if (pl->sliced) {
	  print_sliced(pl, p);
	  return;
     }
     if (pl->reversed) {
	  if (pl->back)
	       print_permutation(&pl->post, "post", pl->post_beside, p);
	  print_stage2(pl, p);
	  print_permutation(&pl->mid, "mid", pl->mid_beside, p);
	  print_permutation(&pl->pre, "pre", 0, p);
	  print_stage1(&pl->stage1, p);
	  return;
     }
     print_stage1(&pl->stage1, p);
     print_permutation(&pl->pre, "pre", 0, p);
     print_permutation(&pl->mid, "mid", pl->mid_beside, p);
     print_stage2(pl, p);
     if (pl->back)
	  print_permutation(&pl->post, "post", pl->post_beside, p);
}

/* The reals moved, read and written: the same for every chunk count, so
   that the estimate keeps PIPELINE_CHUNKS' order. */
static void permutation_ops(const tuple_permutation *t, INT times, opcnt *ops)
{
     ops->other += times * 2 * XM(tuple_permutation_reals)(t);
}

/* The operations of a cut's pieces, `times` over. */
static void cut_ops(const pipeline_cut *cut, INT times, const plan *piece,
		    const plan *last, opcnt *ops)
{
     X(ops_madd2)(times * (last ? cut->pieces - 1 : cut->pieces), &piece->ops, ops);
     if (last)
	  X(ops_madd2)(times, &last->ops, ops);
}

/* Stage 2, mid and post of `times` slices of pl's width. */
static void slice_ops(const pipeline *pl, INT times, opcnt *ops)
{
     if (pl->cld2)
	  cut_ops(&pl->cut2, times, pl->cld2, pl->cld2_last, ops);
     if (pl->back) { /* transposed: in pre or unslice */
	  permutation_ops(&pl->mid, times, ops);
	  permutation_ops(&pl->post, times, ops);
     }
}

void XM(pipeline_ops)(const pipeline *pl, int preference, opcnt *ops)
{
     const pipeline_rows *r = &pl->stage1;
     X(ops_zero)(ops);
     if (pl->sliced) {
	  const pipeline *last = slice_pieces(pl, pl->J - 1);
	  INT row = pl->n0 * ((pl->J - 1) * pl->yc + last->yc); /* complex */
	  ops->other += preference * 2 * pl->rows * 2 * row;
	  X(ops_madd2)(pl->rows, &r->whole->ops, ops);
	  slice_ops(pl, pl->wider ? pl->J - 1 : pl->J, ops);
	  if (pl->wider)
	       slice_ops(pl->wider, 1, ops);
	  permutation_ops(&pl->pre, 1, ops);
	  permutation_ops(&pl->unslice, 1, ops);
	  return;
     }
     ops->other += preference * 2 * pl->rows * 2 * pl->n_pes * pl->J * pl->yc;
     if (r->whole)
	  X(ops_madd2)(pl->rows, &r->whole->ops, ops);
     else {
	  X(ops_madd2)(pl->rows * r->line_pieces, &r->lines->ops, ops);
	  cut_ops(&r->cut, pl->rows, r->columns, r->columns_last, ops);
     }
     cut_ops(&pl->cut2, pl->back ? pl->J : 1, pl->cld2, pl->cld2_last, ops);
     permutation_ops(&pl->pre, pl->chunks, ops);
     permutation_ops(&pl->mid, 1, ops);
     if (pl->back)
	  permutation_ops(&pl->post, 1, ops);
}
