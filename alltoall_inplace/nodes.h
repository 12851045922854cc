/*
 * nodes.h - what the node-aware exchanges (sa, l, rd) share: the shape of
 * the machine, the block layouts between their steps, and the in-place
 * permutation that moves blocks from one layout to the next.
 *
 * Notation (Kumar, Mamidala & Panda, Sect. 5): n nodes of q ranks each;
 * rank (a, x) is local rank x on node a.  Nodes are numbered in the order of
 * their lowest global rank, local ranks in global rank order, so that any
 * placement (block, cyclic, arbitrary) maps to one (a, x) per rank.
 *
 * The layouts and the permutation are pure functions, tested without MPI
 * (tests/node_sim_test runs whole exchanges on simulated processes).
 */
#ifndef AIP_NODES_H
#define AIP_NODES_H

#include <stddef.h>

/* The machine as the node-aware exchanges see it. */
typedef struct aip_shape {
    int size;            /* p */
    int nodes;           /* n */
    int per_node;        /* q when the nodes are equal; else the largest node */
    int smallest;        /* ranks of the smallest node */
    const int *node_of;  /* [p]: a of each global rank */
    const int *local_of; /* [p]: x of each global rank */
    const int *rank_at;  /* [n * q] (equal nodes only): global rank of (a, x) at a * q + x */
} aip_shape;

/* Whether the two-level exchanges apply: equal nodes, more than one node and
 * more than one rank per node (otherwise they are hsa with extra copies). */
int aip_shape_two_level(const aip_shape *shape);

/*
 * Layouts.  Each fills dest[i], the position block i moves to, for the
 * permutation between two steps of an exchange; blocks are numbered as the
 * buffer holds them before the permutation.
 */
/* sa, before step 1: global rank order -> [destination local y][destination node b]. */
void aip_layout_by_local(const aip_shape *shape, int *dest);
/* rd, before step 1: global rank order -> [destination node b][destination local y]. */
void aip_layout_by_node(const aip_shape *shape, int *dest);
/* Between the steps: [rows][cols] -> [cols][rows]. */
void aip_layout_transpose(int rows, int cols, int *dest);
/* sa, after step 2: [source node a][source local x] -> global rank order. */
void aip_layout_from_node_major(const aip_shape *shape, int *dest);
/* rd, after step 2: [source local x][source node a] -> global rank order. */
void aip_layout_from_local_major(const aip_shape *shape, int *dest);
/* l, at a leader before the exchange: the node's buffers [source local x][global
 * destination j] -> [destination node b][destination local y][source local x]. */
void aip_layout_leader_send(const aip_shape *shape, int *dest);
/* l, at a leader after it: [source node a][destination local y][source local x]
 * -> [destination local y][global source j], each local rank's buffer in turn. */
void aip_layout_leader_receive(const aip_shape *shape, int *dest);

/*
 * Move nblocks blocks of block_bytes bytes, block i of buf (at i * block_bytes)
 * to position dest[i], in place: cycle by cycle, through `temp` of temp_bytes
 * (> 0) bytes, a block at a time or, for blocks larger than temp, a piece of
 * every block of the cycle at a time.  scratch holds 3 * nblocks ints.
 * Every byte is copied once (plus once per cycle into temp).
 */
void aip_permute_blocks(char *buf, size_t block_bytes, int nblocks, const int *dest, char *temp,
                        size_t temp_bytes, int *scratch);

/* The same out of place: block i of src to position dest[i] of buf. */
void aip_scatter_blocks(char *buf, const char *src, size_t block_bytes, int nblocks,
                        const int *dest);

#endif /* AIP_NODES_H */
