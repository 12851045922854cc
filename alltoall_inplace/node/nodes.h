/*
 * nodes.h - what the node-aware exchanges (sa, l, rd) share: the shape of
 * the machine, whose rank tables are also the segments sa and rd exchange,
 * and l's block layouts at the leaders with the in-place permutation that
 * moves blocks from one layout to the next.
 *
 * Notation (Kumar, Mamidala & Panda, Sect. 5): n nodes of q ranks each;
 * rank (a, x) is local rank x on node a.  Nodes are numbered in the order of
 * their lowest global rank, local ranks in global rank order, so that any
 * placement (block, cyclic, arbitrary) maps to one (a, x) per rank.
 *
 * The tables, layouts and permutation are pure, tested without MPI
 * (tests/unit/node_sim_test runs whole exchanges on simulated processes).
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
    /* Equal nodes only, else NULL: the global ranks in node-major and in local-major
     * order, rank (a, x) at rank_at[a * q + x] and at by_local[x * n + a].  They are
     * also the segments of sa's and rd's steps (alltoall_sa.c): across nodes, peer b's
     * blocks are those of b's ranks, rank_at[b * q + y] for y < q; within a node,
     * peer y's are those of the ranks of local rank y, by_local[y * n + b] for b < n. */
    const int *rank_at;
    const int *by_local;
} aip_shape;

/* Whether the two-level exchanges apply: equal nodes, more than one node and
 * more than one rank per node (otherwise they are hsa with extra steps). */
int aip_shape_two_level(const aip_shape *shape);
/* Fill rank_at and by_local ([n * q] each) from node_of and local_of; equal nodes. */
void aip_shape_rank_tables(const aip_shape *shape, int *rank_at, int *by_local);

/* l, at a leader before the exchange: the node's buffers [source local x][global
 * destination j] -> [destination node b][destination local y][source local x];
 * dest[i] is the position block i moves to (aip_permute_blocks). */
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

#endif /* AIP_NODES_H */
