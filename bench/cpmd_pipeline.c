/*
 * cpmd_pipeline.c - the CPMD workload (cpmd_fft.c) with its band batches
 * pipelined: each batch's global transposes travel, as nonblocking
 * in-place plans of liballtoall_inplace (AIP_Plan_start/test/wait), while
 * the other batch's FFTs are computed.
 *
 * FFTW's MPI plans run a transform's parts one after the other, and a
 * plane-wave code's batches one after the other: at 2 KiB per pair the
 * exchanges are most of the time, and the FFTs wait for them.  Here the
 * same 3D transforms (forward to the transposed layout, reciprocal space,
 * backward from it) are built from FFTW's serial plans and one in-place
 * exchange plan, so that a program can compute while the exchange moves:
 *
 *   forward   F1  the 2D FFTs of the local planes [x][y][z][b]: along z
 *                 in groups of rows, along y in groups of columns; `pre`
 *                 lays [x][s][y'][z][b] -> [s][x][y'][z][b] (s the owner
 *                 of y = s Y + y'), so that the block of s is contiguous
 *             E1  the in-place all-to-all: from s arrive its planes for
 *                 our y', [s][x][y'][z][b] = [x over all][y'][z][b]
 *   middle    P2  `post` lays it [y'][x][z][b], FFTW's transposed layout;
 *                 for each plane y': the DFTs along x, reciprocal space,
 *                 the inverse DFTs along x; `post` inverted
 *   backward  E2  the exchange back, then P3: `pre` inverted and the
 *                 inverse 2D FFTs.
 *
 * With two batches a and b (a' and b' their next steps), one exchange at
 * a time:
 *
 *   computed   F1(a) | F1(b) | P2(a) | P2(b) | P3(a) F1(a') | P3(b) F1(b') | ...
 *   in flight        | E1(a) | E1(b) | E2(a) | E2(b)        | E1(a')       | ...
 *
 * each computation calling AIP_Plan_test between its pieces, so that the
 * exchange in flight advances (the library has no thread).  A piece is
 * one serial plan on a group of rows, columns or one plane; the groups are
 * sized so that a computation between two exchanges has about as many
 * pieces as asked (by default as many as the exchange has steps, since a
 * test moves it about one step on).  Correct in place because a batch's array is touched only by its
 * own phases, in order, and the exchange of one batch runs while the
 * other's is computed (or, P3(a) F1(a'), a batch's array after its last
 * exchange of the step has completed).  Memory: the two batches' arrays,
 * which a plane-wave code holds anyway (all its bands are resident), and
 * one exchange plan's aux budget.  The papers of overlap in 3D FFTs
 * (Hoefler et al. 2007, Kandalla et al. 2011, Song & Hollingsworth 2014)
 * overlap one transform's pencils and pay with whole-array buffers.
 *
 * Under SMPI (CPMD_FFT_SMPI with --model) the pieces are charged as the
 * rest of cpmd_fft's local work is: rank 0 times each kind of piece, and
 * every rank is charged that time instead of computing (charge_local),
 * while the network model moves the exchange's messages meanwhile.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "cpmd_pipeline.h"
#ifdef CPMD_FFT_SMPI
#include "sim_charge.h"
#endif

/* The kinds of pieces: each is one serial plan, charged alike under SMPI. */
enum piece_kind {
    LINES_FORWARD,    /* DFTs along z of a group of rows */
    LINES_BACKWARD,
    COLUMNS_FORWARD,  /* DFTs along the plane's first axis of a group of columns */
    COLUMNS_BACKWARD,
    PRE,              /* [x][s][y'] -> [s][x][y'] */
    PRE_INVERSE,
    POST,             /* [x][y'] -> [y'][x] */
    POST_INVERSE,
    RECIPROCAL,       /* one plane's multiply (the caller's) */
    PIECE_KINDS
};

struct cpmd_pipeline {
    ptrdiff_t n, planes, tplanes; /* X = n / p planes before, Y = n / p after */
    int batch, overlap;
    ptrdiff_t line_group, column_group; /* rows per LINES piece, columns per COLUMNS piece */
    fftw_plan plan[PIECE_KINDS];        /* null where the layout needs none */
    cpmd_reciprocal reciprocal;
    void *arg;
    MPI_Comm comm;
    AIP_Plan exchange;
    int in_flight;
    double exposed; /* seconds inside the library's calls */
#ifdef CPMD_FFT_SMPI
    int model;
    double charge[PIECE_KINDS]; /* seconds per piece */
#endif
};

/* ---- The exchange in flight -------------------------------------------------- */

static void start(cpmd_pipeline *pl, fftw_complex *data)
{
    double t = MPI_Wtime();
    check_mpi(AIP_Plan_start(pl->exchange, data), "AIP_Plan_start");
    pl->in_flight = 1;
    if (!pl->overlap) {
        check_mpi(AIP_Plan_wait(pl->exchange), "AIP_Plan_wait");
        pl->in_flight = 0;
    }
    pl->exposed += MPI_Wtime() - t;
}

/* Between pieces: the exchange in flight moves on. */
static void advance(cpmd_pipeline *pl)
{
    if (!pl->in_flight)
        return;
    double t = MPI_Wtime();
    int done;
    check_mpi(AIP_Plan_test(pl->exchange, &done), "AIP_Plan_test");
    pl->in_flight = !done;
    pl->exposed += MPI_Wtime() - t;
}

static void finish(cpmd_pipeline *pl)
{
    if (!pl->in_flight)
        return;
    double t = MPI_Wtime();
    check_mpi(AIP_Plan_wait(pl->exchange), "AIP_Plan_wait");
    pl->in_flight = 0;
    pl->exposed += MPI_Wtime() - t;
}

/* ---- Pieces ------------------------------------------------------------------ */

/* One piece of `kind` at data (or, under SMPI's model, its charge), then a
 * test of the exchange in flight; y: the plane's index, for RECIPROCAL. */
static void piece(cpmd_pipeline *pl, enum piece_kind kind, fftw_complex *data, ptrdiff_t y)
{
#ifdef CPMD_FFT_SMPI
    if (pl->model)
        charge_local(pl->charge[kind]);
    else
#endif
    if (kind == RECIPROCAL)
        pl->reciprocal(data, y, pl->arg);
    else if (kind >= PRE)
        fftw_execute_r2r(pl->plan[kind], (double *)data, (double *)data);
    else
        fftw_execute_dft(pl->plan[kind], data, data);
    advance(pl);
}

static void permute(cpmd_pipeline *pl, enum piece_kind kind, fftw_complex *data)
{
    if (pl->plan[kind])
        piece(pl, kind, data, 0);
}

/* The DFTs along z of every local row, in groups. */
static void lines(cpmd_pipeline *pl, enum piece_kind kind, fftw_complex *data)
{
    ptrdiff_t row = pl->n * pl->batch;
    for (ptrdiff_t r = 0; r < pl->planes * pl->n; r += pl->line_group)
        piece(pl, kind, data + r * row, 0);
}

/* The DFTs along the first axis of one plane [a][z][b], in groups of columns. */
static void columns(cpmd_pipeline *pl, enum piece_kind kind, fftw_complex *plane)
{
    for (ptrdiff_t c = 0; c < pl->n; c += pl->column_group)
        piece(pl, kind, plane + c * pl->batch, 0);
}

static fftw_complex *plane_at(const cpmd_pipeline *pl, fftw_complex *data, ptrdiff_t k)
{
    return data + k * pl->n * pl->n * pl->batch;
}

/* ---- The phases of one batch ------------------------------------------------- */

static void forward_local(cpmd_pipeline *pl, fftw_complex *data)
{
    lines(pl, LINES_FORWARD, data);
    for (ptrdiff_t x = 0; x < pl->planes; x++)
        columns(pl, COLUMNS_FORWARD, plane_at(pl, data, x));
    permute(pl, PRE, data);
}

/* The middle, P2, whole (fused: forward, reciprocal, backward per plane) or
 * only its forward or backward half. */
enum middle { MIDDLE_FORWARD = 1, MIDDLE_BACKWARD = 2, MIDDLE_ALL = 3 };

static void middle(cpmd_pipeline *pl, fftw_complex *data, enum middle part)
{
    if (part & MIDDLE_FORWARD)
        permute(pl, POST, data);
    for (ptrdiff_t y = 0; y < pl->tplanes; y++) {
        fftw_complex *plane = plane_at(pl, data, y);
        if (part & MIDDLE_FORWARD)
            columns(pl, COLUMNS_FORWARD, plane);
        if (part == MIDDLE_ALL)
            piece(pl, RECIPROCAL, plane, y);
        if (part & MIDDLE_BACKWARD)
            columns(pl, COLUMNS_BACKWARD, plane);
    }
    if (part & MIDDLE_BACKWARD)
        permute(pl, POST_INVERSE, data);
}

static void backward_local(cpmd_pipeline *pl, fftw_complex *data)
{
    permute(pl, PRE_INVERSE, data);
    for (ptrdiff_t x = 0; x < pl->planes; x++)
        columns(pl, COLUMNS_BACKWARD, plane_at(pl, data, x));
    lines(pl, LINES_BACKWARD, data);
}

void cpmd_pipeline_forward(cpmd_pipeline *pl, fftw_complex *data)
{
    forward_local(pl, data);
    start(pl, data);
    finish(pl);
    middle(pl, data, MIDDLE_FORWARD);
}

void cpmd_pipeline_backward(cpmd_pipeline *pl, fftw_complex *data)
{
    middle(pl, data, MIDDLE_BACKWARD);
    start(pl, data);
    finish(pl);
    backward_local(pl, data);
}

void cpmd_pipeline_steps(cpmd_pipeline *pl, fftw_complex *const arrays[2], int batches)
{
    fftw_complex *a = arrays[0], *b = arrays[1];
    for (int k = 0; k < batches; k += 2) {
        forward_local(pl, a); /* beside E2(b) of the pair before */
        finish(pl);
        start(pl, a); /* E1(a), beside P3(b) of the pair before and F1(b) */
        if (k > 0)
            backward_local(pl, b);
        forward_local(pl, b);
        finish(pl);
        start(pl, b); /* E1(b), beside P2(a) */
        middle(pl, a, MIDDLE_ALL);
        finish(pl);
        start(pl, a); /* E2(a), beside P2(b) */
        middle(pl, b, MIDDLE_ALL);
        finish(pl);
        start(pl, b); /* E2(b), beside P3(a) and the next pair's F1(a) */
        backward_local(pl, a);
    }
    finish(pl);
    backward_local(pl, b);
}

double cpmd_pipeline_exposed(cpmd_pipeline *pl)
{
    double exposed = pl->exposed;
    pl->exposed = 0;
    return exposed;
}

const char *cpmd_pipeline_algorithm(const cpmd_pipeline *pl)
{
    const char *name = AIP_Algorithm_name(AIP_Plan_algorithm(pl->exchange));
    return name ? name : "?";
}

/* ---- Planning ---------------------------------------------------------------- */

/* The largest divisor of n not above target (at least 1). */
static ptrdiff_t divisor_up_to(ptrdiff_t n, ptrdiff_t target)
{
    ptrdiff_t d = target < 1 ? 1 : target > n ? n : target;
    while (n % d)
        d--;
    return d;
}

/* DFTs of length n at stride `stride` (complex numbers), howmany as given. */
static fftw_plan plan_dfts(ptrdiff_t n, ptrdiff_t stride, int howmany_rank,
                           const fftw_iodim64 *howmany, fftw_complex *work, int sign,
                           unsigned planner)
{
    fftw_iodim64 dim = { n, stride, stride };
    return fftw_plan_guru64_dft(1, &dim, howmany_rank, howmany, work, work, sign, planner);
}

/* The in-place transpose [rows][cols][tuple] -> [cols][rows][tuple] (complex
 * numbers), or null where rows or cols is 1. */
static fftw_plan plan_transpose(ptrdiff_t rows, ptrdiff_t cols, ptrdiff_t tuple,
                                fftw_complex *work, unsigned planner, const char *name)
{
    if (rows == 1 || cols == 1)
        return NULL;
    ptrdiff_t t = 2 * tuple; /* doubles */
    fftw_iodim64 dims[3] = { { rows, cols * t, t }, { cols, t, rows * t }, { t, 1, 1 } };
    fftw_plan plan = fftw_plan_guru64_r2r(0, NULL, 3, dims, (double *)work, (double *)work,
                                          NULL, planner);
    if (!plan)
        fail("cpmd_pipeline: FFTW has no in-place transpose for %s (%td x %td x %td)", name,
             rows, cols, tuple);
    return plan;
}

cpmd_pipeline *cpmd_pipeline_create(ptrdiff_t n, int batch, MPI_Comm comm, unsigned planner,
                                    AIP_Algorithm algorithm, int overlap, int pieces,
                                    cpmd_reciprocal reciprocal, void *arg, fftw_complex *work)
{
    int p;
    check_mpi(MPI_Comm_size(comm, &p), "MPI_Comm_size");
    if (n % p)
        fail("cpmd_pipeline: %td planes do not divide among %d ranks", n, p);
    cpmd_pipeline *pl = allocate_or_abort(sizeof *pl, "pipeline");
    *pl = (cpmd_pipeline){ .n = n, .planes = n / p, .tplanes = n / p, .batch = batch,
                           .overlap = overlap, .reciprocal = reciprocal, .arg = arg,
                           .comm = comm };
    ptrdiff_t X = pl->planes, Y = pl->tplanes, B = batch;

    /* About `pieces` a computation: F1 has X n rows and X n columns, P2
     * 2 Y n columns. */
    ptrdiff_t group = 2 * X * n / (pieces > 0 ? pieces : p);
    pl->line_group = divisor_up_to(n, group);
    pl->column_group = divisor_up_to(n, group);

    fftw_iodim64 rows[2] = { { pl->line_group, n * B, n * B }, { B, 1, 1 } };
    fftw_iodim64 cols = { pl->column_group * B, 1, 1 };
    pl->plan[LINES_FORWARD] = plan_dfts(n, B, 2, rows, work, FFTW_FORWARD, planner);
    pl->plan[LINES_BACKWARD] = plan_dfts(n, B, 2, rows, work, FFTW_BACKWARD, planner);
    pl->plan[COLUMNS_FORWARD] = plan_dfts(n, n * B, 1, &cols, work, FFTW_FORWARD, planner);
    pl->plan[COLUMNS_BACKWARD] = plan_dfts(n, n * B, 1, &cols, work, FFTW_BACKWARD, planner);
    for (int k = LINES_FORWARD; k <= COLUMNS_BACKWARD; k++)
        if (!pl->plan[k])
            fail("cpmd_pipeline: FFTW made no serial plan");
    pl->plan[PRE] = plan_transpose(X, p, Y * n * B, work, planner, "pre");
    pl->plan[PRE_INVERSE] = plan_transpose(p, X, Y * n * B, work, planner, "pre inverted");
    pl->plan[POST] = plan_transpose(n, Y, n * B, work, planner, "post");
    pl->plan[POST_INVERSE] = plan_transpose(Y, n, n * B, work, planner, "post inverted");

    ptrdiff_t block = 2 * X * Y * n * B; /* doubles */
    if (block > INT_MAX)
        fail("cpmd_pipeline: blocks of %td doubles exceed an MPI count", block);
    AIP_Options options = AIP_OPTIONS_INIT;
    options.algorithm = algorithm;
    check_mpi(AIP_Alltoall_init((int)block, MPI_DOUBLE, comm, &options, &pl->exchange),
              "AIP_Alltoall_init");
    return pl;
}

void cpmd_pipeline_destroy(cpmd_pipeline *pl)
{
    for (int k = 0; k < PIECE_KINDS; k++)
        if (pl->plan[k])
            fftw_destroy_plan(pl->plan[k]);
    check_mpi(AIP_Plan_free(&pl->exchange), "AIP_Plan_free");
    free(pl);
}

#ifdef CPMD_FFT_SMPI
typedef struct timed_pass {
    cpmd_pipeline *pl;
    enum piece_kind kind;
    fftw_complex *work;
} timed_pass;

/* One pass of a kind's pieces over the local array, as a phase runs them
 * (nothing in flight, so no tests): the lines of every plane, the columns
 * of every plane before the exchange, the multiply of every plane after
 * it, or one permutation. */
static void run_pass(void *arg)
{
    timed_pass *t = arg;
    cpmd_pipeline *pl = t->pl;
    if (t->kind == LINES_FORWARD || t->kind == LINES_BACKWARD)
        lines(pl, t->kind, t->work);
    else if (t->kind == COLUMNS_FORWARD || t->kind == COLUMNS_BACKWARD)
        for (ptrdiff_t x = 0; x < pl->planes; x++)
            columns(pl, t->kind, plane_at(pl, t->work, x));
    else if (t->kind == RECIPROCAL)
        for (ptrdiff_t y = 0; y < pl->tplanes; y++)
            piece(pl, RECIPROCAL, plane_at(pl, t->work, y), y);
    else
        piece(pl, t->kind, t->work, 0);
}

/* How many times one step of a batch runs a kind's pass: the columns before
 * the exchange and after it, the rest once. */
static double passes_per_step(const cpmd_pipeline *pl, enum piece_kind kind)
{
    return kind == COLUMNS_FORWARD || kind == COLUMNS_BACKWARD
               ? (double)(pl->planes + pl->tplanes) / (double)pl->planes
               : 1;
}

/* The pieces of one run_pass. */
static double pass_pieces(const cpmd_pipeline *pl, enum piece_kind kind)
{
    switch (kind) {
    case LINES_FORWARD:
    case LINES_BACKWARD:
        return (double)(pl->planes * pl->n / pl->line_group);
    case COLUMNS_FORWARD:
    case COLUMNS_BACKWARD:
        return (double)(pl->planes * (pl->n / pl->column_group));
    case RECIPROCAL:
        return (double)pl->tplanes;
    default:
        return 1;
    }
}

double cpmd_pipeline_model(cpmd_pipeline *pl, fftw_complex *work, double slowdown,
                           const char *cache)
{
    static const char *const name[PIECE_KINDS] = {
        "lines-forward", "lines-backward", "columns-forward", "columns-backward", "pre",
        "pre-inverse", "post", "post-inverse", "reciprocal"
    };
    int rank;
    check_mpi(MPI_Comm_rank(pl->comm, &rank), "MPI_Comm_rank");
    double total = 0;
    for (int k = 0; k < PIECE_KINDS && rank == 0; k++) {
        if (k != RECIPROCAL && !pl->plan[k])
            continue;
        /* A whole pass from memory, as FFTW's sub-plans are timed (a piece
         * alone from memory would pay the misses that a pass streams
         * through), shared out among its pieces.  The key: the pass's shape. */
        char key[160];
        snprintf(key, sizeof key, "cpmd-pass %s n=%td batch=%d planes=%td,%td group=%td,%td",
                 name[k], pl->n, pl->batch, pl->planes, pl->tplanes, pl->line_group,
                 pl->column_group);
        timed_pass t = { pl, (enum piece_kind)k, work };
        double pass = charge_measure(key, cache, run_pass, &t);
        pl->charge[k] = pass / pass_pieces(pl, (enum piece_kind)k) * slowdown;
        total += pass * passes_per_step(pl, (enum piece_kind)k);
    }
    check_mpi(MPI_Bcast(pl->charge, PIECE_KINDS, MPI_DOUBLE, 0, pl->comm), "MPI_Bcast");
    pl->model = 1;
    return total;
}
#endif
