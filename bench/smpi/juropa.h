/*
 * juropa.h - the JuRoPA model's figures (platforms.cpp's opening comment says
 * where they come from), shared by the platform and by fattree_load.c, which
 * counts flows on the links the platform builds.
 */
#ifndef JUROPA_H
#define JUROPA_H

#define JUROPA_CORES 8                   /* ranks per node */
#define JUROPA_LINK_BANDWIDTH 3.2e9      /* bytes/s per direction, every link */
#define JUROPA_LINK_LATENCY 0.1e-6       /* s */
#define JUROPA_NODE_COPY_BANDWIDTH 32e9  /* STREAM copy of a node, bytes/s */
#define JUROPA_LEAF_NODES 18             /* nodes per leaf switch */
#define JUROPA_SPINES 18                 /* uplinks per leaf, one per spine */

#endif /* JUROPA_H */
