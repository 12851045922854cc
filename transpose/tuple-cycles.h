/*
 * tuple-cycles.h - in-place permutations of arrays of tuples (reals), by
 * following each cycle of the permutation with one saved range (toms513's
 * method), for the local transposes of transpose-inplace.c and the
 * permutations of rank-geq2-pipelined.c.
 */
#ifndef TUPLE_CYCLES_H
#define TUPLE_CYCLES_H

#include "ifftw-mpi.h"

#define TUPLE_CHUNK 65536 /* reals: the buffer FFTW lets any transpose take */

/* An n[0] x ... x n[m-1] array of tuples (m <= 3, row-major) laid out with
   its dimensions in the order order[0], ..., order[m-1]; or (m == 0) rows
   cut into segments of two sizes, laid segment-major or back (below); or
   (m == -1) two of those, one after the other, in one pass.  And one item
   of each cycle of that permutation (fixed points left out). */
typedef struct tuple_permutation_s {
     int m;
     INT n[3];
     int order[3];
     struct {
	  INT rows, count, width, last; /* tuples: all `width` but the last */
	  int to_rows; /* 0: row-major -> segment-major, 1: back */
     } segments; /* m == 0 */
     struct tuple_permutation_s *parts; /* m == -1: the first applied,
					   then the second (their shapes) */
     INT span;           /* m == -1: one part permutes each block of
			    `span` tuples alike, the other the whole array */
     int blockwise;      /* m == -1: which (-1: both the whole, one block) */
     INT tuple;          /* reals */
     INT *leaders, cycles;
} tuple_permutation;

/* Plans the permutation: one INT per cycle and one bit per tuple, not per
   real, at planning time. */
void XM(tuple_permutation_init)(tuple_permutation *t, int m, const INT n[],
				const int order[], INT tuple);
/* rows x cols tuples -> cols x rows. */
void XM(tuple_transpose_init)(tuple_permutation *t, INT rows, INT cols,
			      INT tuple);
/* rows of `count` segments, each `width` tuples but the last, `last`
   tuples (fewer or more), row-major -> segment-major (all rows' first segments, then all
   rows' second ones, ...), or back where to_rows. */
void XM(tuple_segments_init)(tuple_permutation *t, INT rows, INT count,
			     INT width, INT last, int to_rows, INT tuple);
/* `first`, then `second`, as one permutation: each tuple moves once, not
   twice.  One of them permutes a block of `span` tuples, and applies to
   each block of the other's array alike; neither is composed, and both
   have t's tuple.  Only their shapes are kept. */
void XM(tuple_compose_init)(tuple_permutation *t, const tuple_permutation *first,
			    const tuple_permutation *second, INT span);
#define TUPLE_COMPOSE 1 /* for bench/permute_tuples.c, built against older revisions */
void XM(tuple_permutation_free)(tuple_permutation *t);
/* Applies it in place, TUPLE_CHUNK reals of the tuples at a time. */
void XM(permute_tuples)(const tuple_permutation *t, R *a);
/* Reorders the cycles so that those with no tuple at positions [lo, hi)
   come first, and returns how many they are: while a nonblocking exchange
   owns those positions, the others may move.  Cycles are disjoint, so any
   order of them is the same permutation. */
INT XM(tuple_permutation_defer)(tuple_permutation *t, INT lo, INT hi);
/* Applies cycles first .. last - 1 only. */
void XM(permute_tuple_cycles)(const tuple_permutation *t, R *a, INT first,
			      INT last);
/* The array's tuples times their reals, fixed points included: a bound
   on what it moves (each real read and written once). */
INT XM(tuple_permutation_reals)(const tuple_permutation *t);
/* The reals that cycles first .. last - 1 move, fixed points left out (a
   walk of their tuples, no data touched): what a share of it costs. */
INT XM(tuple_cycles_reals)(const tuple_permutation *t, INT first, INT last);
/* The greatest common divisor of a and b: the largest tuple in which
   segments of both sizes move whole. */
INT XM(tuple_gcd)(INT a, INT b);

#endif
