/*
 * general_layout.h - random problems for the general in-place Alltoallv,
 * the same on every rank for the same seed (each rank computes the whole
 * count matrix, then its own placement).  Shared by the simulation test
 * (no communication) and the MPI test.
 */
#ifndef AIP_GENERAL_LAYOUT_H
#define AIP_GENERAL_LAYOUT_H

#include <stdint.h>

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

#endif /* AIP_GENERAL_LAYOUT_H */
