/*
 * machines.h - the two platform models' figures (platforms.cpp's opening
 * comment says where they come from), shared by the platforms and by
 * route_load.c, which counts flows on the links the platforms build.
 */
#ifndef MACHINES_H
#define MACHINES_H

/* JuRoPA: a two-level fat tree of InfiniBand QDR switches */
#define JUROPA_CORES 8                   /* ranks per node */
#define JUROPA_LINK_BANDWIDTH 3.2e9      /* bytes/s per direction, every link */
#define JUROPA_LINK_LATENCY 0.1e-6       /* s */
#define JUROPA_NODE_COPY_BANDWIDTH 32e9  /* STREAM copy of a node, bytes/s */
#define JUROPA_LEAF_NODES 18             /* nodes per leaf switch */
#define JUROPA_SPINES 18                 /* uplinks per leaf, one per spine */

/* Juqueen: a Blue Gene/Q partition, a 5D torus */
#define JUQUEEN_CORES 16                 /* ranks per node */
#define JUQUEEN_LINK_BANDWIDTH 1.8e9     /* bytes/s per direction, every link */
#define JUQUEEN_LINK_LATENCY 0.05e-6     /* s per hop */
#define JUQUEEN_NODE_COPY_BANDWIDTH 28e9 /* STREAM copy of a node, bytes/s */
#define JUQUEEN_TORUS_DIMENSIONS 5       /* A, B, C, D, E */

/* The smallest partition of at least `nodes` nodes, as BG/Q's are: E is 2
 * (1 for one node), and A, B, C, D double in turn until the nodes fit. */
static inline void juqueen_torus(unsigned long nodes, unsigned long dims[JUQUEEN_TORUS_DIMENSIONS])
{
    for (int d = 0; d < JUQUEEN_TORUS_DIMENSIONS; d++)
        dims[d] = 1;
    dims[4] = nodes > 1 ? 2 : 1;
    for (int d = 0; dims[0] * dims[1] * dims[2] * dims[3] * dims[4] < nodes; d = (d + 1) % 4)
        dims[d] *= 2;
}

#endif /* MACHINES_H */
