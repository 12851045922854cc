/*
 * node_aware.h - the node-aware algorithms of AIP_Alltoall (sa, rd, l):
 * the nodes of a communicator (nodes.c), the steps the algorithms share
 * (node_exchange.c) and the algorithms (alltoall_sa.c, _rd.c, _l.c).  The
 * pure parts, the machine's shape and l's layouts, are in nodes.h.
 */
#ifndef AIP_NODE_AWARE_H
#define AIP_NODE_AWARE_H

#include <stdatomic.h>

#include "call/comm.h"
#include "call/plan.h"
#include "exchange/exchange.h"
#include "node/nodes.h"

/* nodes.c: the nodes of a communicator, cached on it. */
typedef struct aip_nodes {
    int ranks_per_node;  /* the grouping asked for: 0 = MPI_COMM_TYPE_SHARED */
    aip_shape shape;
    int node, local;     /* this rank's (a, x) */
    MPI_Comm node_comm;  /* the ranks of my node, ranked by local rank */
    MPI_Comm peer_comm;  /* the ranks of my local rank, ranked by node; equal nodes only */
    int *tables;         /* behind shape's arrays */
    _Atomic int references; /* the cache's and each plan's */
    aip_cached cached;      /* the cache's attribute, deleted at MPI_Finalize at the latest */
} aip_nodes;
/* Step 1 of the pipeline (local): the memory a build of comm's nodes of this
 * grouping takes, in *spare, unless comm's cache holds them (*spare NULL);
 * MPI_ERR_NO_MEM if it cannot be had. */
int aip_nodes_reserve(MPI_Comm comm, int ranks_per_node, int size, aip_nodes **spare);
/* After the agreement, collective over private_comm: comm's nodes, from the
 * cache or built in *spare (taken); the same result (or error) on every rank.
 * The caller holds a reference to *nodes until aip_nodes_release. */
int aip_nodes_get(MPI_Comm comm, MPI_Comm private_comm, int ranks_per_node, aip_nodes **spare,
                  const aip_nodes **nodes);
/* Drop a reference (or an unused spare); NULL is ignored. */
void aip_nodes_release(const aip_nodes *nodes);

/* An AIP_Alltoall as the node-aware algorithms run it. */
typedef struct aip_node_call {
    char *buf;           /* p blocks of block_bytes, in global rank order */
    const char *sendbuf; /* out of place: what to send, laid out as buf; else NULL */
    size_t block_bytes;
    const aip_nodes *nodes;
    const aip_workspace *space;
    size_t chunk_bytes;  /* agreed by all ranks */
    /* The plan's index space, p entries each; peers (2p) is its schedule array. */
    aip_block *blocks;
    MPI_Aint *displacements;
    int *peers;
} aip_node_call;
/* The node call of a plan executing on buf (its block 0 at call.first_offset). */
aip_node_call aip_node_call_of(const aip_plan *plan, char *buf, const char *sendbuf);

/* The algorithms: rows of the table (select/algorithms.c), their state an
 * aip_index_space (exchange.h; l's begins with one); sa and rd use the aux of
 * a schedule's exchange, l the larger of that and its leader's aggregation
 * space.  All three run as jobs, advanced by aip_exchange_advance. */
size_t aip_l_aux_bytes(const aip_call *call, size_t budget);
int aip_start_sa(aip_plan *plan, char *buf, const char *sendbuf);
int aip_start_rd(aip_plan *plan, char *buf, const char *sendbuf);
int aip_start_l(aip_plan *plan, char *buf, const char *sendbuf);
/* l's state: the index space, with its node's messages in flight. */
int aip_l_allocate(const struct aip_algorithm_row *row, const aip_call *call, void **state);
size_t aip_l_bytes(const aip_call *call, const void *state);

/* node_exchange.c: the steps the three share. */
/* A level of the machine, as sa and rd exchange over it: the ranks of this rank's
 * node, peers by local rank, peer y's blocks those of local rank y's ranks; or
 * the ranks of its local rank, peers by node, peer b's blocks those of b's ranks. */
typedef struct aip_node_level {
    MPI_Comm comm;
    const int *positions; /* peer i's blocks: positions[i * per_peer ...] (aip_segments) */
    int per_peer;
} aip_node_level;
aip_node_level aip_level_within(const aip_nodes *nodes);
aip_node_level aip_level_across(const aip_nodes *nodes);
/* sa and rd: an in-place hsa exchange of block lists over `first`, then over
 * `second`; out of place the first reads the send buffer. */
/* sa and rd: begin the first step, over `first`, on the plan's job; once it is
 * complete the job goes on with the second, over the other level.  Advance the
 * job with aip_exchange_advance. */
int aip_node_start_two_steps(aip_plan *plan, char *buf, const char *sendbuf,
                             aip_node_level first);
/* l: begin on job the in-place hsa exchange over comm in which peer i's data is
 * segment i of buf; error: the call's first error so far (exchange.h). */
void aip_node_begin_exchange(aip_exchange_job *job, const aip_node_call *call, char *buf,
                             size_t segment_bytes, MPI_Comm comm, const aip_workspace *space,
                             int error);
/* l: aggregation space a leader needs on nodes of q ranks (blocks, index arrays). */
size_t aip_leader_bytes(int size, int per_node, size_t block_bytes);

#endif /* AIP_NODE_AWARE_H */
