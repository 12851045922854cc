/*
 * permute_tuples.c - the in-place permutations of tuples
 * (transpose/tuple-cycles.c) timed against a memcpy of their bytes, on the
 * shapes the pipelined transforms and the uneven transposes give them at
 * the simulated scales of docs/results.md.  The SMPI harness charges each
 * permutation its time measured here (bench/smpi/sim_charge.c); this is
 * the bench that says how far each is from a copy, and what a change to
 * tuple-cycles.c buys (bench/permute_tuples.sh builds it against several
 * revisions and runs them interleaved).
 *
 *   permute_tuples [REPEATS]    one line per shape: bytes, tuple, cycles,
 *                               the best of REPEATS (default 5) memcpy and
 *                               permutation in ms, from memory, their
 *                               ratio, and the time of a walk of its
 *                               cycles that moves no data (its index
 *                               arithmetic: source() of every tuple)
 *
 * Where tuple-cycles.h composes permutations (TUPLE_COMPOSE), the
 * transposed slices' pre and mid, apart and in one pass, too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tuple-cycles.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Writes more than the caches hold: every timing starts from memory, as a
 * permutation of a whole local array does inside a transform. */
static void evict_caches(void)
{
    enum { EVICT_BYTES = 64 << 20 };
    static unsigned char *buffer, value;
    if (!buffer && !(buffer = malloc(EVICT_BYTES)))
        return;
    memset(buffer, ++value, EVICT_BYTES);
}

static void time_one(const char *name, tuple_permutation *t, int repeats)
{
    size_t bytes = (size_t)XM(tuple_permutation_reals)(t) * sizeof(R);
    R *a = malloc(bytes), *b = malloc(bytes);
    double permute = 1e30, copy = 1e30;
    if (!a || !b) {
        printf("%-24s no memory for 2 x %zu bytes\n", name, bytes);
        exit(1);
    }
    memset(a, 1, bytes);
    memset(b, 2, bytes);
    for (int k = 0; k < repeats; k++) {
        evict_caches();
        double started = now();
        XM(permute_tuples)(t, a);
        double seconds = now() - started;
        if (seconds < permute)
            permute = seconds;
        evict_caches();
        started = now();
        memcpy(b, a, bytes);
        seconds = now() - started;
        if (seconds < copy)
            copy = seconds;
    }
    double started = now();
    volatile INT moved = XM(tuple_cycles_reals)(t, 0, t->cycles);
    double walk = now() - started;
    (void)moved;
    printf("%-24s %8.1f %7td %8td %9.2f %9.2f %6.2f %9.2f\n", name, (double)bytes / 1e6,
           (ptrdiff_t)(t->tuple * (INT)sizeof(R)), (ptrdiff_t)t->cycles, 1e3 * copy,
           1e3 * permute, permute / copy, 1e3 * walk);
    fflush(stdout);
    free(a);
    free(b);
    XM(tuple_permutation_free)(t);
}

/* Rows of segments, row-major to segment-major (the sliced pipeline's pre
 * and mid). */
static void segments(const char *name, INT rows, INT count, INT width, INT last, INT tuple,
                     int repeats)
{
    tuple_permutation t;
    XM(tuple_segments_init)(&t, rows, count, width, last, 0, tuple);
    time_one(name, &t, repeats);
}

/* n0 x n1 x n2 laid out in the order o0 o1 o2 (the chunks' pre, mid and post). */
static void reorder(const char *name, INT n0, INT n1, INT n2, int o0, int o1, int o2,
                    INT tuple, int repeats)
{
    const INT n[3] = { n0, n1, n2 };
    const int order[3] = { o0, o1, o2 };
    tuple_permutation t;
    XM(tuple_permutation_init)(&t, 3, n, order, tuple);
    time_one(name, &t, repeats);
}

#ifdef TUPLE_COMPOSE
/* The transposed slices' pre and mid (rank-geq2-pipelined.c): rows x n0
   tuples of m complex numbers per slice, `slices` of them, each slice's y
   in `count` blocks of `width` (the last `last`); apart (pre, then mid
   of one slice: the transform runs it `slices` times) and in one pass. */
static void transposed_slices(const char *name, INT rows, INT n0, INT slices, INT count,
                              INT width, INT last, INT tuple, int repeats)
{
    char label[64];
    tuple_permutation pre, mid, fused;
    XM(tuple_transpose_init)(&pre, rows * n0, slices, tuple);
    XM(tuple_segments_init)(&mid, rows, count, width, last, 0, tuple);
    XM(tuple_compose_init)(&fused, &pre, &mid, rows * n0);
    snprintf(label, sizeof label, "%s-pre", name);
    time_one(label, &pre, repeats);
    snprintf(label, sizeof label, "%s-mid", name);
    time_one(label, &mid, repeats);
    snprintf(label, sizeof label, "%s-both", name);
    time_one(label, &fused, repeats);
}
#endif

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 5;
    if (repeats < 1)
        repeats = 1;
    printf("# %-22s %8s %7s %8s %9s %9s %6s %9s\n", "shape", "MB", "tuple B", "cycles",
           "memcpy ms", "permute", "ratio", "walk ms");
    /* the chunks: r2c 2048^3 on 128, k = 8: 16 rows, chunks of 2, J = 8,
       yc = 2050 complex */
    reorder("2048/128-chunk-pre", 2, 128, 8, 1, 2, 0, 2 * 2050, repeats);
    reorder("2048/128-mid", 8, 128, 8, 2, 1, 0, 2 * 2 * 2050, repeats);
    reorder("2048/128-post", 8, 128, 16, 2, 1, 0, 2 * 2050, repeats);
    /* sliced, equal slices: 1664^3 on 128, 13 rows, M = 833, 7 slices of 119 */
    segments("1664/128-pre", 13, 7, 1, 1, 2 * 1664 * 119, repeats);
    segments("1664/128-mid", 13, 128, 13, 13, 2 * 119, repeats);
    /* a wider last slice: 1152^3 on 128, 9 rows, M = 577, 7 x 72 + 73; and
       1232^3 on 16, 77 rows, M = 617, 7 x 77 + 78 (pre in tuples of the
       gcd of the widths' columns, mid of one slice's) */
    segments("1152/128-pre", 9, 8, 72, 73, 2 * 1152, repeats);
    segments("1152/128-mid", 9, 128, 9, 9, 2 * 72, repeats);
    segments("1232/16-pre", 77, 8, 77, 78, 2 * 1232, repeats);
    segments("1232/16-mid", 77, 16, 77, 77, 2 * 77, repeats);
    /* uneven blocks: 2048^3 on 96, 22 rows, M = 1025, 5 slices of 205 */
    segments("2048/96-pre", 22, 5, 1, 1, 2 * 2048 * 205, repeats);
    segments("2048/96-mid", 22, 94, 22, 2, 2 * 205, repeats);
    /* a wider last slice: 512^3 on 24, 22 rows, M = 257, 7 x 32 + 33 */
    segments("512/24-pre", 22, 8, 32, 33, 2 * 512, repeats);
    segments("512/24-mid", 22, 24, 22, 6, 2 * 32, repeats);
#ifdef TUPLE_COMPOSE
    /* transposed output, sliced: 2048^3 on 96 (M = 1025, 5 slices of 205),
       1664^3 on 128 (M = 833, 7 of 119), 1008^3 on 16 (M = 505, 5 of 101) */
    transposed_slices("2048/96-t", 22, 2048, 5, 94, 22, 2, 2 * 205, repeats);
    transposed_slices("1664/128-t", 13, 1664, 7, 128, 13, 13, 2 * 119, repeats);
    transposed_slices("1008/16-t", 63, 1008, 5, 16, 63, 63, 2 * 101, repeats);
#endif
    return 0;
}
