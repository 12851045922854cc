/*
 * tuple-cycles.c - in-place permutations of arrays of tuples
 * (tuple-cycles.h).
 *
 * The tuple that lands at position y of the permuted array comes from
 * source(y): y's index in the permuted order, read back in the source
 * order (for a rows x cols transpose, (y mod rows) * cols + y / rows).
 * Following each cycle of that map with one saved tuple is toms513's
 * method; the map is the same for every range of the tuples' reals, so it
 * is followed one range of TUPLE_CHUNK reals at a time: the buffer is one
 * range whatever the tuples, every real is still read and written once,
 * and each move copies a contiguous range.
 */

#include "tuple-cycles.h"
#include <string.h>

/* Rows cut into segments: segment j's size, where segment j of row i
   starts in each order, and which segment a row's tuple u is in. */
static INT segment_size(const tuple_permutation *t, INT j)
{
     return j < t->segments.count - 1 ? t->segments.width : t->segments.last;
}

static INT row_start(const tuple_permutation *t, INT i, INT j)
{
     INT q = t->segments.count, w = t->segments.width;
     return i * ((q - 1) * w + t->segments.last) + j * w;
}

static INT segment_start(const tuple_permutation *t, INT i, INT j)
{
     return j * t->segments.rows * t->segments.width + i * segment_size(t, j);
}

static INT segment_of(const tuple_permutation *t, INT u)
{
     return X(imin)(u / t->segments.width, t->segments.count - 1);
}

/* source() of rows cut into segments: y's row i, segment j and place k in
   it, in the target order, give its place in the source order. */
static INT segments_source(const tuple_permutation *t, INT y)
{
     INT q = t->segments.count, w = t->segments.width, rows = t->segments.rows;
     INT i, j, k;
     if (t->segments.to_rows) { /* y row-major, from segment-major */
	  INT row = (q - 1) * w + t->segments.last;
	  i = y / row;
	  j = segment_of(t, y % row);
	  k = y % row - j * w;
	  return segment_start(t, i, j) + k;
     }
     j = segment_of(t, y / rows); /* y segment-major, from row-major */
     y -= j * rows * w;
     i = y / segment_size(t, j);
     k = y % segment_size(t, j);
     return row_start(t, i, j) + k;
}

static INT source(const tuple_permutation *t, INT y);

/* source() of part k of a composed permutation, which permutes the
   whole array or (t->blockwise) each block of t->span tuples alike. */
static INT part_source(const tuple_permutation *t, int k, INT y)
{
     if (k == t->blockwise)
	  return y - y % t->span + source(&t->parts[k], y % t->span);
     return source(&t->parts[k], y);
}

/* The source position of the tuple that lands at position y. */
static INT source(const tuple_permutation *t, INT y)
{
     INT index[3], x = 0;
     int a;
     if (t->m == -1) /* where the second part found it, the first had put it */
	  return part_source(t, 0, part_source(t, 1, y));
     if (t->m == 0)
	  return segments_source(t, y);
     for (a = t->m - 1; a >= 0; --a) {
	  INT n = t->n[t->order[a]];
	  index[t->order[a]] = y % n;
	  y /= n;
     }
     for (a = 0; a < t->m; ++a)
	  x = x * t->n[a] + index[a];
     return x;
}

static INT items(const tuple_permutation *t)
{
     INT n = 1;
     int a;
     if (t->m == -1)
	  return X(imax)(items(&t->parts[0]), items(&t->parts[1]));
     if (t->m == 0)
	  return t->segments.rows
	       * ((t->segments.count - 1) * t->segments.width + t->segments.last);
     for (a = 0; a < t->m; ++a)
	  n *= t->n[a];
     return n;
}

/* Walks every cycle once, marking its tuples, and records each one's
   first tuple in leaders if given; returns how many cycles. */
static INT walk_cycles(const tuple_permutation *t, unsigned char *seen,
		       INT *leaders)
{
     INT count = items(t), cycles = 0, x, y;
     memset(seen, 0, (size_t) count / 8 + 1);
     for (x = 0; x < count; ++x) {
	  if (seen[x / 8] & (1 << (x % 8)))
	       continue;
	  for (y = source(t, x); y != x; y = source(t, y))
	       seen[y / 8] |= (unsigned char) (1 << (y % 8));
	  if (source(t, x) != x) {
	       if (leaders)
		    leaders[cycles] = x;
	       ++cycles;
	  }
     }
     return cycles;
}

/* Finds the cycles of t's permutation: a bit per tuple while planning,
   then one INT per cycle (counted first, so as to hold no more). */
static void find_cycles(tuple_permutation *t)
{
     unsigned char *seen = (unsigned char *) MALLOC((size_t) items(t) / 8 + 1, PLANS);
     t->cycles = walk_cycles(t, seen, 0);
     t->leaders = (INT *) MALLOC((size_t) (t->cycles + 1) * sizeof(INT), PLANS);
     walk_cycles(t, seen, t->leaders);
     X(ifree)(seen);
}

void XM(tuple_permutation_init)(tuple_permutation *t, int m, const INT n[],
				const int order[], INT tuple)
{
     int a;

     A(m >= 1 && m <= 3);
     t->m = m;
     for (a = 0; a < m; ++a) {
	  t->n[a] = n[a];
	  t->order[a] = order[a];
     }
     t->tuple = tuple;
     find_cycles(t);
}

void XM(tuple_transpose_init)(tuple_permutation *t, INT rows, INT cols,
			      INT tuple)
{
     const INT n[2] = { rows, cols };
     static const int order[2] = { 1, 0 };
     XM(tuple_permutation_init)(t, 2, n, order, tuple);
}

void XM(tuple_segments_init)(tuple_permutation *t, INT rows, INT count,
			     INT width, INT last, int to_rows, INT tuple)
{
     A(count >= 1 && width >= 1 && last >= 0);
     t->m = 0;
     t->segments.rows = rows;
     t->segments.count = count;
     t->segments.width = width;
     t->segments.last = last;
     t->segments.to_rows = to_rows;
     t->tuple = tuple;
     find_cycles(t);
}

void XM(tuple_compose_init)(tuple_permutation *t, const tuple_permutation *first,
			    const tuple_permutation *second, INT span)
{
     int k;
     A(first->m >= 0 && second->m >= 0 && first->tuple == second->tuple);
     t->m = -1;
     t->span = span;
     t->tuple = first->tuple;
     t->parts = (tuple_permutation *) MALLOC(2 * sizeof *t->parts, PLANS);
     t->parts[0] = *first;
     t->parts[1] = *second;
     for (k = 0; k < 2; ++k) {
	  t->parts[k].leaders = 0;
	  t->parts[k].cycles = 0;
     }
     /* the smaller part is the one applied to each block (none: one block) */
     t->blockwise = items(first) < items(second) ? 0
	  : items(second) < items(first) ? 1 : -1;
     A(t->blockwise < 0 || items(&t->parts[t->blockwise]) == span);
     find_cycles(t);
}

void XM(tuple_permutation_free)(tuple_permutation *t)
{
     X(ifree0)(t->leaders);
     t->leaders = 0;
     if (t->m == -1) {
	  X(ifree0)(t->parts);
	  t->parts = 0;
     }
}

/* Whether the cycle through x has a tuple in [lo, hi). */
static int cycle_touches(const tuple_permutation *t, INT x, INT lo, INT hi)
{
     INT y = x;
     do {
	  if (y >= lo && y < hi)
	       return 1;
	  y = source(t, y);
     } while (y != x);
     return 0;
}

INT XM(tuple_permutation_defer)(tuple_permutation *t, INT lo, INT hi)
{
     INT k, apart = 0;
     for (k = 0; k < t->cycles; ++k)
	  if (!cycle_touches(t, t->leaders[k], lo, hi)) {
	       INT leader = t->leaders[k];
	       t->leaders[k] = t->leaders[apart];
	       t->leaders[apart++] = leader;
	  }
     return apart;
}

/* A cycle's tuples lie far apart, and the hardware prefetches along a
   tuple, not to the next one: asking for the next one's first lines while
   this one moves took tuples of 1-3 KiB from 1.5-2.0x the time of a
   memcpy of their bytes to 1.1-1.4x (bench/permute_tuples.sh; 512-byte
   ones stay at 2x, bound by the index arithmetic).  The next one's target
   is this one's source, already in cache. */
enum { PREFETCH_BYTES = 4096, CACHE_LINE = 64 };

static void prefetch(const R *tuple, size_t bytes)
{
#if defined(__GNUC__)
     size_t b;
     for (b = 0; b < bytes && b < PREFETCH_BYTES; b += CACHE_LINE)
	  __builtin_prefetch((const char *) tuple + b);
#else
     (void) tuple;
     (void) bytes;
#endif
}

void XM(permute_tuple_cycles)(const tuple_permutation *t, R *a, INT first,
			      INT last)
{
     INT tuple = t->tuple, chunk = X(imin)(tuple, TUPLE_CHUNK), c, k;
     R *saved;

     if (first >= last)
	  return;
     saved = (R *) MALLOC(sizeof(R) * chunk, BUFFERS);
     for (c = 0; c < tuple; c += chunk) {
	  size_t bytes = sizeof(R) * (size_t) X(imin)(chunk, tuple - c);
	  for (k = first; k < last; ++k) {
	       INT leader = t->leaders[k], to = leader, from = source(t, leader);
	       memcpy(saved, a + leader * tuple + c, bytes);
	       while (from != leader) {
		    INT next = source(t, from);
		    prefetch(a + next * tuple + c, bytes);
		    memcpy(a + to * tuple + c, a + from * tuple + c, bytes);
		    to = from;
		    from = next;
	       }
	       memcpy(a + to * tuple + c, saved, bytes);
	  }
     }
     X(ifree)(saved);
}

void XM(permute_tuples)(const tuple_permutation *t, R *a)
{
     XM(permute_tuple_cycles)(t, a, 0, t->cycles);
}

INT XM(tuple_permutation_reals)(const tuple_permutation *t)
{
     return items(t) * t->tuple;
}

INT XM(tuple_cycles_reals)(const tuple_permutation *t, INT first, INT last)
{
     INT moved = 0, k, y;
     for (k = first; k < last; ++k) {
	  y = t->leaders[k];
	  do {
	       ++moved;
	       y = source(t, y);
	  } while (y != t->leaders[k]);
     }
     return moved * t->tuple;
}

INT XM(tuple_gcd)(INT a, INT b)
{
     while (b) {
	  INT r = a % b;
	  a = b;
	  b = r;
     }
     return a;
}
