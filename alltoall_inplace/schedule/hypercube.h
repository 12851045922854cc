/*
 * hypercube.h - the stages of the hypercube all-to-all, as pure functions
 * of (rank, p, stage).  schedule_hypercube.c explains the routing and proves
 * where every block is after each stage; exchange/alltoall_hypercube.c runs
 * the stages over a buffer.  tests/unit/schedule_test follows every block of
 * every rank through the stages for p = 1..1024.
 *
 * A rank's buffer is p equal blocks, at positions 0..p-1.  At each stage a
 * rank sends some of its blocks to one rank and receives as many from one
 * rank into the positions it sent from: the m-th block received replaces
 * the m-th block sent.  After the last stage one local permutation (an
 * involution, the identity for a power of two) puts every block home.
 */
#ifndef AIP_HYPERCUBE_H
#define AIP_HYPERCUBE_H

typedef struct aip_hypercube_stage {
    int to;    /* where this rank's blocks go */
    int from;  /* where the blocks it receives come from (== to for a power of two) */
    int count; /* blocks each way, at most p / 2 */
} aip_hypercube_stage;

/* ceil(log2 p): the stages of p ranks (0 for p = 1). */
int aip_hypercube_nstages(int p);

/* Stage k (0 <= k < nstages) of `rank` among p: its partners, and in
 * positions[0 .. count) (room for p / 2) the positions of the blocks it
 * sends, in the order they travel. */
aip_hypercube_stage aip_hypercube_stage_of(int rank, int p, int k, int *positions);

/* After the last stage, the block from rank s sits at position
 * aip_hypercube_home(rank, p, s) and the block at position s belongs at
 * that same position: the final permutation swaps the two (involution). */
int aip_hypercube_home(int rank, int p, int s);

#endif /* AIP_HYPERCUBE_H */
