/*
 * fftw_guard_test - in-place MPI transforms of the patched FFTW read and
 * write nothing outside [0, local size) of the user's array, on every
 * rank, in planning (FFTW_MEASURE runs and zeroes candidate plans on the
 * problem's own array), executing and destroying, and give FFTW's serial
 * result of the whole array.
 *
 * Each rank's array is exactly what fftw_mpi_local_size_many_transposed
 * returns, with a guard of 4 KiB on each side filled with a pattern and
 * checked after planning, after executing and after fftw_destroy_plan
 * (--exact: none, for valgrind, which then sees every access past it).
 * The input is built from one global array that every rank makes alike;
 * FFTW's serial transform of it (fftw_plan_many_*, howmany interleaved as
 * the MPI interface lays it) is the reference for each rank's part of the
 * output, within REL_TOLERANCE of its largest value.  c2r's input is the
 * serial r2c of real data, so that it is Hermitian and c2r gives that data
 * times N, independently of how the algorithm treats non-Hermitian input.
 *
 * The cases: each algorithm's own random ones, drawn from --seed: first and
 * second dimensions smaller than p, equal to it, one more, or any small
 * size (the first case of each even, p x p); c2c, r2c, c2r and r2r; 2D and
 * 3D; howmany 1, 2 and 6 (fftw_mpi_plan_many_*); normal, TRANSPOSED_IN,
 * TRANSPOSED_OUT or both; FFTW_ESTIMATE or FFTW_MEASURE.  Under general,
 * auto, the default and NAME-pipelined also the shapes of a heap overflow
 * once found, all with a first dimension smaller than p from 3 ranks on,
 * under MEASURE.  FFTW_MPI_INPLACE_ALGORITHM is set for each name of
 * --algorithms ("default": unset); the planners agree on it per plan (FFTW
 * duplicates the communicator), and each plan is made without wisdom.  A
 * case that fails or gets no plan counts only where stock FFTW (off) passes
 * it (stock_result says why).  A forced algorithm's plans must hold no FFTW
 * transpose, NAME-pipelined's some pipelined transform.
 *
 * The ranks form two emulated nodes (the first half and the rest):
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) is defined here, over PMPI, and
 * the executable exports it (-rdynamic), so that FFTW's choice and the
 * library see two nodes as on a cluster: unset, MEASURE then times the
 * pipelined transforms, and the node-aware exchanges run their own paths.
 *
 *   fftw_guard_test --algorithms "hsa general ... default" [--seed N]
 *                   [--random N (4)] [--planners em] [--exact 1]
 *
 * --random: the random cases of each algorithm; --planners: e (ESTIMATE),
 * m (MEASURE) or both.  Each failing rank prints why; rank 0 prints each
 * failed case, a line per algorithm (its cases, the plans with our
 * transposes, FFTW's, the pipelined ones, the cases stock FFTW fails too),
 * then "fftw_guard_test (p=P): N passed, M failed".
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3-mpi.h>

#include "test_util.h"

/* Reals on each side of the array: 4 KiB, a multiple of FFTW's alignment;
 * 0 with --exact, for valgrind, which then sees any access past it. */
static ptrdiff_t guard_reals = 512;
#define REL_TOLERANCE 1e-9
#define MAX_RANK 3

/* ---- Two emulated nodes --------------------------------------------- */

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    int world_rank, world_size;
    if (split_type != MPI_COMM_TYPE_SHARED)
        return PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
    return PMPI_Comm_split(comm, world_rank < world_size / 2, key, newcomm);
}

/* ---- The cases ---------------------------------------------------------- */

typedef enum { C2C, R2C, C2R, R2R } transform_kind;
static const char *const kind_names[] = { "c2c", "r2c", "c2r", "r2r" };

typedef struct {
    transform_kind kind;
    int rnk;
    ptrdiff_t n[MAX_RANK];
    ptrdiff_t howmany;
    unsigned flags;   /* 0, FFTW_MPI_TRANSPOSED_IN and/or _OUT */
    unsigned planner; /* FFTW_ESTIMATE or FFTW_MEASURE */
    int sign;         /* c2c */
    fftw_r2r_kind r2r[MAX_RANK];
} guard_case;

static void describe(const guard_case *c, char *out, size_t size)
{
    int at = snprintf(out, size, "%s ", kind_names[c->kind]);
    for (int d = 0; d < c->rnk; d++)
        at += snprintf(out + at, size - (size_t)at, "%s%td", d ? "x" : "", c->n[d]);
    snprintf(out + at, size - (size_t)at, " howmany %td%s%s %s", c->howmany,
             c->flags & FFTW_MPI_TRANSPOSED_IN ? " TRANSPOSED_IN" : "",
             c->flags & FFTW_MPI_TRANSPOSED_OUT ? " TRANSPOSED_OUT" : "",
             c->planner == FFTW_MEASURE ? "MEASURE" : "ESTIMATE");
}

/* A dimension of class 0..3 for p ranks: smaller than p, p, p + 1, or any
 * from 2 to 2p + 3. */
static ptrdiff_t dimension(int class, int p, uint64_t u)
{
    switch (class) {
    case 0: return p > 1 ? 1 + (ptrdiff_t)(u % (uint64_t)(p - 1)) : 1;
    case 1: return p;
    case 2: return p + 1;
    default: return 2 + (ptrdiff_t)(u % (uint64_t)(2 * p + 2));
    }
}

/* The flags FFTW takes for a kind: r2c transposes only its output, c2r only
 * its input. */
static unsigned transposed_flags(transform_kind kind, uint64_t u)
{
    static const unsigned any[] = { 0, FFTW_MPI_TRANSPOSED_IN, FFTW_MPI_TRANSPOSED_OUT,
                                    FFTW_MPI_TRANSPOSED_IN | FFTW_MPI_TRANSPOSED_OUT };
    switch (kind) {
    case R2C: return u % 2 ? FFTW_MPI_TRANSPOSED_OUT : 0;
    case C2R: return u % 2 ? FFTW_MPI_TRANSPOSED_IN : 0;
    default: return any[u % 4];
    }
}

/* Random case k of the algorithm at place a of the list: its first case
 * even (both dimensions p, as every symmetric algorithm takes them), the
 * others' dimension classes and every case's kind in turn across k and a. */
static guard_case random_case(uint64_t seed, int p, int a, int k, const unsigned *planners,
                              int n_planners)
{
    static const ptrdiff_t howmanys[] = { 1, 1, 2, 6 };
    static const fftw_r2r_kind r2r_kinds[] = { FFTW_R2HC, FFTW_REDFT10, FFTW_RODFT10, FFTW_DHT };
    guard_case c;
    uint64_t u[12];
    for (int i = 0; i < 12; i++)
        u[i] = test_hash(seed, (uint64_t)p * 10000 + (uint64_t)a * 100 + (uint64_t)k, (uint64_t)i);
    memset(&c, 0, sizeof c);
    c.kind = (transform_kind)((k + a) % 4);
    c.rnk = u[0] % 3 == 0 ? 2 : 3;
    c.n[0] = dimension(k == 0 ? 1 : (k + a) % 4, p, u[1]);
    c.n[1] = dimension(k == 0 ? 1 : (k + 2 * a + 1) % 4, p, u[2]);
    if (c.rnk == 3)
        c.n[2] = 2 + (ptrdiff_t)(u[3] % 9);
    else if (c.n[0] == 1 && c.n[1] == 1)
        c.n[1] = 2; /* no transform: FFTW's dft-serial writes before a tensor of rank 0 */
    c.howmany = howmanys[u[4] % 4];
    c.flags = transposed_flags(c.kind, u[5]);
    c.planner = planners[u[6] % (uint64_t)n_planners];
    c.sign = u[7] % 2 ? FFTW_FORWARD : FFTW_BACKWARD;
    for (int d = 0; d < c.rnk; d++)
        c.r2r[d] = r2r_kinds[u[8 + d] % 4];
    return c;
}

/* The shapes of the overflow found with FFTW_MEASURE: a first dimension
 * smaller than p (ranks with no rows), c2c and r2c, 3D and 2D, and
 * fftw_mpi_plan_many_dft with howmany 6. */
static int known_cases(guard_case *out, unsigned planner)
{
    static const struct {
        transform_kind kind;
        int rnk;
        ptrdiff_t n[MAX_RANK], howmany;
    } known[] = {
        { C2C, 3, { 2, 8, 9 }, 1 },  { C2C, 3, { 3, 8, 9 }, 1 }, { C2C, 3, { 4, 8, 9 }, 1 },
        { R2C, 3, { 2, 8, 10 }, 1 }, { R2C, 3, { 4, 8, 10 }, 1 }, { C2C, 2, { 2, 40 }, 1 },
        { C2C, 3, { 2, 8, 9 }, 6 },  { C2R, 3, { 2, 8, 10 }, 1 },
    };
    int n = (int)(sizeof known / sizeof *known);
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof *out);
        out[i].kind = known[i].kind;
        out[i].rnk = known[i].rnk;
        memcpy(out[i].n, known[i].n, sizeof known[i].n);
        out[i].howmany = known[i].howmany;
        out[i].planner = planner;
        out[i].sign = FFTW_FORWARD;
    }
    return n;
}

/* ---- Layouts ------------------------------------------------------------- */

/* One side of a transform as one rank stores it: `elem` reals per number
 * (1 real, 2 complex), global dims d, howmany numbers per point;
 * `transposed`: dims 0 and 1 swapped; the rank holds rows [start, start +
 * rows) of the first stored dimension; `pad`: the last stored dimension's
 * length where it is padded (r2c's reals in place), else 0. */
typedef struct {
    int elem, rnk, transposed;
    ptrdiff_t d[MAX_RANK], pad, howmany, rows, start;
} side;

/* Input (output 0) or output (1) of case c, nc its complex side's dims. */
static side side_of(const guard_case *c, int output, const ptrdiff_t *nc, ptrdiff_t local_n0,
                    ptrdiff_t start0, ptrdiff_t local_n1, ptrdiff_t start1)
{
    int reals = c->kind == R2R || (c->kind == R2C && !output) || (c->kind == C2R && output);
    side s;
    memset(&s, 0, sizeof s);
    s.elem = reals ? 1 : 2;
    s.rnk = c->rnk;
    memcpy(s.d, reals ? c->n : nc, sizeof s.d);
    s.howmany = c->howmany;
    s.transposed = (c->flags & (output ? FFTW_MPI_TRANSPOSED_OUT : FFTW_MPI_TRANSPOSED_IN)) != 0;
    s.rows = s.transposed ? local_n1 : local_n0;
    s.start = s.transposed ? start1 : start0;
    if (reals && c->kind != R2R) /* never transposed */
        s.pad = 2 * nc[c->rnk - 1];
    return s;
}

/* The reals of the whole array of side s. */
static ptrdiff_t whole_reals(const side *s)
{
    ptrdiff_t n = s->howmany * s->elem;
    for (int i = 0; i < s->rnk; i++)
        n *= s->d[i];
    return n;
}

/* Calls f for every number this rank holds: its offset in the local array
 * and in the global one (reals, both). */
typedef void (*visit_fn)(void *ctx, ptrdiff_t local, ptrdiff_t global);

static void for_each_local(const side *s, visit_fn f, void *ctx)
{
    ptrdiff_t stored[MAX_RANK], idx[MAX_RANK] = { 0 }, total = s->rows, pad;
    int r = s->rnk;
    if (total == 0)
        return;
    for (int i = 0; i < r; i++)
        stored[i] = s->d[i];
    if (s->transposed) {
        stored[0] = s->d[1];
        stored[1] = s->d[0];
    }
    stored[0] = s->rows;
    pad = s->pad ? s->pad : stored[r - 1];
    for (int i = 1; i < r; i++)
        total *= stored[i];
    for (ptrdiff_t k = 0; k < total; k++) {
        ptrdiff_t g[MAX_RANK], local = 0, global = 0;
        for (int i = 0; i < r; i++) {
            local = local * (i == r - 1 ? pad : stored[i]) + idx[i];
            g[i] = idx[i];
        }
        g[0] += s->start;
        if (s->transposed) {
            ptrdiff_t swap = g[0];
            g[0] = g[1];
            g[1] = swap;
        }
        for (int i = 0; i < r; i++)
            global = global * s->d[i] + g[i];
        for (ptrdiff_t h = 0; h < s->howmany; h++)
            f(ctx, (local * s->howmany + h) * s->elem, (global * s->howmany + h) * s->elem);
        for (int i = r - 1; i >= 0 && ++idx[i] == stored[i]; i--)
            idx[i] = 0;
    }
}

typedef struct {
    double *local;
    const double *global;
    int elem;
    double worst;
} visit;

static void scatter(void *ctx, ptrdiff_t local, ptrdiff_t global)
{
    visit *v = ctx;
    for (int e = 0; e < v->elem; e++)
        v->local[local + e] = v->global[global + e];
}

static void compare(void *ctx, ptrdiff_t local, ptrdiff_t global)
{
    visit *v = ctx;
    for (int e = 0; e < v->elem; e++) {
        double err = fabs(v->local[local + e] - v->global[global + e]);
        if (!(err <= v->worst)) /* NaN too */
            v->worst = err;
    }
}

/* What the plans of one algorithm used, over its cases (rank 0's count):
 * plans with our transposes, with FFTW's own, with the pipelined
 * transforms. */
typedef struct {
    int ours, fftws, pipelined;
} plan_use;

static void count_use(fftw_plan plan, plan_use *use)
{
    static const char *const fftw_transposes[] = { "mpi-transpose-pairwise",
                                                   "mpi-transpose-alltoall",
                                                   "mpi-transpose-recurse" };
    char *text = fftw_sprint_plan(plan);
    int fftws = 0;
    for (size_t i = 0; i < sizeof fftw_transposes / sizeof *fftw_transposes; i++)
        fftws |= strstr(text, fftw_transposes[i]) != NULL;
    use->ours += strstr(text, "mpi-transpose-inplace") != NULL;
    use->fftws += fftws;
    use->pipelined += strstr(text, "rank-geq2-pipelined") != NULL;
    free(text);
}

/* Whether the plans used what FFTW_MPI_INPLACE_ALGORITHM=name asks for:
 * none of ours for off; anything by default; else only our transposes,
 * and for NAME-pipelined the pipelined transforms too (the known cases
 * take them). */
static int use_as_asked(const char *name, const plan_use *use)
{
    size_t len = strlen(name), suffix = strlen("-pipelined");
    if (!strcmp(name, "off"))
        return use->ours == 0 && use->pipelined == 0;
    if (!strcmp(name, "default"))
        return 1;
    if (len > suffix && !strcmp(name + len - suffix, "-pipelined") && use->pipelined == 0)
        return 0;
    return use->fftws == 0;
}

/* ---- One case ------------------------------------------------------------ */

/* The serial transform of the whole input (global layouts, howmany
 * interleaved); c2r's input made Hermitian from `reals`. */
static void reference(const guard_case *c, double *in, double *out, double *reals)
{
    int n[MAX_RANK];
    int h = (int)c->howmany;
    fftw_plan plan;
    for (int d = 0; d < c->rnk; d++)
        n[d] = (int)c->n[d];
    switch (c->kind) {
    case C2C:
        plan = fftw_plan_many_dft(c->rnk, n, h, (fftw_complex *)in, NULL, h, 1,
                                  (fftw_complex *)out, NULL, h, 1, c->sign, FFTW_ESTIMATE);
        break;
    case R2C:
        plan = fftw_plan_many_dft_r2c(c->rnk, n, h, in, NULL, h, 1, (fftw_complex *)out, NULL, h,
                                      1, FFTW_ESTIMATE);
        break;
    case C2R: /* in = r2c(reals); out = N reals */
        plan = fftw_plan_many_dft_r2c(c->rnk, n, h, reals, NULL, h, 1, (fftw_complex *)in, NULL,
                                      h, 1, FFTW_ESTIMATE);
        break;
    default:
        plan = fftw_plan_many_r2r(c->rnk, n, h, in, NULL, h, 1, out, NULL, h, 1, c->r2r,
                                  FFTW_ESTIMATE);
        break;
    }
    fftw_execute(plan);
    fftw_destroy_plan(plan);
    if (c->kind == C2R) {
        ptrdiff_t total = c->howmany;
        for (int d = 0; d < c->rnk; d++)
            total *= c->n[d];
        for (ptrdiff_t k = 0; k < total; k++)
            out[k] = reals[k] * (double)(total / c->howmany);
    }
}

static fftw_plan plan_mpi(const guard_case *c, double *data, MPI_Comm comm)
{
    unsigned flags = c->flags | c->planner;
    switch (c->kind) {
    case C2C:
        return fftw_mpi_plan_many_dft(c->rnk, c->n, c->howmany, FFTW_MPI_DEFAULT_BLOCK,
                                      FFTW_MPI_DEFAULT_BLOCK, (fftw_complex *)data,
                                      (fftw_complex *)data, comm, c->sign, flags);
    case R2C:
        return fftw_mpi_plan_many_dft_r2c(c->rnk, c->n, c->howmany, FFTW_MPI_DEFAULT_BLOCK,
                                          FFTW_MPI_DEFAULT_BLOCK, data, (fftw_complex *)data,
                                          comm, flags);
    case C2R:
        return fftw_mpi_plan_many_dft_c2r(c->rnk, c->n, c->howmany, FFTW_MPI_DEFAULT_BLOCK,
                                          FFTW_MPI_DEFAULT_BLOCK, (fftw_complex *)data, data,
                                          comm, flags);
    default:
        return fftw_mpi_plan_many_r2r(c->rnk, c->n, c->howmany, FFTW_MPI_DEFAULT_BLOCK,
                                      FFTW_MPI_DEFAULT_BLOCK, data, data, comm, c->r2r, flags);
    }
}

/* The guard's pattern: a signalling NaN that no transform produces. */
static const uint64_t GUARD_WORD = 0x7ff4dead5eedf00dULL;

static void guard_fill(double *g)
{
    for (ptrdiff_t i = 0; i < guard_reals; i++)
        memcpy(&g[i], &GUARD_WORD, sizeof GUARD_WORD);
}

/* The guards' reals that differ from the pattern, both sides. */
static int guard_damage(const double *before, const double *after)
{
    int bad = 0;
    for (ptrdiff_t i = 0; i < guard_reals; i++)
        bad += (memcmp(&before[i], &GUARD_WORD, sizeof GUARD_WORD) != 0)
               + (memcmp(&after[i], &GUARD_WORD, sizeof GUARD_WORD) != 0);
    return bad;
}

/* Case c's array on this rank: its reals (fftw_mpi_local_size_many_transposed)
 * and its input and output as stored. */
static ptrdiff_t local_array(const guard_case *c, MPI_Comm comm, side *in, side *out)
{
    /* the complex side's dims: the last cut to n/2 + 1 for r2c and c2r */
    ptrdiff_t nc[MAX_RANK], local_n0, start0, local_n1, start1, alloc;
    memcpy(nc, c->n, sizeof nc);
    if (c->kind == R2C || c->kind == C2R)
        nc[c->rnk - 1] = c->n[c->rnk - 1] / 2 + 1;
    alloc = fftw_mpi_local_size_many_transposed(c->rnk, nc, c->howmany, FFTW_MPI_DEFAULT_BLOCK,
                                                FFTW_MPI_DEFAULT_BLOCK, comm, &local_n0, &start0,
                                                &local_n1, &start1);
    *in = side_of(c, 0, nc, local_n0, start0, local_n1, start1);
    *out = side_of(c, 1, nc, local_n0, start0, local_n1, start1);
    return c->kind == R2R ? alloc : 2 * alloc;
}

typedef enum { CASE_PASSED, CASE_FAILED, CASE_UNPLANNED } case_result;

/* Runs one case under the current FFTW_MPI_INPLACE_ALGORITHM: passed if
 * every rank's guards held and its output is the reference's, unplanned if
 * FFTW made no plan; the same on every rank, `why` this rank's failure. */
static case_result run_case(const guard_case *c, uint64_t seed, MPI_Comm comm, plan_use *use,
                            char *why, size_t why_size)
{
    side in, out;
    ptrdiff_t array_reals = local_array(c, comm, &in, &out), total = c->howmany;

    /* the global input and the reference */
    for (int d = 0; d < c->rnk; d++)
        total *= c->n[d];
    size_t global_reals = (size_t)(2 * total + 2);
    double *g_in = fftw_alloc_real(global_reals), *g_out = fftw_alloc_real(global_reals);
    double *g_reals = fftw_alloc_real(global_reals);
    test_fill(g_in, sizeof(double) * global_reals, seed, 0);
    test_fill(g_reals, sizeof(double) * global_reals, seed, 1);
    for (size_t k = 0; k < global_reals; k++) { /* noise in [-1, 1) */
        g_in[k] = (double)(((uint64_t *)g_in)[k] >> 11) / 4503599627370496.0 - 1.0;
        g_reals[k] = (double)(((uint64_t *)g_reals)[k] >> 11) / 4503599627370496.0 - 1.0;
    }
    reference(c, g_in, g_out, g_reals);

    /* the rank's array between its guards */
    double *block = fftw_alloc_real((size_t)(array_reals + 2 * guard_reals));
    double *data = block + guard_reals, *after = data + array_reals;
    guard_fill(block);
    guard_fill(after);
    for (ptrdiff_t k = 0; k < array_reals; k++)
        data[k] = 0.0;

    case_result result = CASE_UNPLANNED;
    why[0] = 0;
    fftw_forget_wisdom(); /* each case planned afresh, whatever ran before */
    fftw_plan plan = plan_mpi(c, data, comm);
    if (test_agree(plan != NULL, comm)) {
        int damaged_planning = guard_damage(block, after);
        count_use(plan, use);
        visit v = { data, g_in, in.elem, 0.0 };
        for_each_local(&in, scatter, &v);
        fftw_execute(plan);
        int damaged_execute = guard_damage(block, after);
        fftw_destroy_plan(plan);
        plan = NULL;
        int damaged_destroy = guard_damage(block, after);
        v.global = g_out;
        v.elem = out.elem;
        for_each_local(&out, compare, &v);
        double scale = 0.0;
        for (ptrdiff_t k = 0; k < whole_reals(&out); k++)
            scale = fmax(scale, fabs(g_out[k]));
        double rel = v.worst / (scale > 0 ? scale : 1.0);
        if (damaged_planning || damaged_execute || damaged_destroy)
            snprintf(why, why_size, "guards overwritten: %d reals after planning, %d after "
                     "executing, %d after destroying", damaged_planning, damaged_execute,
                     damaged_destroy);
        else if (!(rel <= REL_TOLERANCE))
            snprintf(why, why_size, "error %.3g of the largest value", rel);
        result = test_agree(!why[0], comm) ? CASE_PASSED : CASE_FAILED;
    }
    if (plan) /* made on some ranks only */
        fftw_destroy_plan(plan);
    fftw_free(block);
    fftw_free(g_reals);
    fftw_free(g_out);
    fftw_free(g_in);
    return result;
}

/* Case c under stock FFTW (FFTW_MPI_INPLACE_ALGORITHM=off), to tell a
 * failure of ours from FFTW's own: it plans no transposed layout of a 2D
 * c2c transform whose second dimension is 1, and where a dimension is 1
 * (compressed away by its DFT problems, not by fftw_mpi_local_size) it can
 * write past the local size or misplace data, as Debian's 3.3.10 does. */
static case_result stock_result(const guard_case *c, uint64_t seed, MPI_Comm comm)
{
    char *was = getenv("FFTW_MPI_INPLACE_ALGORITHM") ? strdup(getenv("FFTW_MPI_INPLACE_ALGORITHM"))
                                                      : NULL;
    plan_use use = { 0, 0, 0 };
    char why[160];
    setenv("FFTW_MPI_INPLACE_ALGORITHM", "off", 1);
    case_result result = run_case(c, seed, comm, &use, why, sizeof why);
    if (was)
        setenv("FFTW_MPI_INPLACE_ALGORITHM", was, 1);
    else
        unsetenv("FFTW_MPI_INPLACE_ALGORITHM");
    free(was);
    return result;
}

/* ---- The run -------------------------------------------------------------- */

static int parse_planners(const char *text, unsigned *planners)
{
    int n = 0;
    if (strchr(text, 'e'))
        planners[n++] = FFTW_ESTIMATE;
    if (strchr(text, 'm'))
        planners[n++] = FFTW_MEASURE;
    return n;
}

/* Whether the known cases run under FFTW_MPI_INPLACE_ALGORITHM=name: their
 * first dimensions, smaller than p, are uneven, which a forced symmetric
 * algorithm leaves to general (transpose-inplace-choice.c), so they run
 * under general, the choices and the pipelined. */
static int runs_known(const char *name)
{
    static const char *const names[] = { "general", "auto", "default" };
    size_t len = strlen(name), suffix = strlen("-pipelined");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i]))
            return 1;
    return len > suffix && !strcmp(name + len - suffix, "-pipelined");
}

int main(int argc, char **argv)
{
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, p, passed = 0, failed = 0;
    unsigned planners[2];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    fftw_mpi_init();
    unsigned long long seed = test_seed(argc, argv, comm);
    const char *list = test_option(argc, argv, "--algorithms");
    const char *random_text = test_option(argc, argv, "--random");
    const char *planners_text = test_option(argc, argv, "--planners");
    const char *exact = test_option(argc, argv, "--exact");
    int n_random = random_text ? atoi(random_text) : 4;
    int n_planners = parse_planners(planners_text ? planners_text : "em", planners);
    if (exact && atoi(exact))
        guard_reals = 0;
    if (!list || n_random < 0 || n_planners == 0) {
        if (rank == 0)
            fprintf(stderr, "usage: fftw_guard_test --algorithms \"NAME ... default\" "
                            "[--seed N] [--random N] [--planners e|m|em] [--exact 1]\n");
        MPI_Finalize();
        return 2;
    }

    guard_case known[16];
    int n_known = known_cases(known, planners[n_planners - 1]), n_algorithms = 0;
    guard_case *cases = malloc(sizeof *cases * (size_t)(n_known + n_random));
    char *names = strdup(list);
    for (char *name = strtok(names, " "); name; name = strtok(NULL, " "), n_algorithms++) {
        int n_cases = 0, stock_fails = 0;
        plan_use use = { 0, 0, 0 };
        if (runs_known(name))
            for (int i = 0; i < n_known; i++)
                cases[n_cases++] = known[i];
        for (int k = 0; k < n_random; k++)
            cases[n_cases++] = random_case(seed, p, n_algorithms, k, planners, n_planners);
        if (!strcmp(name, "default"))
            unsetenv("FFTW_MPI_INPLACE_ALGORITHM");
        else
            setenv("FFTW_MPI_INPLACE_ALGORITHM", name, 1);
        for (int i = 0; i < n_cases; i++) {
            char what[256], why[160];
            uint64_t case_seed = seed + (uint64_t)i;
            case_result result = run_case(&cases[i], case_seed, comm, &use, why, sizeof why);
            describe(&cases[i], what, sizeof what);
            if (result != CASE_PASSED) {
                /* ours fails only where stock FFTW passes (or plans) */
                case_result stock = strcmp(name, "off") ? stock_result(&cases[i], case_seed, comm)
                                                        : result;
                if (stock == result || (stock == CASE_FAILED && result == CASE_UNPLANNED)) {
                    if (rank == 0)
                        printf("stock FFTW fails too (not counted): %s (%s)\n", what, name);
                    stock_fails++;
                    continue;
                }
                if (result == CASE_UNPLANNED)
                    snprintf(why, sizeof why, "no plan, where stock FFTW makes one");
            }
            if (why[0])
                fprintf(stderr, "rank %d: %s, %s: %s\n", rank, name, what, why);
            snprintf(what + strlen(what), sizeof what - strlen(what), " (%s)", name);
            test_count(result == CASE_PASSED, what, &passed, &failed, comm);
        }
        char what[200];
        snprintf(what, sizeof what, "%s: %d cases, %d plans with our transposes, %d with FFTW's, "
                 "%d pipelined, %d failed by stock FFTW too", name, n_cases, use.ours, use.fftws,
                 use.pipelined, stock_fails);
        if (rank == 0)
            printf("%s\n", what);
        test_count(test_agree(rank != 0 || use_as_asked(name, &use), comm), what, &passed,
                   &failed, comm);
    }
    free(names);
    free(cases);
    fftw_mpi_cleanup();
    int status = test_summary("fftw_guard_test", passed, failed, comm);
    MPI_Finalize();
    return status;
}
