/*
 * tuple_cycles.c - the in-place permutations of transpose/tuple-cycles.c
 * against references written from their definitions, without MPI: every
 * order of up to three dimensions, rows cut into segments of two sizes
 * (the last narrower, wider, alone, rows of none), two permutations
 * composed (one of them applied to each block of the other's array), the
 * cycles applied in ranges after tuple_permutation_defer, tuples longer
 * than the 64 Ki-real buffer, and tuple_cycles_reals.  Each real holds
 * its own index, so a wrong move shows as the index found where another
 * was due.  Prints one line per failure and exits 1 if any.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tuple-cycles.h"

static int failures;

/* Where the reference puts the tuple at position x of a row-major
   n[0] x ... x n[m-1] array, laid out in the order order[0..m-1]. */
static INT reorder_target(int m, const INT n[], const int order[], INT x)
{
    INT index[3], target = 0;
    for (int a = m - 1; a >= 0; a--) {
        index[a] = x % n[a];
        x /= n[a];
    }
    for (int a = 0; a < m; a++)
        target = target * n[order[a]] + index[order[a]];
    return target;
}

/* The same for rows of `count` segments, `width` tuples each but the last
   (`last`), row-major -> segment-major (back where to_rows). */
static INT segments_target(INT rows, INT count, INT width, INT last, int to_rows, INT x)
{
    INT row = (count - 1) * width + last, i, j, k, size;
    if (!to_rows) {
        i = x / row;
        j = x % row / width < count - 1 ? x % row / width : count - 1;
        k = x % row - j * width;
        size = j < count - 1 ? width : last;
        return j * rows * width + i * size + k;
    }
    j = x / (rows * width) < count - 1 ? x / (rows * width) : count - 1;
    size = j < count - 1 ? width : last;
    i = (x - j * rows * width) / size;
    k = (x - j * rows * width) % size;
    return i * row + j * width + k;
}

/* A permutation with its reference: tuple moves as target(x) says. */
typedef struct {
    int kind; /* 0: segments, else m dimensions */
    INT n[3];
    int order[3];
    INT rows, count, width, last;
    int to_rows;
} shape;

static INT items(const shape *s)
{
    if (s->kind == 0)
        return s->rows * ((s->count - 1) * s->width + s->last);
    INT n = 1;
    for (int a = 0; a < s->kind; a++)
        n *= s->n[a];
    return n;
}

static INT target(const shape *s, INT x)
{
    return s->kind == 0 ? segments_target(s->rows, s->count, s->width, s->last, s->to_rows, x)
                        : reorder_target(s->kind, s->n, s->order, x);
}

static void plan_shape(tuple_permutation *t, const shape *s, INT tuple)
{
    if (s->kind == 0)
        fftw_mpi_tuple_segments_init(t, s->rows, s->count, s->width, s->last, s->to_rows, tuple);
    else
        fftw_mpi_tuple_permutation_init(t, s->kind, s->n, s->order, tuple);
}

/* The reference, out of place: each tuple of a to its target in b; a
   shape of `span` tuples applies to each block of that many. */
static void reference(const shape *s, INT span, INT total, INT tuple, const double *a, double *b)
{
    for (INT x = 0; x < total; x++) {
        INT y = items(s) == span && span < total ? x - x % span + target(s, x % span)
                                                  : target(s, x);
        memcpy(b + y * tuple, a + x * tuple, sizeof(double) * (size_t)tuple);
    }
}

/* Applies t to an array of `total` tuples, its cycles in `ranges` ranges
   after deferring those that touch [lo, hi), and compares with want. */
static void check(const char *name, tuple_permutation *t, INT total, INT tuple,
                  const double *want, INT lo, INT hi)
{
    size_t reals = (size_t)(total * tuple);
    double *a = malloc(sizeof(double) * (reals + 1));
    for (size_t r = 0; r < reals; r++)
        a[r] = (double)r;
    INT apart = fftw_mpi_tuple_permutation_defer(t, lo, hi);
    fftw_mpi_permute_tuple_cycles(t, a, apart, t->cycles); /* held first, as the pipelines */
    fftw_mpi_permute_tuple_cycles(t, a, 0, apart / 2);
    fftw_mpi_permute_tuple_cycles(t, a, apart / 2, apart);
    INT moved = 0;
    for (size_t r = 0; r < reals; r++) {
        if (a[r] != want[r]) {
            printf("FAIL %s: real %zu holds %.0f, not %.0f\n", name, r, a[r], want[r]);
            failures++;
            break;
        }
        if (r % (size_t)tuple == 0 && a[r] != (double)r)
            moved += tuple;
    }
    if (fftw_mpi_tuple_cycles_reals(t, 0, t->cycles) != moved) {
        printf("FAIL %s: tuple_cycles_reals says %td reals move, %td did\n", name,
               (ptrdiff_t)fftw_mpi_tuple_cycles_reals(t, 0, t->cycles), (ptrdiff_t)moved);
        failures++;
    }
    if (fftw_mpi_tuple_permutation_reals(t) != total * tuple) {
        printf("FAIL %s: tuple_permutation_reals is not the array's reals\n", name);
        failures++;
    }
    free(a);
}

static double *counting(INT reals)
{
    double *a = malloc(sizeof(double) * (size_t)(reals + 1));
    for (INT r = 0; r < reals; r++)
        a[r] = (double)r;
    return a;
}

static void one(const char *name, const shape *s, INT tuple)
{
    INT total = items(s), reals = total * tuple;
    double *a = counting(reals), *want = malloc(sizeof(double) * (size_t)(reals + 1));
    tuple_permutation t;
    reference(s, total, total, tuple, a, want);
    plan_shape(&t, s, tuple);
    check(name, &t, total, tuple, want, total / 3, total / 2);
    fftw_mpi_tuple_permutation_free(&t);
    free(a);
    free(want);
}

/* first, then second, one of them of `span` tuples applied blockwise. */
static void composed(const char *name, const shape *first, const shape *second, INT span,
                     INT tuple)
{
    INT total = items(first) > items(second) ? items(first) : items(second);
    INT reals = total * tuple;
    double *a = counting(reals), *between = malloc(sizeof(double) * (size_t)(reals + 1)),
           *want = malloc(sizeof(double) * (size_t)(reals + 1));
    tuple_permutation t1, t2, t;
    reference(first, span, total, tuple, a, between);
    reference(second, span, total, tuple, between, want);
    plan_shape(&t1, first, tuple);
    plan_shape(&t2, second, tuple);
    fftw_mpi_tuple_compose_init(&t, &t1, &t2, span);
    fftw_mpi_tuple_permutation_free(&t1);
    fftw_mpi_tuple_permutation_free(&t2); /* t keeps their shapes only */
    check(name, &t, total, tuple, want, 0, span);
    fftw_mpi_tuple_permutation_free(&t);
    free(a);
    free(between);
    free(want);
}

int main(void)
{
    static const int orders[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
                                      { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
    char name[128];
    for (int o = 0; o < 6; o++) {
        shape s = { 3, { 5, 7, 3 }, { orders[o][0], orders[o][1], orders[o][2] }, 0, 0, 0, 0, 0 };
        snprintf(name, sizeof name, "5x7x3 as %d%d%d", s.order[0], s.order[1], s.order[2]);
        one(name, &s, 3);
    }
    shape transpose = { 2, { 6, 4, 1 }, { 1, 0, 0 }, 0, 0, 0, 0, 0 };
    one("6x4 transposed", &transpose, 2);
    shape big = { 2, { 2, 3, 1 }, { 1, 0, 0 }, 0, 0, 0, 0, 0 };
    one("2x3 transposed, tuples of 70000 reals (two buffers)", &big, 70000);
    shape none = { 3, { 0, 4, 3 }, { 2, 1, 0 }, 0, 0, 0, 0, 0 };
    one("0x4x3 (no rows)", &none, 2);
    for (int to_rows = 0; to_rows < 2; to_rows++) {
        const INT cut[][4] = { { 9, 3, 9, 7 }, { 4, 5, 3, 6 }, { 7, 1, 5, 5 }, { 3, 4, 2, 0 },
                               { 0, 3, 2, 2 } };
        for (size_t c = 0; c < sizeof cut / sizeof *cut; c++) {
            shape s = { 0, { 0 }, { 0 }, cut[c][0], cut[c][1], cut[c][2], cut[c][3], to_rows };
            snprintf(name, sizeof name, "%td rows of %td segments of %td, the last %td, %s",
                     (ptrdiff_t)s.rows, (ptrdiff_t)s.count, (ptrdiff_t)s.width,
                     (ptrdiff_t)s.last, to_rows ? "to rows" : "to segments");
            one(name, &s, 2);
        }
    }
    /* the transposed slices' layouts (rank-geq2-pipelined.c): 9 rows of
       25 y in blocks 9 + 9 + 7, 5 slices: rows to slices, then each
       slice's y blocks for the exchange; reversed, the inverses */
    shape rows_to_slices = { 2, { 9 * 25, 5, 1 }, { 1, 0, 0 }, 0, 0, 0, 0, 0 };
    shape peers = { 0, { 0 }, { 0 }, 9, 3, 9, 7, 0 };
    composed("pre then mid, in blocks of 225", &rows_to_slices, &peers, 9 * 25, 4);
    shape peers_back = { 0, { 0 }, { 0 }, 9, 3, 9, 7, 1 };
    shape slices_to_rows = { 2, { 5, 9 * 25, 1 }, { 1, 0, 0 }, 0, 0, 0, 0, 0 };
    composed("post in blocks of 225, then unslice", &peers_back, &slices_to_rows, 9 * 25, 4);
    shape cube = { 3, { 4, 3, 5 }, { 2, 0, 1 }, 0, 0, 0, 0, 0 };
    shape block = { 2, { 3, 5, 1 }, { 1, 0, 0 }, 0, 0, 0, 0, 0 };
    composed("4x3x5 as 201, then 3x5 blocks transposed", &cube, &block, 15, 1);
    if (failures)
        return 1;
    puts("all permutations as their references");
    return 0;
}
