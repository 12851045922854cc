/*
 * sim_charge.c - proxies for the serial sub-plans of FFTW's MPI plans, and
 * the charging of their time under SMPI (see sim_charge.h).
 *
 * Built with smpicc against the internal headers of the patched FFTW, and
 * linked statically with it: SMPI gives every rank its own copy of the
 * program's globals, and FFTW's planner is one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <xbt/dynar.h>

#include "api/api.h"
#include "dft/dft.h"
#include "mpi/ifftw-mpi.h"
#include "mpi/tuple-cycles.h"
#include "rdft/rdft.h"

#include "sim_charge.h"

/* ---- State (one copy per simulated rank) ---------------------------------- */

typedef struct proxy {
    union { /* the header of the plan it stands for: all three are {plan, apply} */
        plan_dft dft;
        plan_rdft rdft; /* and plan_mpi_transpose */
        plan_rdft2 rdft2;
    } super;
    plan_adt adt;              /* the real plan's solve, our awake, print, destroy */
    plan *real;
    int kind;                  /* the problem's kind */
    charge_category category;
    R *arrays[4];              /* the problem's arrays, as planned: for calibration */
    INT step, span;            /* the next piece's offset along the vector, and the reals
                                  one piece spans: for timing pieces in a run */
    double seconds;            /* CHARGE_MODEL: charged at each apply */
    struct proxy *prev, *next; /* live proxies in the order they were made */
} proxy;

static charge_mode mode;
static double copy_bandwidth;
static int folded;
static const planner_adt *original_adt;
static planner_adt hooked_adt;
static int kinds[256], depth; /* the problems being planned, outermost first */
static proxy *first, *last;
static int timing;
static double totals[CHARGE_CATEGORIES];
static double pending; /* charges below SMPI's CPU threshold, not yet made */
static int sleeping;   /* charges are spent as sleeps (spend) */

/* ---- Charging ---------------------------------------------------------------- */

static const double cpu_threshold = 1e-6; /* smpi/cpu-threshold: shorter bursts are dropped */

/*
 * Spends a charge in simulated time.  Where the rank's host has a core for
 * each of its ranks, an execution on one core takes exactly as long as a
 * sleep, and the network moves meanwhile either way; but SimGrid 3.32 ends
 * an execution by removing it from its actor's list of activities, a scan
 * of the whole list, and that list also keeps every request MPI_Test
 * completed (CommImpl::finish removes only a waiter's; 3.34 made it a set).
 * The pipelined transforms test, so each of their charges scanned thousands
 * of entries: about 90% of a run's time (perf).  A sleep does not touch the list.
 */
static void spend(double seconds)
{
    if (seconds < cpu_threshold)
        return; /* as smpi_execute */
    if (sleeping)
        sg_actor_sleep_for(seconds);
    else
        smpi_execute(seconds);
}

static void charge(double seconds)
{
    pending += seconds;
    if (pending >= cpu_threshold) {
        spend(pending);
        pending = 0;
    }
}

/* Whether every rank on this host has a core of its own. */
static int core_per_rank(void)
{
    xbt_dynar_t actors = xbt_dynar_new(sizeof(sg_actor_t), NULL);
    sg_host_get_actor_list(sg_host_self(), actors);
    int enough = (unsigned long)sg_host_core_count(sg_host_self()) >= xbt_dynar_length(actors);
    xbt_dynar_free(&actors);
    return enough;
}

void charge_local(double seconds)
{
    charge(seconds);
}

/* Copies of folded arrays: their bytes are garbage that nobody reads. */
enum { FOLDED_COPY_MIN = 64 << 10 };

static void copied(size_t bytes)
{
    if (!timing || mode != CHARGE_MODEL)
        return;
    double seconds = 2.0 * (double)bytes / copy_bandwidth;
    totals[CHARGE_COPIES] += seconds;
    charge(seconds);
}

void *__real_memcpy(void *to, const void *from, size_t bytes);
void *__real_memmove(void *to, const void *from, size_t bytes);

void *__wrap_memcpy(void *to, const void *from, size_t bytes)
{
    if (!(timing && folded && bytes >= FOLDED_COPY_MIN))
        __real_memcpy(to, from, bytes);
    copied(bytes);
    return to;
}

void *__wrap_memmove(void *to, const void *from, size_t bytes)
{
    if (!(timing && folded && bytes >= FOLDED_COPY_MIN))
        __real_memmove(to, from, bytes);
    copied(bytes);
    return to;
}

/*
 * The in-place permutations of tuples (transpose/tuple-cycles.c: our
 * transposes' local moves, the pipelines' pre, mid, post and unslice)
 * follow their cycles one tuple at a time, and a cycle's tuples lie far
 * apart: against a memcpy of their bytes, all that the memcpy wrapper
 * would charge, tuples of 1-3 KiB take 1.1-1.4x its time (1.5-2x before
 * they prefetched), of 512 B 2x, long ones 0.6-1.4x.  So in CHARGE_MODEL they
 * do not run (sim_charge.ldflags wraps them and their init functions):
 * each call is charged, per real its cycles move, the time that the whole
 * permutation took here on an array of its own (the rank's may be folded,
 * its pages cached), on the file's scale, timed once per shape: by
 * charge_calibrate where the planner made it, else when first met.
 */
void __real_fftw_mpi_permute_tuple_cycles(const tuple_permutation *t, R *a, INT first, INT last);

static double slowdown = 1; /* charge_calibrate's: the core's time per second here */
static const char *calibration_file;

typedef struct permutation_run {
    const tuple_permutation *t;
    R *a;
} permutation_run;

static void run_permutation(void *arg)
{
    const permutation_run *run = arg;
    __real_fftw_mpi_permute_tuple_cycles(run->t, run->a, 0, run->t->cycles);
}

static int cache_lookup(const char *file, const char *key, double *value);

/* A permutation's shape, as words. */
static int shape_text(const tuple_permutation *t, char *text, size_t size)
{
    if (t->m == -1) {
        int len = shape_text(&t->parts[0], text, size);
        len += snprintf(text + len, size - (size_t)len, ", then ");
        len += shape_text(&t->parts[1], text + len, size - (size_t)len);
        return len + snprintf(text + len, size - (size_t)len, ", in blocks of %td",
                              (ptrdiff_t)t->span);
    }
    if (t->m == 0)
        return snprintf(text, size, "%td rows of %td segments of %td, the last %td, %s",
                        (ptrdiff_t)t->segments.rows, (ptrdiff_t)t->segments.count,
                        (ptrdiff_t)t->segments.width, (ptrdiff_t)t->segments.last,
                        t->segments.to_rows ? "to rows" : "to segments");
    int len = 0;
    for (int a = 0; a < t->m; a++)
        len += snprintf(text + len, size - (size_t)len, "%s%td", a ? " x " : "",
                        (ptrdiff_t)t->n[a]);
    len += snprintf(text + len, size - (size_t)len, ", laid out as dimensions");
    for (int a = 0; a < t->m; a++)
        len += snprintf(text + len, size - (size_t)len, " %d", t->order[a]);
    return len;
}

/* The calibration file's key of a permutation: its shape. */
enum { KEY = 512 };
static void permutation_key(const tuple_permutation *t, char *key, size_t size)
{
    int len = snprintf(key, size, "permutation of tuples of %td reals: ", (ptrdiff_t)t->tuple);
    shape_text(t, key + len, size - (size_t)len);
}

/* Seconds per real that t's cycles move, on the calibration file's scale
   (negative: no memory to time it in). */
static double permutation_rate(const tuple_permutation *t)
{
    char key[KEY];
    permutation_key(t, key, sizeof key);
    double seconds;
    if (!cache_lookup(calibration_file, key, &seconds)) {
        size_t reals = (size_t)fftw_mpi_tuple_permutation_reals(t);
        permutation_run run = { t, malloc(reals * sizeof(R)) };
        if (!run.a) {
            fprintf(stderr, "sim_charge: no %zu bytes to time a permutation (%s) in: "
                            "charged as a memcpy\n", reals * sizeof(R), key);
            return -1;
        }
        memset(run.a, 0, reals * sizeof(R));
        seconds = charge_measure(key, calibration_file, run_permutation, &run);
        free(run.a);
    }
    INT moved = fftw_mpi_tuple_cycles_reals(t, 0, t->cycles);
    return moved > 0 ? seconds / (double)moved : 0;
}

/* The time of cycles first .. last - 1 of t, charged in copies.  A rank
   keeps each permutation's rate (the pipelines apply a few, in as many
   ranges as their exchanges have tests, at every chunk), and walks the
   range's cycles for the reals it moves, as the permutation would. */
static double permutation_seconds(const tuple_permutation *t, INT first, INT last)
{
    enum { KEPT = 64 };
    static struct { const tuple_permutation *t; double rate; } kept[KEPT];
    static int count;
    int k = 0;
    while (k < count && kept[k].t != t)
        k++;
    double rate;
    if (k < count)
        rate = kept[k].rate;
    else {
        int was_timing = timing;
        timing = 0; /* the measurement's own copies are not charged */
        rate = permutation_rate(t);
        timing = was_timing;
        if (count < KEPT) {
            kept[count].t = t;
            kept[count++].rate = rate;
        }
    }
    INT moved = fftw_mpi_tuple_cycles_reals(t, first, last);
    return rate >= 0 ? rate * (double)moved * slowdown
                     : 2.0 * (double)moved * sizeof(R) / copy_bandwidth;
}

void __wrap_fftw_mpi_permute_tuple_cycles(const tuple_permutation *t, R *a, INT first, INT last)
{
    if (!(timing && mode == CHARGE_MODEL)) {
        __real_fftw_mpi_permute_tuple_cycles(t, a, first, last);
        return;
    }
    double seconds = permutation_seconds(t, first, last);
    totals[CHARGE_COPIES] += seconds;
    charge(seconds);
}

void __wrap_fftw_mpi_permute_tuples(const tuple_permutation *t, R *a)
{
    __wrap_fftw_mpi_permute_tuple_cycles(t, a, 0, t->cycles);
}

/* The shapes of the permutations planned on this rank (without their
 * cycles), which charge_calibrate times with the sub-plans: timed when
 * the transform first meets them, some hours into a long simulation,
 * they would be timed beside whatever else this machine does by then.
 * (The permutations of plans that the planner made and dropped are timed
 * too; no harm.) */
void __real_fftw_mpi_tuple_permutation_init(tuple_permutation *t, int m, const INT n[],
                                            const int order[], INT tuple);
void __real_fftw_mpi_tuple_transpose_init(tuple_permutation *t, INT rows, INT cols, INT tuple);
void __real_fftw_mpi_tuple_segments_init(tuple_permutation *t, INT rows, INT count, INT width,
                                         INT last, int to_rows, INT tuple);
void __real_fftw_mpi_tuple_compose_init(tuple_permutation *t, const tuple_permutation *first,
                                        const tuple_permutation *second, INT span);

enum { SHAPES = 64 };
static tuple_permutation shapes[SHAPES];
static int shape_count;

static void remember_shape(const tuple_permutation *t)
{
    char key[KEY], known[KEY];
    permutation_key(t, key, sizeof key);
    for (int k = 0; k < shape_count; k++) {
        permutation_key(&shapes[k], known, sizeof known);
        if (!strcmp(key, known))
            return;
    }
    if (shape_count < SHAPES) {
        tuple_permutation *kept = &shapes[shape_count++];
        *kept = *t;
        kept->leaders = 0;
        if (t->m == -1) { /* its parts' shapes, its own copy */
            kept->parts = malloc(2 * sizeof *kept->parts);
            if (!kept->parts) {
                shape_count--;
                return;
            }
            memcpy(kept->parts, t->parts, 2 * sizeof *kept->parts);
        }
    }
}

void __wrap_fftw_mpi_tuple_permutation_init(tuple_permutation *t, int m, const INT n[],
                                            const int order[], INT tuple)
{
    __real_fftw_mpi_tuple_permutation_init(t, m, n, order, tuple);
    remember_shape(t);
}

void __wrap_fftw_mpi_tuple_transpose_init(tuple_permutation *t, INT rows, INT cols, INT tuple)
{
    __real_fftw_mpi_tuple_transpose_init(t, rows, cols, tuple);
    remember_shape(t);
}

void __wrap_fftw_mpi_tuple_segments_init(tuple_permutation *t, INT rows, INT count, INT width,
                                         INT last, int to_rows, INT tuple)
{
    __real_fftw_mpi_tuple_segments_init(t, rows, count, width, last, to_rows, tuple);
    remember_shape(t);
}

void __wrap_fftw_mpi_tuple_compose_init(tuple_permutation *t, const tuple_permutation *first,
                                        const tuple_permutation *second, INT span)
{
    __real_fftw_mpi_tuple_compose_init(t, first, second, span);
    remember_shape(t);
}

/* Times each shape remembered that the calibration file lacks. */
static void time_planned_permutations(void)
{
    for (int k = 0; k < shape_count; k++) {
        tuple_permutation t = shapes[k];
        if (t.m == -1)
            __real_fftw_mpi_tuple_compose_init(&t, &shapes[k].parts[0], &shapes[k].parts[1],
                                               t.span);
        else if (t.m == 0)
            __real_fftw_mpi_tuple_segments_init(&t, t.segments.rows, t.segments.count,
                                                t.segments.width, t.segments.last,
                                                t.segments.to_rows, t.tuple);
        else
            __real_fftw_mpi_tuple_permutation_init(&t, t.m, t.n, t.order, t.tuple);
        permutation_rate(&t);
        fftw_mpi_tuple_permutation_free(&t);
    }
}

/* This machine's clock, not SMPI's (smpi_helpers.h redefines clock_gettime
 * as a macro; the parentheses call the function). */
double charge_real_seconds(void)
{
    struct timespec now;
    (clock_gettime)(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

double charge_measure_copy_bandwidth(size_t bytes)
{
    char *from = malloc(bytes), *to = malloc(bytes);
    double best = 1e30;
    if (!from || !to) {
        fprintf(stderr, "sim_charge: cannot allocate 2 x %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(from, 1, bytes);
    memset(to, 2, bytes);
    for (int k = 0; k < 10; k++) {
        double started = charge_real_seconds();
        __real_memcpy(to, from, bytes);
        double seconds = charge_real_seconds() - started;
        if (seconds < best)
            best = seconds;
    }
    free(from);
    free(to);
    return 2.0 * (double)bytes / best;
}

/* ---- The proxy plan ---------------------------------------------------------- */

static void run_real(const proxy *ego, R *const a[4])
{
    switch (ego->kind) {
    case PROBLEM_DFT:
        ((const plan_dft *)ego->real)->apply(ego->real, a[0], a[1], a[2], a[3]);
        break;
    case PROBLEM_RDFT2:
        ((const plan_rdft2 *)ego->real)->apply(ego->real, a[0], a[1], a[2], a[3]);
        break;
    default: /* PROBLEM_RDFT, PROBLEM_MPI_TRANSPOSE */
        ((const plan_rdft *)ego->real)->apply(ego->real, a[0], a[1]);
        break;
    }
}

static void apply(const proxy *ego, R *const a[4])
{
    if (ego->category == CHARGE_EXCHANGE) {
        double started = MPI_Wtime(), inner = totals[CHARGE_LOCAL_TRANSPOSE];
        run_real(ego, a);
        totals[CHARGE_EXCHANGE] +=
            MPI_Wtime() - started - (totals[CHARGE_LOCAL_TRANSPOSE] - inner);
    } else if (mode == CHARGE_MODEL) {
        charge(ego->seconds);
        totals[ego->category] += ego->seconds;
    } else {
        double started = MPI_Wtime();
        run_real(ego, a);
        totals[ego->category] += MPI_Wtime() - started;
    }
}

static void apply_dft(const plan *ego, R *ri, R *ii, R *ro, R *io)
{
    R *const a[4] = { ri, ii, ro, io };
    apply((const proxy *)ego, a);
}

static void apply_rdft(const plan *ego, R *in, R *out)
{
    R *const a[4] = { in, out, 0, 0 };
    apply((const proxy *)ego, a);
}

static void apply_rdft2(const plan *ego, R *r0, R *r1, R *cr, R *ci)
{
    R *const a[4] = { r0, r1, cr, ci };
    apply((const proxy *)ego, a);
}

static void awake(plan *ego, enum wakefulness wakefulness)
{
    X(plan_awake)(((proxy *)ego)->real, wakefulness);
}

static void print(const plan *ego, printer *p)
{
    const plan *real = ((const proxy *)ego)->real;
    real->adt->print(real, p); /* transparent: mpi-bench -v2 shows the real plan */
}

static void destroy(plan *ego_)
{
    proxy *ego = (proxy *)ego_;
    *(ego->prev ? &ego->prev->next : &first) = ego->next;
    *(ego->next ? &ego->next->prev : &last) = ego->prev;
    X(plan_destroy_internal)(ego->real);
}

static plan *wrap(plan *real, int kind, charge_category category, R *const arrays[4],
                  const INT geometry[2])
{
    static const plan_adt placeholder = { 0, awake, print, destroy };
    proxy *ego;
    switch (kind) {
    case PROBLEM_DFT: ego = (proxy *)X(mkplan_dft)(sizeof(proxy), &placeholder, apply_dft); break;
    case PROBLEM_RDFT2:
        ego = (proxy *)X(mkplan_rdft2)(sizeof(proxy), &placeholder, apply_rdft2);
        break;
    default: ego = (proxy *)X(mkplan_rdft)(sizeof(proxy), &placeholder, apply_rdft); break;
    }
    plan *header = &ego->super.rdft.super;
    ego->adt = placeholder;
    ego->adt.solve = real->adt->solve;
    header->adt = &ego->adt;
    header->ops = real->ops;
    header->pcost = real->pcost;
    header->could_prune_now_p = real->could_prune_now_p;
    ego->real = real;
    ego->kind = kind;
    ego->category = category;
    memcpy(ego->arrays, arrays, sizeof ego->arrays);
    ego->step = geometry[0];
    ego->span = geometry[1];
    ego->seconds = 0;
    ego->next = 0;
    ego->prev = last;
    *(last ? &last->next : &first) = ego;
    last = ego;
    return header;
}

/* ---- The planner hook -------------------------------------------------------- */

static int is_mpi(int kind)
{
    return kind >= PROBLEM_MPI_DFT && kind <= PROBLEM_MPI_TRANSPOSE;
}

static void problem_arrays(const problem *p, R *arrays[4])
{
    memset(arrays, 0, 4 * sizeof *arrays);
    switch (p->adt->problem_kind) {
    case PROBLEM_DFT: {
        const problem_dft *d = (const problem_dft *)p;
        arrays[0] = d->ri, arrays[1] = d->ii, arrays[2] = d->ro, arrays[3] = d->io;
        break;
    }
    case PROBLEM_RDFT: {
        const problem_rdft *r = (const problem_rdft *)p;
        arrays[0] = r->I, arrays[1] = r->O;
        break;
    }
    case PROBLEM_RDFT2: {
        const problem_rdft2 *r = (const problem_rdft2 *)p;
        arrays[0] = r->r0, arrays[1] = r->r1, arrays[2] = r->cr, arrays[3] = r->ci;
        break;
    }
    default: break;
    }
}

/* Adds the reals that t's dimensions reach past their first. */
static void tensor_reach(const tensor *t, INT *span)
{
    for (int i = 0; FINITE_RNK(t->rnk) && i < t->rnk; i++)
        *span += (t->dims[i].n - 1) * X(imax)(X(iabs)(t->dims[i].is), X(iabs)(t->dims[i].os));
}

/* Where the next piece of a piece-wise computation is (geometry[0]), and
 * how far one reaches (geometry[1]), in reals: the pipelined solvers apply
 * one sub-plan to consecutive stretches of its vector (groups of lines, of
 * columns), one after the other.  Step 0: not such a piece (a vector of
 * other than one dimension, or read and written with different strides). */
static void piece_geometry(const problem *p, INT geometry[2])
{
    const tensor *sz, *vecsz;
    switch (p->adt->problem_kind) {
    case PROBLEM_DFT:
        sz = ((const problem_dft *)p)->sz, vecsz = ((const problem_dft *)p)->vecsz;
        break;
    case PROBLEM_RDFT2:
        sz = ((const problem_rdft2 *)p)->sz, vecsz = ((const problem_rdft2 *)p)->vecsz;
        break;
    default:
        geometry[0] = geometry[1] = 0;
        return;
    }
    INT span = 2; /* a complex number's two reals */
    tensor_reach(sz, &span);
    tensor_reach(vecsz, &span);
    int one = vecsz->rnk == 1 && sz->rnk != RNK_MINFTY &&
              vecsz->dims[0].is == vecsz->dims[0].os;
    geometry[0] = one ? vecsz->dims[0].n * vecsz->dims[0].is : 0;
    geometry[1] = span;
}

/* Serial problems that an MPI solver plans get a proxy; so do distributed
 * transposes, unless they are part of another one (transpose-recurse). */
static plan *hooked_mkplan(planner *plnr, const problem *p)
{
    int kind = p->adt->problem_kind, parent = depth ? kinds[depth - 1] : -1;
    R *arrays[4];
    INT geometry[2];
    if (depth == (int)(sizeof kinds / sizeof kinds[0])) {
        fprintf(stderr, "sim_charge: plans nested too deeply\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    problem_arrays(p, arrays);
    piece_geometry(p, geometry);
    kinds[depth++] = kind;
    plan *pln = original_adt->mkplan(plnr, p);
    depth--;
    if (!pln || !is_mpi(parent))
        return pln;
    if (kind == PROBLEM_DFT || kind == PROBLEM_RDFT || kind == PROBLEM_RDFT2)
        return wrap(pln, kind,
                    parent == PROBLEM_MPI_TRANSPOSE ? CHARGE_LOCAL_TRANSPOSE : CHARGE_LOCAL_FFT,
                    arrays, geometry);
    if (kind == PROBLEM_MPI_TRANSPOSE && parent != PROBLEM_MPI_TRANSPOSE)
        return wrap(pln, kind, CHARGE_EXCHANGE, arrays, geometry);
    return pln;
}

void charge_install(charge_mode how, double bandwidth, int fold)
{
    planner *plnr = X(the_planner)();
    mode = how;
    sleeping = how == CHARGE_MODEL && core_per_rank();
    copy_bandwidth = bandwidth;
    folded = fold;
    original_adt = plnr->adt;
    hooked_adt = *original_adt;
    hooked_adt.mkplan = hooked_mkplan;
    plnr->adt = &hooked_adt;
}

/* ---- Calibration -------------------------------------------------------------- */

static double signature(const proxy *e)
{
    const opcnt *ops = &e->super.rdft.super.ops;
    return ops->add + 2 * ops->mul + 3 * ops->fma + 5 * ops->other + 7 * e->category;
}

/* The calibration file holds one line per measurement, "<value> <key>".  A
 * sub-plan's key is its category, operation counts and printed form (sizes
 * and strides), so the same sub-plan in another variant or platform is
 * charged the same time: the variants of one case differ only in their
 * exchanges. */
static int cache_lookup(const char *file, const char *key, double *value)
{
    FILE *f = file ? fopen(file, "r") : 0;
    char *line = 0;
    size_t size = 0;
    int found = 0;
    if (!f)
        return 0;
    while (!found && getline(&line, &size, f) > 0) {
        char *space = strchr(line, ' ');
        line[strcspn(line, "\n")] = 0;
        found = space && !strcmp(space + 1, key) && sscanf(line, "%lf", value) == 1;
    }
    free(line);
    fclose(f);
    return found;
}

static void cache_store(const char *file, const char *key, double value)
{
    FILE *f = file ? fopen(file, "a") : 0;
    if (f) {
        fprintf(f, "%.9g %s\n", value, key);
        fclose(f);
    }
}

static char *plan_key(const plan *real, charge_category category, int run)
{
    size_t count = 0;
    printer *p = X(mkprinter_cnt)(&count);
    p->print(p, "%p", real);
    X(printer_destroy)(p);
    char *key = malloc(count + 160);
    if (!key)
        return 0;
    const opcnt *ops = &real->ops;
    int len = sprintf(key, "%d %.0f %.0f %.0f %.0f ", (int)category, ops->add, ops->mul,
                      ops->fma, ops->other);
    p = X(mkprinter_str)(key + len);
    p->print(p, "%p", real);
    X(printer_destroy)(p);
    for (char *c = key; *c; c++)
        if (*c == '\n')
            *c = ' ';
    if (run > 1) /* a share of a run: not the time of the piece alone */
        sprintf(key + strlen(key), " in runs of %d", run);
    return key;
}

/* Writes more than the caches hold, so that a sub-plan timed next finds
 * its data in memory, as it does inside a transform: a sub-plan that works
 * on a piece of the array (the pipelined solvers' groups of lines and
 * columns) would otherwise run its second time from cache, several times
 * faster than it runs on the fresh pieces of a real transform.  Sub-plans
 * over a whole array are unaffected: their data never fit. */
static void evict_caches(void)
{
    static unsigned char *buffer;
    static unsigned char value;
    enum { EVICT_BYTES = 256 << 20 };
    if (!buffer && !(buffer = malloc(EVICT_BYTES)))
        return;
    memset(buffer, ++value, EVICT_BYTES);
}

/* The factor from this machine's times to the calibration file's
 * (charge_file_scale): every time measured here is multiplied by it. */
static double file_scale = 1;

static double measure_here(void (*run)(void *), void *arg, int tries)
{
    double best = 1e30;
    for (int k = 0; k < tries; k++) {
        evict_caches();
        double started = charge_real_seconds();
        run(arg);
        double t = charge_real_seconds() - started;
        if (t < best)
            best = t;
    }
    return best;
}

double charge_measure(const char *key, const char *cache, void (*run)(void *), void *arg)
{
    double best;
    if (key && cache_lookup(cache, key, &best))
        return best;
    best = file_scale * measure_here(run, arg, 2);
    if (key)
        cache_store(cache, key, best);
    return best;
}

static void run_proxy(void *e)
{
    run_real(e, ((proxy *)e)->arrays);
}

/* The rank's array (charge_array), within which pieces are timed in runs. */
static const R *array_start, *array_end;

void charge_array(const double *start, size_t reals)
{
    array_start = start;
    array_end = start + reals;
}

/*
 * A piece of a piece-wise computation is timed in a run of the pieces that
 * follow it, as the pipelined solvers apply it: alone, right after the
 * caches were evicted, a group of 25 columns pays for every page and cache
 * line of its 2048 rows, which in a run it shares with its neighbours.
 * Timed alone, rank 0's pieces of ir2048^3 on 128 ranks came out 1.04x
 * (stage 1) and 1.21x (stage 2) their time in runs, here.
 */
enum { RUN_PIECES = 32 };

typedef struct piece_run {
    const proxy *piece;
    int pieces;
} piece_run;

/* The pieces from e's planned place on that fit in the array, at most RUN_PIECES. */
static int run_length(const proxy *e)
{
    const R *low = 0;
    int pieces = 0;
    for (int i = 0; i < 4; i++)
        if (e->arrays[i] && (!low || e->arrays[i] < low))
            low = e->arrays[i];
    if (e->step <= 0 || !array_start || !low || low < array_start || low >= array_end)
        return 1;
    while (pieces + 1 < RUN_PIECES && e->span + (pieces + 1) * e->step <= array_end - low)
        pieces++;
    return pieces + 1;
}

static void run_pieces(void *arg)
{
    const piece_run *run = arg;
    for (int k = 0; k < run->pieces; k++) {
        R *a[4];
        for (int i = 0; i < 4; i++)
            a[i] = run->piece->arrays[i] ? run->piece->arrays[i] + k * run->piece->step : 0;
        run_real(run->piece, a);
    }
}

/* Rank 0's time of one sub-plan on its real arrays (charge_measure), of a
 * piece its share of a run's. */
static double measure(proxy *e, const char *cache)
{
    piece_run run = { e, run_length(e) };
    char *key = plan_key(e->real, e->category, run.pieces);
    double best;
    if (run.pieces == 1)
        best = charge_measure(key, cache, run_proxy, e);
    else if (!(key && cache_lookup(cache, key, &best))) {
        best = file_scale * measure_here(run_pieces, &run, 3) / run.pieces;
        if (key)
            cache_store(cache, key, best);
    }
    free(key);
    return best;
}

static void run_reference(void *reference)
{
    X(execute)((apiplan *)reference);
}

/* This boot of this machine: /proc's random id, new at every boot. */
static void boot_id(char *id, size_t size)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(id, (int)size, f))
        snprintf(id, size, "unknown");
    id[strcspn(id, "\n")] = 0;
    if (f)
        fclose(f);
}

/* A reference's time on this boot of this machine: measured once, then
 * read from the file, so that every run of a sweep finds the same scale.
 * Timed again at each run, the scale came out 0.80-1.10 from run to run
 * of one sweep, and with it the times of what each run measured new. */
static double reference_here(const char *cache, const char *key, apiplan *reference)
{
    char id[64], *here_key = key ? malloc(strlen(key) + sizeof id + 16) : 0;
    double seconds;
    boot_id(id, sizeof id);
    if (here_key)
        sprintf(here_key, "here (boot %s): %s", id, key);
    if (!(here_key && cache_lookup(cache, here_key, &seconds))) {
        seconds = measure_here(run_reference, reference, 3);
        if (here_key)
            cache_store(cache, here_key, seconds);
    }
    free(here_key);
    return seconds;
}

double charge_file_scale(const char *cache, X(plan) const *references, int count)
{
    enum { MAX_REFERENCES = 8 };
    double cached_sum = 0, here_sum = 0, here[MAX_REFERENCES];
    int known[MAX_REFERENCES];
    char *keys[MAX_REFERENCES];
    file_scale = 1;
    if (!cache || count > MAX_REFERENCES)
        return file_scale;
    for (int i = 0; i < count; i++) {
        keys[i] = plan_key(references[i]->pln, CHARGE_LOCAL_FFT, 1);
        here[i] = reference_here(cache, keys[i], references[i]);
        double seconds;
        known[i] = keys[i] && cache_lookup(cache, keys[i], &seconds);
        if (known[i]) {
            cached_sum += seconds;
            here_sum += here[i];
        }
    }
    if (here_sum > 0)
        file_scale = cached_sum / here_sum;
    for (int i = 0; i < count; i++) {
        if (keys[i] && !known[i])
            cache_store(cache, keys[i], file_scale * here[i]);
        free(keys[i]);
    }
    fprintf(stderr, "sim_charge: new sub-plans are timed here x %.4f, the calibration "
                    "file's scale (%s)\n",
            file_scale, here_sum > 0 ? "its references' times over theirs here"
                                     : "no references there yet: this machine's");
    return file_scale;
}

/* The signatures of this rank's sub-plans (not the exchanges), in order. */
static int signatures_of_mine(double **signatures)
{
    int count = 0;
    for (proxy *e = first; e; e = e->next)
        count += e->category != CHARGE_EXCHANGE;
    *signatures = calloc((size_t)count + 1, sizeof **signatures);
    if (!*signatures)
        MPI_Abort(MPI_COMM_WORLD, 1);
    count = 0;
    for (proxy *e = first; e; e = e->next)
        if (e->category != CHARGE_EXCHANGE)
            (*signatures)[count++] = signature(e);
    return count;
}

/* Rank 0: for every rank, the first rank whose sub-plans are the same
 * (signature by signature), which measures them for all that share them.
 * Where N0 divides by the ranks all are rank 0's; where it does not, the
 * ranks hold FFTW's blocks of rows, the last ones fewer or none, and a few
 * lists stand for all. */
static void find_measurers(MPI_Comm comm, const double *mine, int count, int *measurer)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int *counts = rank == 0 ? calloc((size_t)size, sizeof *counts) : 0;
    int *displs = rank == 0 ? calloc((size_t)size + 1, sizeof *displs) : 0;
    MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    double *all = 0;
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            displs[r + 1] = displs[r] + counts[r];
        if (!(all = calloc((size_t)displs[size] + 1, sizeof *all)))
            MPI_Abort(comm, 1);
    }
    MPI_Gatherv(mine, count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, comm);
    if (rank == 0) {
        int distinct = 0, *firsts = calloc((size_t)size, sizeof *firsts);
        for (int r = 0; r < size; r++) {
            int k = 0;
            while (k < distinct &&
                   !(counts[firsts[k]] == counts[r] &&
                     !memcmp(all + displs[firsts[k]], all + displs[r],
                             (size_t)counts[r] * sizeof *all)))
                k++;
            if (k == distinct)
                firsts[distinct++] = r;
            measurer[r] = firsts[k];
        }
        if (distinct > 1)
            fprintf(stderr, "sim_charge: %d kinds of ranks by their sub-plans, each timed by "
                            "its first rank\n", distinct);
        free(firsts);
    }
    MPI_Bcast(measurer, size, MPI_INT, 0, comm);
    free(all);
    free(displs);
    free(counts);
}

double charge_calibrate(MPI_Comm comm, double core_slowdown, const char *cache)
{
    int rank, size;
    double *mine, total = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int count = signatures_of_mine(&mine);
    int *measurer = calloc((size_t)size, sizeof *measurer);
    double *seconds = calloc((size_t)count + 1, sizeof *seconds);
    if (!measurer || !seconds)
        MPI_Abort(comm, 1);
    find_measurers(comm, mine, count, measurer);
    slowdown = core_slowdown;
    calibration_file = cache;
    /* the others measure on rank 0's scale (charge_file_scale), on their
       own arrays: real pages, folded or not */
    MPI_Bcast(&file_scale, 1, MPI_DOUBLE, 0, comm);
    for (int r = 0; r < size; r++) {
        if (measurer[r] != r)
            continue;
        int n = count;
        MPI_Bcast(&n, 1, MPI_INT, r, comm);
        double *times = calloc((size_t)n + 1, sizeof *times);
        if (!times)
            MPI_Abort(comm, 1);
        if (rank == r) {
            int i = 0;
            for (proxy *e = first; e; e = e->next)
                if (e->category != CHARGE_EXCHANGE)
                    times[i++] = measure(e, cache);
            time_planned_permutations();
        }
        MPI_Bcast(times, n, MPI_DOUBLE, r, comm);
        if (measurer[rank] == r)
            memcpy(seconds, times, (size_t)count * sizeof *seconds);
        free(times);
    }
    int i = 0;
    for (proxy *e = first; e; e = e->next) {
        if (e->category == CHARGE_EXCHANGE)
            continue;
        e->seconds = seconds[i] * core_slowdown;
        total += seconds[i++];
    }
    free(seconds);
    free(measurer);
    free(mine);
    return total;
}

double charge_here_copy_bandwidth(const char *cache)
{
    static const char key[] = "copy-bandwidth 256 MiB";
    double bandwidth;
    if (cache_lookup(cache, key, &bandwidth))
        return bandwidth;
    bandwidth = charge_measure_copy_bandwidth(256 << 20);
    cache_store(cache, key, bandwidth);
    return bandwidth;
}

/* ---- Sampled exchanges ------------------------------------------------------------ */

/* An exchange's first and last sample_stride steps run, and one step in
 * each window of sample_stride steps between them (window_pick).  The ends
 * are where schedules put their odd steps: HSA's last steps stay within a
 * node, LSA's first and last ones too, FFTW's first round is the local copy. */
static int sample_stride = 1;
enum { HEAD, MIDDLE, TAIL, REGIONS };
static struct {
    int steps, region, synchronised;
    int middle, ran; /* of the middle's steps: asked, run */
    double region_started, copies_started, seconds[REGIONS], copies[REGIONS];
} exchange_now;
static double left_out, left_out_copies; /* estimated seconds of the steps not run */

void charge_sample(int every)
{
    sample_stride = every > 1 ? every : 1;
}

void sim_sample_begin(int steps)
{
    if (sample_stride == 1)
        return;
    memset(&exchange_now, 0, sizeof exchange_now);
    exchange_now.steps = steps;
    exchange_now.region_started = MPI_Wtime();
    exchange_now.copies_started = totals[CHARGE_COPIES];
}

/* The ranks start the middle together: a rank's wait for a late partner at
 * its first middle step would otherwise be scaled with the steps.  Each rank
 * passes one barrier per exchange, after its head (at its end if it has no
 * step after the head); the ranks run the same exchanges in the same order. */
static void synchronise_once(void)
{
    if (!exchange_now.synchronised)
        MPI_Barrier(MPI_COMM_WORLD);
    exchange_now.synchronised = 1;
}

/* The time since the current region began goes to it; `next` begins. */
static void enter_region(int next)
{
    if (next != HEAD)
        synchronise_once();
    double now = MPI_Wtime();
    exchange_now.seconds[exchange_now.region] += now - exchange_now.region_started;
    exchange_now.copies[exchange_now.region] += totals[CHARGE_COPIES] - exchange_now.copies_started;
    exchange_now.region = next;
    exchange_now.region_started = now;
    exchange_now.copies_started = totals[CHARGE_COPIES];
}

/* The step of window `window` (steps window * k .. window * k + k - 1) that
 * runs: a hash of the window, the same on every rank.  A fixed offset would
 * alias with the schedules' periods (LSA's partners on a node of 8 repeat
 * with period 8: every 16th step from the 8th ran 14% slow at 256 ranks). */
static int window_pick(int window, int k)
{
    unsigned h = (unsigned)window * 2654435761u;
    h ^= h >> 15;
    return (int)(h % (unsigned)k);
}

int sim_sample_step(int step)
{
    int k = sample_stride;
    if (k == 1)
        return 1;
    int region = step < k ? HEAD : step >= exchange_now.steps - k ? TAIL : MIDDLE;
    if (region != exchange_now.region)
        enter_region(region);
    if (region != MIDDLE)
        return 1;
    int runs = step % k == window_pick(step / k, k);
    exchange_now.middle++;
    exchange_now.ran += runs;
    return runs;
}

/* The middle's simulated time, for the steps that ran, is scaled to all of
 * its steps: each step that ran stands for middle / ran steps of the global
 * sequence (idle ones too: in MPICH's schedule a rank's idle steps are its
 * waits for the wave of exchanges to reach it).  What is scaled is the
 * ranks' mean: a rank's own deviation from it stays as it ran, unscaled.
 * Scaling each rank's own few steps multiplies their noise by the stride,
 * and the transform's time is the slowest rank's, so the estimate came out
 * biased high where steps vary from rank to rank (Juqueen's torus: stock
 * +8% at 256 ranks, HSA +31% at 64).  Every rank ends every exchange here
 * (see synchronise_once), so the sum is a collective they all reach; its
 * own simulated time is the harness's, taken back from the estimate. */
void sim_sample_end(void)
{
    if (sample_stride == 1)
        return;
    enter_region(TAIL);
    double scale = exchange_now.ran ? (double)exchange_now.middle / exchange_now.ran - 1 : 0;
    double mine[2] = { scale * exchange_now.seconds[MIDDLE], scale * exchange_now.copies[MIDDLE] };
    double sum[2];
    int ranks;
    double started = MPI_Wtime();
    MPI_Allreduce(mine, sum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double harness = MPI_Wtime() - started;
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (!timing)
        return;
    left_out += sum[0] / ranks - harness;
    left_out_copies += sum[1] / ranks;
}

/* ---- Accounting ---------------------------------------------------------------- */

void charge_begin(void)
{
    memset(totals, 0, sizeof totals);
    pending = 0;
    left_out = left_out_copies = 0;
    timing = 1;
}

void charge_end(double seconds[CHARGE_CATEGORIES])
{
    spend(pending);
    pending = 0;
    timing = 0;
    memcpy(seconds, totals, sizeof totals);
    seconds[CHARGE_EXCHANGE] += left_out;
    seconds[CHARGE_COPIES] += left_out_copies;
}

double charge_left_out(void)
{
    return left_out;
}
