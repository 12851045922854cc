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
 * for a 512^3 r2c transform on 2 processes.  Here the exchange is one call
 * of liballtoall_inplace, whose extra memory is at most $AIP_AUX_BYTES
 * (1 MiB by default) and O(p) integers whatever the transform size.
 *
 * When every process holds one full block of each distribution (nx and ny
 * divisible by the number of processes, with the default blocks), every
 * pair exchanges the same amount: AIP_Alltoall_opt moves the blocks through
 * a ring in the order of one of the symmetric schedules of
 *
 *     T. Hofmann and G. Ruenger, "In-place Algorithms for the Symmetric
 *     All-to-all Exchange with MPI", EuroMPI 2013 (Sect. 4.4 is this use),
 *
 * one solver instance per algorithm of the library's table (AIP_Algorithm_at,
 * whose rows say what each costs), so that the planner can time them; the
 * ones whose cost shapes the planner's choice:
 *   hsa    p-1 steps for p a power of two (the paper's choice),
 *   lsa    p steps, a linear shift that overlaps well on small p,
 *   mpich  2p-1 steps, MPICH's in-place pairwise baseline,
 *   sa     send-side aggregation (Kumar, Mamidala & Panda, "Scaling
 *          Alltoall Collective on Multi-core Systems"): an exchange within
 *          each node, then one among the ranks of equal local rank, n - 1
 *          network messages per rank instead of p - 1, each q times larger
 *          (n nodes of q ranks).  It pays where messages are small: many
 *          processes, a small transform, or a slow network start-up.  On
 *          one node, or nodes of unequal size, the library runs hsa (rd and
 *          l, the paper's other node-aware designs, likewise).
 *   hypercube  ceil(log2 p) stages, each moving half the blocks to one
 *          process (Plimpton et al., Cluster 2006): log2 p messages per
 *          process instead of p - 1, but every byte travels log2(p)/2
 *          times.  For small transforms on many processes, where start-up
 *          costs dominate; FFTW_MEASURE times it against the others.
 *
 * Where blocks are uneven but every pair still exchanges one size each
 * way at one offset (XM(transpose_symmetric): square transposes, and the
 * vector blocks of fftw-patches/0008), the schedules' instances (hsa, lsa,
 * mpich) run the same schedules through the library's in-place
 * AIP_Alltoallv.  Any other in-place transpose (uneven blocks, processes
 * with no rows) has an irregular exchange, which the instance of the
 * library's general algorithm does, with the algorithm of
 *
 *     T. Hofmann and G. Ruenger, "An In-place Algorithm for Irregular
 *     All-to-All Communication with Limited Memory", EuroMPI 2010:
 *
 *   general  one AIP_Alltoallv_general exchange with transpose-alltoall.c's
 *            block sizes and offsets.
 * It goes in phases, each process asking for what fits in the space its
 * own sends have freed and in its aux buffer: more messages and
 * synchronisation than a fixed symmetric schedule, so on even shapes it is
 * estimated after the three above (timing planners still try it), but it
 * takes every shape, and no in-place transpose is left to
 * transpose-pairwise's block-sized buffer.
 *
 * The local transposes are FFTW's own in-place rank-0 plans, as in
 * transpose-pairwise, with FFTW's buffers: rdft/vrank3-transpose.c refuses
 * gcd/toms513 buffers over max(64k reals, 1/9 of the data) except under
 * FFTW_EXHAUSTIVE, and sizes transpose-cut's after that check.  (Planning
 * them with CONSERVE_MEMORY, which would extend the rule to EXHAUSTIVE,
 * broke FFTW_WISDOM_ONLY replanning on the second process.)  Those
 * buffers grow with the transform where the tuples are long: in a 3D
 * transform's first transpose, b x ny tuples of vn reals -> ny x b with vn
 * about N^2/p, and in the post-transpose of equal blocks, nx/block x bt
 * tuples of block x vn reals -> bt x nx/block, FFTW picks toms513, which
 * buffers two tuples: 8 MiB per process for 1024^3 on 2 processes.  Where
 * two tuples exceed FFTW's 64k reals, this file does those transposes
 * itself (tuple-cycles.c): the same cycles as toms513, followed chunk by
 * chunk of the tuples in a buffer of 64k reals whatever the size.
 * Where only one side is locally transposed (TRANSPOSED_OUT or
 * TRANSPOSED_IN alone, as the bigvec layouts DISCONTIG and, with
 * fftw-patches/0004 and 0008, contig-transposed and contig-symmetric
 * ask), there is nothing to transpose: the rows are cut into the blocks
 * the exchange sends, or the blocks that arrived laid back into rows
 * (move_segments, "Blocks of rows" below).
 *
 * The exchange is planned with the transpose: the plan keeps a library plan
 * (AIP_Alltoall_init, AIP_Alltoallv_init or AIP_Alltoallv_general_init),
 * whose arguments were agreed on and whose aux buffer and O(p) arrays were
 * allocated once, at planning time; each apply runs the exchange alone,
 * with no collective besides it, no allocation and no getenv.  The memory is held for the
 * plan's life ($AIP_AUX_BYTES, 1 MiB by default, plus O(p), shown by
 * `mpi-bench -v2`) and freed by fftw_destroy_plan.
 *
 * Under FFTW_ESTIMATE the instance that runs the library's own choice for
 * the exchange ranks first, the others in the order of the library's
 * table (HSA, LSA, MPICH, the node-aware ones, hypercube, general), and FFTW's
 * pairwise exchange before all of them unless the planner flag
 * FFTW_MPI_INPLACE_ALLTOALL asks for ours.  See
 * transpose-inplace-choice.c for the flag and FFTW_MPI_INPLACE_ALGORITHM.
 */

#include "mpi-transpose.h"
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "alltoall_inplace.h"
#include "tuple-cycles.h"

typedef struct {
     solver super;
     AIP_Algorithm algorithm;
     int general;    /* the algorithm's kind is AIP_KIND_GENERAL: any shape */
     int preference; /* 1, 2, ...: its place in the library's table */
} S;

/* rows x segments of reals, row-major, every segment `width` reals but
   the last, `last` <= width, and the same rows segment-major: all rows'
   first segments, then all rows' second ones, ... */
typedef struct {
     INT rows, segments, width, last;
     int to_rows; /* 0: row-major -> segment-major, 1: back */
     /* of the segments cut to `last` reals, or (ragged) of the segments
	as they are, in tuples of their sizes' gcd */
     tuple_permutation cycles;
     int ragged;
     R *spare; /* the reals put aside, held by the plan (0 if none) */
} segment_move;

typedef struct {
     plan_mpi_transpose super;

     plan *cld1, *cld2, *cld2rest, *cld3;
     INT rest_Ioff, rest_Ooff;

     /* the local transposes of long tuples, when done here (tuple != 0;
	then pre replaces cld1, post replaces cld2, cld2rest and cld3) */
     tuple_permutation pre, post;

     /* where one side is locally transposed, the moves of whole blocks
	that replace those transposes (segments != 0): before the exchange
	for TRANSPOSED_OUT, after it for TRANSPOSED_IN */
     segment_move to_blocks, to_rows;

     /* the exchange: the library's plan, on comm (errors returned) */
     AIP_Plan exchange;
     AIP_Algorithm algorithm; /* the instance's */
     MPI_Comm comm;
} P;

static void exchange(const P *ego, R *buf)
{
     int rc = AIP_Plan_execute(ego->exchange, buf);
     if (rc != MPI_SUCCESS) {
	  /* The library has printed what went wrong; the data is not
	     transposed, and a plan has no way to say so. */
	  char message[MPI_MAX_ERROR_STRING];
	  int len;
	  MPI_Error_string(rc, message, &len);
	  fprintf(stderr, "fftw_mpi: in-place transpose (%s) failed: %s\n",
		  AIP_Algorithm_name(ego->algorithm), message);
	  MPI_Abort(ego->comm, rc);
     }
}

/* ---- Local transposes of long tuples --------------------------------

   A rows x cols matrix of tuples, row-major, transposed to cols x rows by
   following its cycles one range of TUPLE_CHUNK reals at a time
   (tuple-cycles.c). */

/* Whether FFTW's toms513 would buffer more than TUPLE_CHUNK reals. */
static int long_tuples(INT tuple)
{
     return 2 * tuple > TUPLE_CHUNK;
}

static void print_tuple_transpose(const tuple_permutation *t, printer *p)
{
     p->print(p, "%((transpose-cycles-%Dx%D-x%D/%D)%)", t->n[0], t->n[1],
	      t->tuple, X(imin)(t->tuple, TUPLE_CHUNK));
}

/* What FFTW counts for toms513: the same moves. */
static void tuple_transpose_ops(const tuple_permutation *t, opcnt *ops)
{
     INT reals = XM(tuple_permutation_reals)(t);
     ops->other += 2 * (reals + 30 * (reals / t->tuple));
}

/* ---- Blocks of rows, where one side is locally transposed -------------

   A transpose whose output may stay locally transposed (TRANSPOSED_OUT:
   nx x bt instead of bt x nx) needs no local transpose at all, only its
   b x ny rows cut into the b x dbt blocks the processes receive: those
   blocks, laid one after the other, are what the exchange sends, and what
   arrives, db x bt from each process in process order, is nx x bt.  The
   mirror case (TRANSPOSED_IN) lays the arriving bt x db blocks back into
   bt x nx rows.  This is the move of FFTW's DISCONTIG bigvec layout (its
   b x P tuples), for any block sizes: FFTW's blocks are `width` but the
   last, so a row is q segments of which the last is e = width - last
   reals short.  Where both sizes are multiples of RAGGED_TUPLE reals or
   more (the symmetric blocks of fftw-patches/0008, whole rows of the
   vector), the segments move as they are: the cycles of the
   row-major <-> segment-major permutation in tuples of their gcd
   (tuple_segments_init), one pass.  Otherwise put aside each full
   segment's last e reals (rows (q-1) e reals in all, which applicability
   bounds by TUPLE_CHUNK, held by the plan so that an apply allocates
   nothing more), and the segments, all `last` long, are a rows x q matrix
   of tuples, transposed by the cycles above; the e reals go back as the
   blocks spread to their widths.  Both squeezes go front to back, each
   segment landing no later than it starts, and both spreads back to front,
   each landing no earlier: nothing is overwritten before it moves.  Three
   passes over the data where e > 0, one where the blocks are equal; FFTW's
   in-place rank-0 transposes of the same data take several
   (rdft-transpose-cut/gcd). */

/* The smallest tuple of a ragged move: 512 bytes of doubles, so that each
   of the cycles' copies is worth its call. */
#define RAGGED_TUPLE 64

/* Where segment j of row i starts, in each order. */
static INT row_major(const segment_move *m, INT i, INT j)
{
     return i * ((m->segments - 1) * m->width + m->last) + j * m->width;
}

static INT segment_major(const segment_move *m, INT i, INT j)
{
     INT size = j < m->segments - 1 ? m->width : m->last;
     return j * m->rows * m->width + i * size;
}

/* The reals put aside: e at the end of every full segment. */
static INT segment_spare(INT rows, INT segments, INT width, INT last)
{
     return rows * (segments - 1) * (width - last);
}

/* Whether segments of width and last reals move as they are. */
static int ragged(INT width, INT last)
{
     return width != last && XM(tuple_gcd)(width, last) >= RAGGED_TUPLE;
}

static void segment_move_init(segment_move *m, INT rows, INT segments,
			      INT width, INT last, int to_rows)
{
     m->rows = rows;
     m->segments = segments;
     m->width = width;
     m->last = last;
     m->to_rows = to_rows;
     m->ragged = ragged(width, last);
     m->spare = 0;
     if (m->ragged) {
	  INT g = XM(tuple_gcd)(width, last);
	  XM(tuple_segments_init)(&m->cycles, rows, segments, width / g,
				  last / g, to_rows, g);
	  return;
     }
     if (to_rows)
	  XM(tuple_transpose_init)(&m->cycles, segments, rows, last);
     else
	  XM(tuple_transpose_init)(&m->cycles, rows, segments, last);
     m->spare = width == last ? 0
	  : (R *) MALLOC(sizeof(R) * (size_t) X(imax)(segment_spare(rows, segments,
								   width, last), 1),
			 PLANS);
}

static void segment_move_free(segment_move *m)
{
     X(ifree0)(m->cycles.leaders);
     X(ifree0)(m->spare);
}

static void move_segments(const segment_move *m, R *a)
{
     INT rows = m->rows, q = m->segments, r = m->last, e = m->width - r;
     INT (*from)(const segment_move *, INT, INT) = m->to_rows ? segment_major : row_major;
     INT (*to)(const segment_move *, INT, INT) = m->to_rows ? row_major : segment_major;
     INT k, n = rows * q;
     R *spare = m->spare;

     if (m->ragged) {
	  XM(permute_tuples)(&m->cycles, a);
	  return;
     }
     if (e > 0) { /* squeeze every segment to r reals, in source order */
	  for (k = 0; k < n; ++k) {
	       INT i = m->to_rows ? k % rows : k / q, j = m->to_rows ? k / rows : k % q;
	       R *at = a + from(m, i, j);
	       if (j < q - 1)
		    memcpy(spare + (i * (q - 1) + j) * e, at + r, sizeof(R) * (size_t) e);
	       memmove(a + k * r, at, sizeof(R) * (size_t) r);
	  }
     }
     XM(permute_tuples)(&m->cycles, a);
     if (e > 0) { /* spread them to their sizes, in target order, back to front */
	  for (k = n - 1; k >= 0; --k) {
	       INT i = m->to_rows ? k / q : k % rows, j = m->to_rows ? k % q : k / rows;
	       R *at = a + to(m, i, j);
	       memmove(at, a + k * r, sizeof(R) * (size_t) r);
	       if (j < q - 1)
		    memcpy(at + r, spare + (i * (q - 1) + j) * e, sizeof(R) * (size_t) e);
	  }
     }
}

static void print_segment_move(const segment_move *m, printer *p)
{
     p->print(p, "%((%s-%Dx%D-x%D/%D", m->to_rows ? "blocks-to-rows" : "rows-to-blocks",
	      m->rows, m->segments, m->width, m->last);
     if (m->ragged)
	  p->print(p, "-cycles-x%D", m->cycles.tuple);
     p->print(p, ")%)");
}

/* The squeezes and spreads pass over the data once each, as does a
   transpose of the cycles. */
static void segment_move_ops(const segment_move *m, opcnt *ops)
{
     tuple_transpose_ops(&m->cycles, ops);
     if (m->width != m->last && !m->ragged)
	  ops->other += 4 * m->rows * m->segments * m->width;
}

static void apply(const plan *ego_, R *I, R *O)
{
     const P *ego = (const P *) ego_;
     plan_rdft *cld;

     UNUSED(O); /* == I */

     /* transpose locally to make each destination's block contiguous */
     if (ego->to_blocks.segments)
	  move_segments(&ego->to_blocks, I);
     else if (ego->pre.tuple)
	  XM(permute_tuples)(&ego->pre, I);
     else if (ego->cld1) {
	  cld = (plan_rdft *) ego->cld1;
	  cld->apply(ego->cld1, I, I);
     }

     exchange(ego, I);

     /* transpose locally, again, to get ordinary row-major (or the
	TRANSPOSED_OUT order) */
     if (ego->to_blocks.segments)
	  return; /* what arrived is the locally transposed output */
     if (ego->to_rows.segments) {
	  move_segments(&ego->to_rows, I);
	  return;
     }
     if (ego->post.tuple) {
	  XM(permute_tuples)(&ego->post, I);
	  return;
     }
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
     return XM(transpose_inplace_allowed)(p, ego->algorithm, ego->general);
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
     X(ifree0)(ego->pre.leaders);
     X(ifree0)(ego->post.leaders);
     segment_move_free(&ego->to_blocks);
     segment_move_free(&ego->to_rows);
     AIP_Plan_free(&ego->exchange); /* before comm, which carries its messages */
     MPI_Comm_free(&ego->comm);
     X(plan_destroy_internal)(ego->cld3);
     X(plan_destroy_internal)(ego->cld2rest);
     X(plan_destroy_internal)(ego->cld2);
     X(plan_destroy_internal)(ego->cld1);
}

static void print(const plan *ego_, printer *p)
{
     const P *ego = (const P *) ego_;
     AIP_Algorithm runs = AIP_Plan_algorithm(ego->exchange);
     p->print(p, "(mpi-transpose-inplace/%s", AIP_Algorithm_name(ego->algorithm));
     if (runs != ego->algorithm) /* the library's fallback on these nodes */
	  p->print(p, "-runs-%s", AIP_Algorithm_name(runs));
     p->print(p, "-aux%D", (INT) AIP_Plan_bytes(ego->exchange));
     if (ego->to_blocks.segments)
	  print_segment_move(&ego->to_blocks, p);
     else if (ego->pre.tuple)
	  print_tuple_transpose(&ego->pre, p);
     else
	  p->print(p, "%(%p%)", ego->cld1);
     if (ego->to_rows.segments)
	  print_segment_move(&ego->to_rows, p);
     else if (ego->post.tuple)
	  print_tuple_transpose(&ego->post, p);
     else if (!ego->to_blocks.segments) /* which needs nothing after */
	  p->print(p, "%(%p%)%(%p%)%(%p%)", ego->cld2, ego->cld2rest, ego->cld3);
     p->print(p, ")");
}

/* MPI counts are ints: the exchange counts in units of *unit reals, the
   smallest of 1, vn and `whole` that brings n, its largest size or offset
   on any process, within INT_MAX.  Every block has block or nx % block
   rows (or none) and tblock or ny % tblock columns, so whole = vn *
   gcd(nx, block) * gcd(ny, tblock) divides every size and offset: the
   whole block when blocks are equal.  The same on every process; 0 if no
   unit fits. */
static int exchange_unit(const problem_mpi_transpose *p, INT n, INT *unit)
{
     INT vn = p->vn;
     INT whole = vn * XM(tuple_gcd)(p->nx, p->block)
	  * XM(tuple_gcd)(p->ny, p->tblock);
     *unit = 1;
     if (n > INT_MAX) *unit = vn;
     if (n / *unit > INT_MAX) *unit = whole;
     return n / *unit <= INT_MAX && *unit <= INT_MAX;
}

static MPI_Datatype unit_type(INT unit)
{
     MPI_Datatype type;
     if (unit == 1) return FFTW_MPI_TYPE;
     MPI_Type_contiguous((int) unit, FFTW_MPI_TYPE, &type);
     MPI_Type_commit(&type);
     return type;
}

/* transpose-alltoall.c's layout of an irregular exchange, in units: to
   process pe, the b x dbt block at ny-row pe * tblock of the pre-transposed
   b x ny array; from it, db x bt at nx-row pe * block of the nx x bt
   result.  Empty blocks are put at offset 0, as their offsets may lie past
   the array and INT_MAX.  sbs, sbo, rbs, rbo: n_pes ints each. */
static void exchange_layout(const problem_mpi_transpose *p, int my_pe,
			    int n_pes, INT unit, int *sbs, int *sbo, int *rbs,
			    int *rbo)
{
     INT vn = p->vn;
     INT b = XM(block)(p->nx, p->block, my_pe);
     INT bt = XM(block)(p->ny, p->tblock, my_pe);
     int pe;

     for (pe = 0; pe < n_pes; ++pe) {
	  INT db = XM(block)(p->nx, p->block, pe);
	  INT dbt = XM(block)(p->ny, p->tblock, pe);
	  sbs[pe] = (int) (b * dbt * vn / unit);
	  sbo[pe] = sbs[pe] ? (int) (pe * b * p->tblock * vn / unit) : 0;
	  rbs[pe] = (int) (db * bt * vn / unit);
	  rbo[pe] = rbs[pe] ? (int) (pe * p->block * bt * vn / unit) : 0;
     }
}

/* The library's plan of an uneven exchange (the library keeps its layout,
   in bytes): general, or, where every pair's blocks have one size each way
   at one offset (XM(transpose_symmetric): sbs == rbs, sbo == rbo), the
   instance's symmetric schedule through AIP_Alltoallv. */
static int plan_uneven_exchange(const S *ego, const problem_mpi_transpose *p,
				int my_pe, int n_pes, INT unit,
				MPI_Datatype type, MPI_Comm comm,
				const AIP_Options *options, AIP_Plan *exchange)
{
     int *sbs = (int *) MALLOC(4 * n_pes * sizeof(int), PLANS);
     int *sbo = sbs + n_pes, *rbs = sbo + n_pes, *rbo = rbs + n_pes;
     int rc;

     exchange_layout(p, my_pe, n_pes, unit, sbs, sbo, rbs, rbo);
     if (ego->general)
	  rc = AIP_Alltoallv_general_init(sbs, sbo, rbs, rbo, type, comm, 0,
					  exchange);
     else
	  rc = AIP_Alltoallv_init(sbs, sbo, type, comm, options, exchange);
     X(ifree)(sbs);
     return rc;
}

/* The library's plan of the exchange, on a duplicate of the problem's
   communicator that returns errors (collective; the same result on every
   process): n units of unit reals with each process, or the uneven
   layout.  Its aux budget is $AIP_AUX_BYTES.  *chosen: whether the
   instance's algorithm is the one the library's own decision runs for
   an exchange of n units (never for general, which alone takes the
   shapes no symmetric schedule serves). */
static int plan_exchange(const S *ego, const problem_mpi_transpose *p,
			 int my_pe, int n_pes, INT n, INT unit, int even,
			 MPI_Comm *comm, AIP_Plan *exchange, int *chosen)
{
     MPI_Datatype type = unit_type(unit);
     AIP_Options options;
     int rc;

     MPI_Comm_dup(p->comm, comm);
     MPI_Comm_set_errhandler(*comm, MPI_ERRORS_RETURN);
     AIP_Options_init(&options);
     options.algorithm = ego->algorithm;
     if (even)
	  rc = AIP_Alltoall_init((int) (n / unit), type, *comm, &options,
				 exchange);
     else
	  rc = plan_uneven_exchange(ego, p, my_pe, n_pes, unit, type, *comm,
				    &options, exchange);
     *chosen = rc == MPI_SUCCESS && !ego->general
	  && XM(transpose_inplace_library_choice)(p->comm, *comm, (int) (n / unit),
						  type) == (int) ego->algorithm;
     if (type != FFTW_MPI_TYPE)
	  MPI_Type_free(&type);
     if (rc != MPI_SUCCESS)
	  MPI_Comm_free(comm);
     return rc == MPI_SUCCESS;
}

/* Whether rows of n items of vn reals, cut into FFTW's blocks of `block`,
   move as segments (move_segments): more than one block, moving as they
   are or with at most TUPLE_CHUNK reals put aside for up to max_rows rows,
   the most any process has (so that every process makes the same
   choice). */
static int segments_fit(INT max_rows, INT n, INT block, INT vn)
{
     INT q = XM(num_blocks)(n, block), last = n - (q - 1) * block;
     return q > 1 && (ragged(block * vn, last * vn)
		      || segment_spare(max_rows, q, block * vn, last * vn) <= TUPLE_CHUNK);
}

static void segment_move_of(segment_move *m, INT rows, INT n, INT block,
			    INT vn, int to_rows)
{
     INT q = XM(num_blocks)(n, block);
     segment_move_init(m, rows, q, block * vn, (n - (q - 1) * block) * vn, to_rows);
}

static plan *mkplan(const solver *ego_, const problem *p_, planner *plnr)
{
     const S *ego = (const S *) ego_;
     const problem_mpi_transpose *p;
     P *pln;
     plan *cld1 = 0, *cld2 = 0, *cld2rest = 0, *cld3 = 0;
     INT b, vn, n, unit, rest_Ioff, rest_Ooff;
     int my_pe, n_pes;
     int even;
     int pre_here, post_here, to_blocks, to_rows, chosen;
     MPI_Comm comm;
     AIP_Plan exchange;
     R *I;
     static const plan_adt padt = {
	  XM(transpose_solve), awake, print, destroy
     };

     if (!applicable(ego, p_))
	  return (plan *) 0;

     p = (const problem_mpi_transpose *) p_;
     vn = p->vn;
     I = p->I;
     MPI_Comm_rank(p->comm, &my_pe);
     MPI_Comm_size(p->comm, &n_pes);
     b = XM(block)(p->nx, p->block, my_pe);
     even = XM(transpose_even)(p) && !ego->general;

     /* the largest size or offset: a block (even), else a whole local
	array, block x ny before the exchange or nx x tblock after */
     n = even ? p->block * p->tblock * vn
	  : X(imax)(p->block * p->ny, p->nx * p->tblock) * vn;
     if (!exchange_unit(p, n, &unit))
	  return (plan *) 0;

     /* one side locally transposed: blocks to move, not transposes */
     to_blocks = (p->flags & (TRANSPOSED_IN | TRANSPOSED_OUT)) == TRANSPOSED_OUT
	  && segments_fit(p->block, p->ny, p->tblock, vn);
     to_rows = (p->flags & (TRANSPOSED_IN | TRANSPOSED_OUT)) == TRANSPOSED_IN
	  && segments_fit(p->tblock, p->nx, p->block, vn);

     /* b x ny x vn -> ny x b x vn; the same choice on every process */
     pre_here = !(p->flags & TRANSPOSED_IN) && !to_blocks && long_tuples(vn);
     if (!(p->flags & TRANSPOSED_IN) && !to_blocks && !pre_here) {
	  cld1 = X(mkplan_f_d)(plnr,
			       X(mkproblem_rdft_0_d)(X(mktensor_3d)
						     (b, p->ny * vn, vn,
						      p->ny, vn, b * vn,
						      vn, 1, 1),
						     I, I),
			       0, 0, NO_SLOW);
	  if (XM(any_true)(!cld1, p->comm)) goto nada;
     }

     /* nx/block x bt x block*vn -> bt x nx x vn, with equal blocks */
     post_here = !(p->flags & TRANSPOSED_OUT) && !to_rows && p->nx % p->block == 0
	  && long_tuples(p->block * vn);
     rest_Ioff = rest_Ooff = 0;
     if (!post_here && !to_blocks && !to_rows
	 && XM(any_true)(!XM(mkplans_posttranspose)(p, plnr, I, I, my_pe,
						    &cld2, &cld2rest, &cld3,
						    &rest_Ioff, &rest_Ooff),
			 p->comm)) goto nada;

     if (!plan_exchange(ego, p, my_pe, n_pes, n, unit, even, &comm, &exchange,
			&chosen))
	  goto nada; /* the library said why, the same on every process */

     pln = MKPLAN_MPI_TRANSPOSE(P, &padt, apply);

     pln->cld1 = cld1;
     pln->cld2 = cld2;
     pln->cld2rest = cld2rest;
     pln->rest_Ioff = rest_Ioff;
     pln->rest_Ooff = rest_Ooff;
     pln->cld3 = cld3;
     pln->pre.tuple = pln->post.tuple = 0;
     pln->pre.leaders = pln->post.leaders = 0;
     if (pre_here)
	  XM(tuple_transpose_init)(&pln->pre, b, p->ny, vn);
     if (post_here)
	  XM(tuple_transpose_init)(&pln->post, p->nx / p->block,
			       XM(block)(p->ny, p->tblock, my_pe), p->block * vn);
     pln->to_blocks.segments = pln->to_rows.segments = 0;
     pln->to_blocks.cycles.leaders = pln->to_rows.cycles.leaders = 0;
     pln->to_blocks.spare = pln->to_rows.spare = 0;
     if (to_blocks)
	  segment_move_of(&pln->to_blocks, b, p->ny, p->tblock, vn, 0);
     if (to_rows)
	  segment_move_of(&pln->to_rows, XM(block)(p->ny, p->tblock, my_pe),
			  p->nx, p->block, vn, 1);

     pln->exchange = exchange;
     pln->algorithm = ego->algorithm;
     pln->comm = comm;

     X(ops_zero)(&pln->super.super.ops);
     if (cld1) X(ops_add2)(&cld1->ops, &pln->super.super.ops);
     if (cld2) X(ops_add2)(&cld2->ops, &pln->super.super.ops);
     if (cld2rest) X(ops_add2)(&cld2rest->ops, &pln->super.super.ops);
     if (cld3) X(ops_add2)(&cld3->ops, &pln->super.super.ops);
     if (pre_here) tuple_transpose_ops(&pln->pre, &pln->super.super.ops);
     if (post_here) tuple_transpose_ops(&pln->post, &pln->super.super.ops);
     if (to_blocks) segment_move_ops(&pln->to_blocks, &pln->super.super.ops);
     if (to_rows) segment_move_ops(&pln->to_rows, &pln->super.super.ops);
     /* FFTW counts no cost for MPI (see transpose-pairwise's FIXME), so the
	estimate only orders the instances: first the one that runs what the
	library's own decision would (select/decision.c, which knows the
	nodes: LSA on two of them, SA for small blocks), then the table's
	order; all after FFTW's pairwise exchange, whose count is its local
	transposes alone.  Timing planners (MEASURE, PATIENT) decide by
	measurement. */
     pln->super.super.ops.other += 1 + (chosen ? 0 : ego->preference);
     /* The general exchange's phases also move data in place (unsent data
	pushed up to join the free space, data waiting in the aux buffer
	moved in: general_exchange.c, step 4), about a pass over what a
	process sends, which the schedules do not make: counted, so that
	ESTIMATE takes a layout with symmetric exchanges where one applies
	(fftw-patches/0008), as timing planners do. */
     if (ego->general)
	  pln->super.super.ops.other += b * p->ny * vn;

     return &(pln->super.super);

 nada:
     X(plan_destroy_internal)(cld3);
     X(plan_destroy_internal)(cld2rest);
     X(plan_destroy_internal)(cld2);
     X(plan_destroy_internal)(cld1);
     return (plan *) 0;
}

static solver *mksolver(AIP_Algorithm algorithm, int general, int preference)
{
     static const solver_adt sadt = { PROBLEM_MPI_TRANSPOSE, mkplan, 0 };
     S *slv = MKSOLVER(S, &sadt);
     slv->algorithm = algorithm;
     slv->general = general;
     slv->preference = preference;
     return &(slv->super);
}

/* One instance per algorithm of the library's table, in its order.  A
   wisdom file imports only whole, and only if its signature, an md5 of
   every registered solver's name and place (kernel/planner.c), is this
   planner's.  So a library with another table (an algorithm added,
   removed or moved, even without rebuilding FFTW) makes all earlier MPI
   wisdom unimportable, as stock FFTW's is: fftw_import_wisdom_* returns 0,
   FFTW_WISDOM_ONLY plans are NULL, and other plans are made without wisdom
   (README and docs/design.md, "Wisdom"). */
void XM(transpose_inplace_register)(planner *p)
{
     AIP_Algorithm algorithm;
     AIP_Algorithm_kind kind;
     int i, preference = 0;

     for (i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; ++i)
	  if (kind != AIP_KIND_CHOICE)
	       REGISTER_SOLVER(p, mksolver(algorithm, kind == AIP_KIND_GENERAL,
					   ++preference));
}
