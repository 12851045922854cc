/*
 * general_layout.h - random problems for the general in-place Alltoallv,
 * the same on every rank for the same seed (each rank computes the whole
 * count matrix, then its own placement), and the check of an in-place
 * exchange of such a problem against MPI_Alltoallv.  Shared by the
 * simulation test (no communication) and the MPI tests of
 * AIP_Alltoallv_general and of the benchmarks' naive_alltoallv.
 */
#ifndef AIP_GENERAL_LAYOUT_H
#define AIP_GENERAL_LAYOUT_H

#include <stdint.h>

#include <mpi.h>

typedef enum {
    PATTERN_DENSE,      /* random counts, a fifth of them zero, totals differ between ranks */
    PATTERN_SPARSE,     /* each rank sends to 1-3 random peers */
    PATTERN_ONE_SENDER, /* rank 0 sends to everyone, nobody else sends */
    PATTERN_GRAINS,     /* counts of 0, 1 or 2 grains: many messages of equal size */
    N_PATTERNS
} layout_pattern;

typedef enum {
    PLACE_SHUFFLED, /* send and receive regions each in a random order, random gaps */
    PLACE_REVERSED, /* receive regions in the reverse order of the send regions */
    PLACE_OVER,     /* receive regions exactly over send regions of other messages */
    N_PLACEMENTS
} layout_placement;

extern const char *const layout_pattern_names[N_PATTERNS];
extern const char *const layout_placement_names[N_PLACEMENTS];

/* count[i * p + j]: elements rank i sends to rank j, at most max_count each. */
void layout_counts(int p, uint64_t seed, layout_pattern pattern, long long max_count,
                   long long *count);

/* Displacements of rank's send and receive regions, in elements, and the
 * elements its buffer needs (the end of the last region). */
void layout_place(int p, int rank, uint64_t seed, layout_placement placement,
                  const long long *count, long long *sdispl, long long *rdispl,
                  long long *buf_count);

/* One rank's side of a problem as MPI_Alltoallv takes it, in elements. */
typedef struct layout_problem {
    long long *count; /* p x p, as layout_counts gives it */
    int *scounts, *sdispls, *rcounts, *rdispls;
    long long elements; /* of this rank's buffer */
} layout_problem;

/* Counts of `pattern` (at most max_count), then this rank's places. */
void layout_problem_make(int p, int rank, uint64_t seed, layout_pattern pattern,
                         layout_placement placement, long long max_count, layout_problem *pr);
/* Allocates pr's arrays but count, which the caller has allocated and filled
 * (p x p), and places this rank's regions for those counts. */
void layout_problem_place(int p, int rank, uint64_t seed, layout_placement placement,
                          layout_problem *pr);
void layout_problem_free(layout_problem *pr);

/* ---- Checking an in-place exchange against MPI_Alltoallv ---- */

/* The datatypes the MPI tests exchange in turn: MPI_BYTE, MPI_DOUBLE and a
 * contiguous type of 3 ints (created by layout_types_create). */
typedef struct layout_type {
    const char *name;
    MPI_Datatype type;
    int size;
} layout_type;
enum { N_LAYOUT_TYPES = 3 };
void layout_types_create(layout_type types[N_LAYOUT_TYPES]);
void layout_types_free(layout_type types[N_LAYOUT_TYPES]);

/* The in-place exchange of pr's regions in buf under test, on MPI_COMM_WORLD;
 * returns an MPI error code. */
typedef int (*layout_exchange)(void *buf, const layout_problem *pr, MPI_Datatype type,
                               void *context);

/*
 * Runs `exchange` on noise (test_fill of seed) and MPI_Alltoallv out of place
 * on a copy, and compares every receive region byte for byte; a rank that
 * sees an error or a difference says so on stderr, with `what` (the case).
 * Returns 1 if the case passed on every rank (collective).
 */
int layout_check_exchange(const layout_problem *pr, const layout_type *type, uint64_t seed,
                          layout_exchange exchange, void *context, const char *what);

#endif /* AIP_GENERAL_LAYOUT_H */
