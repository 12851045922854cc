/*
 * exchange.h - the executor: runs a schedule of pairwise exchanges over the
 * caller's buffer through a bounded auxiliary buffer (exchange.c explains
 * how, and why it cannot deadlock).
 */
#ifndef AIP_EXCHANGE_H
#define AIP_EXCHANGE_H

#include "call/call.h"

/* The memory the executor works in, allocated by the pipeline before the
 * agreement so that running out of memory is an error all ranks return. */
typedef struct aip_workspace {
    char *aux; /* the auxiliary buffer: copies of outgoing chunks */
    size_t aux_bytes;
    void *ring; /* the transfers in flight */
    int capacity;
} aip_workspace;
/* ring: whether the executor's ring of transfers is needed (the general
 * algorithm uses aux alone). */
int aip_workspace_alloc(aip_workspace *space, size_t aux_bytes, int ring,
                        size_t max_chunk_bytes, int comm_size);
void aip_workspace_free(aip_workspace *space);

/* Exchange peers[s]'s block of buf with it, for s < nsteps (AIP_IDLE: none). */
int aip_exchange(char *buf, const aip_block *blocks, const int *peers, int nsteps,
                 const aip_workspace *space, size_t chunk_bytes, MPI_Comm comm);

/* Peer i's data as a list of equal blocks, wherever they lie: the blocks at
 * positions[i * per_peer + k] * block_bytes, k < per_peer, in that order. */
typedef struct aip_segments {
    const int *positions;
    int per_peer;
    size_t block_bytes;
    MPI_Aint *displacements; /* scratch for per_peer entries */
} aip_segments;
/* aip_exchange of segments: ours read from src (buf, or a send buffer), the
 * peer's written into the same positions of buf.  Blocks smaller than a chunk
 * travel several to a message: gathered into aux, scattered by a datatype. */
int aip_exchange_segments(char *buf, const char *src, const aip_segments *segments,
                          const int *peers, int nsteps, const aip_workspace *space,
                          size_t chunk_bytes, MPI_Comm comm);

/* The run of every schedule row of the algorithm table: the plan's schedule
 * (peers, nsteps) over its blocks; out of place the blocks are first copied
 * from sendbuf into buf. */
int aip_run_schedule(const aip_plan *plan, char *buf, const char *sendbuf);

#endif /* AIP_EXCHANGE_H */
