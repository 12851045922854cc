/*
 * aip_internal.h - what the parts of the library share.
 *
 * A call flows through four layers, each in its own file:
 *   front end  (alltoall.c, alltoallv.c, alltoallw.c)  turns the MPI-style
 *              arguments into one byte range per peer (an aip_block);
 *   call       (call.c, check.c)  validates collectively, so that every rank
 *              returns the same error before any byte moves, then picks the
 *              algorithm (decision.c) and sizes the auxiliary buffer;
 *   schedule   (schedule_*.c)  pure functions: whom to meet at each step;
 *   executor   (exchange.c)  moves the bytes through the bounded buffer.
 */
#ifndef AIP_INTERNAL_H
#define AIP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "alltoall_inplace.h"
#include "node/nodes.h"
#include "schedule/schedule.h"
#include "tunables.h"

/* One peer's block, as the executor sees it: bytes [offset, offset + bytes) of buf. */
typedef struct aip_block {
    MPI_Aint offset;
    MPI_Count bytes;
} aip_block;

/* What the library needs to know of a datatype (datatype.c). */
typedef struct aip_type_info {
    MPI_Count size;   /* bytes of data in one element */
    MPI_Aint extent;  /* stride between consecutive elements */
    MPI_Aint true_lb; /* offset of the first byte of data */
    int dense;        /* one element is `size` consecutive bytes, in type-map order */
} aip_type_info;

/* A call in progress. */
typedef struct aip_call {
    const char *fn; /* public name, for messages */
    char *buf;
    MPI_Comm comm;  /* the caller's communicator */
    int rank, size;
    aip_block *blocks; /* one per rank; the send blocks of a general call */
    aip_block *recv_blocks; /* the receive blocks of a general call; NULL if symmetric */
    /* AIP_Alltoall's blocks, block j at buf + first_offset + j * block_bytes, when they
     * are contiguous (the node-aware algorithms need that); -1 for other calls. */
    MPI_Count block_bytes;
    MPI_Aint first_offset;
    const char *sendbuf; /* out of place: the blocks to send, laid out as buf's; else NULL */
    int error;         /* first error found on this rank: an MPI error class, or MPI_SUCCESS */
    char message[320]; /* what was wrong */
} aip_call;

/* call.c */
/* general: the call has separate receive blocks (AIP_Alltoallv_general). */
int aip_call_begin(aip_call *call, const char *fn, void *buf, MPI_Comm comm, int general);
void aip_call_set_block(aip_call *call, aip_block *blocks, int peer, int count,
                        const aip_type_info *type, MPI_Aint displacement, const char *what);
void aip_call_free(aip_call *call);
int aip_call_run(aip_call *call, const AIP_Options *options);
/* Report an error an MPI call returned during `what`; returns its class. */
int aip_raise_mpi_error(aip_call *call, int err, const char *what);

/* errors.c: the one error idiom.  Record the first local error of a call... */
void aip_call_error(aip_call *call, int error_class, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* ...print it, and raise `error_class` on `comm`'s error handler; returns error_class. */
int aip_raise(MPI_Comm comm, int error_class, const char *fn, const char *message);

/* check.c: collective validation. */
typedef struct aip_agreement {
    int error;               /* MPI_SUCCESS or the class every rank returns */
    int mismatch;            /* block sizes of some pair differ */
    long long choice;        /* what all ranks must choose alike (the algorithm, ...) */
    long long min_aux_bytes; /* smallest budget of all ranks */
} aip_agreement;
/* Blocks of one kind ("", "send ", "receive ") must not overlap each other. */
void aip_check_overlap(aip_call *call, const aip_block *blocks, const char *kind);
/* choice: an option all ranks must give alike, named by choice_name for
 * the message if they do not. */
int aip_check_collective(aip_call *call, MPI_Comm private_comm, long long choice,
                         const char *choice_name, long long aux_bytes,
                         aip_agreement *agreement);
int aip_report_mismatch(aip_call *call, MPI_Comm private_comm);
/* call.c: the collective check of a call on the private communicator, which
 * it returns; an error is raised and returned, the same on every rank. */
int aip_call_agree(aip_call *call, long long choice, const char *choice_name, long long aux_bytes,
                   MPI_Comm *private_comm, aip_agreement *agreement);

/* comm.c: the duplicate of a user communicator that carries our messages. */
int aip_private_comm(MPI_Comm comm, MPI_Comm *private_comm);

/* datatype.c */
int aip_type_info_get(MPI_Datatype type, aip_type_info *info);

/* options.c: like AIP_Options_resolve, saying in `why` what is invalid. */
int aip_options_resolve(const AIP_Options *options, AIP_Options *resolved, char *why,
                        size_t why_size);
int aip_env_debug(void);

/* algorithms.c: names and schedules; decision.c: what 'auto' means. */
const aip_schedule *aip_algorithm_schedule(AIP_Algorithm algorithm);
int aip_algorithm_node_aware(AIP_Algorithm algorithm);
AIP_Algorithm aip_decide(int comm_size);

/* exchange.c: the executor and the memory it works in, allocated before the
 * agreement so that running out of memory is an error all ranks return. */
typedef struct aip_workspace {
    char *aux; /* the auxiliary buffer: copies of outgoing chunks */
    size_t aux_bytes;
    void *ring; /* the transfers in flight */
    int capacity;
} aip_workspace;
int aip_workspace_alloc(aip_workspace *space, size_t aux_bytes, size_t max_chunk_bytes,
                        int comm_size);
void aip_workspace_free(aip_workspace *space);
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

/* nodes.c: the nodes of a communicator, cached on it (see nodes.h). */
typedef struct aip_nodes {
    int ranks_per_node;  /* the grouping asked for: 0 = MPI_COMM_TYPE_SHARED */
    aip_shape shape;
    int node, local;     /* this rank's (a, x) */
    MPI_Comm node_comm;  /* the ranks of my node, ranked by local rank */
    MPI_Comm peer_comm;  /* the ranks of my local rank, ranked by node; equal nodes only */
    int *tables;         /* behind shape's arrays */
} aip_nodes;
int aip_nodes_get(MPI_Comm comm, MPI_Comm private_comm, int ranks_per_node,
                  const aip_nodes **nodes);

/* An AIP_Alltoall as the node-aware algorithms run it (alltoall_sa.c, _rd.c, _l.c). */
typedef struct aip_node_call {
    char *buf;           /* p blocks of block_bytes, in global rank order */
    const char *sendbuf; /* out of place: what to send, laid out as buf; else NULL */
    size_t block_bytes;
    const aip_nodes *nodes;
    const aip_workspace *space;
    size_t chunk_bytes;  /* agreed by all ranks */
    /* Index space for p entries each, allocated with the workspace
     * (aip_node_arrays_alloc); peers (2p) is the call's schedule array. */
    aip_block *blocks;
    MPI_Aint *displacements;
    int *peers;
} aip_node_call;
int aip_alltoall_sa(const aip_node_call *call);
int aip_alltoall_rd(const aip_node_call *call);
int aip_alltoall_l(const aip_node_call *call);
/* node_exchange.c: the steps the three share. */
int aip_node_arrays_alloc(aip_node_call *call, int comm_size);
void aip_node_arrays_free(aip_node_call *call);
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
int aip_node_two_steps(const aip_node_call *call, aip_node_level first, aip_node_level second);
/* l: the in-place hsa exchange over comm in which peer i's data is segment i of buf. */
int aip_node_exchange(const aip_node_call *call, char *buf, size_t segment_bytes, MPI_Comm comm,
                      const aip_workspace *space);
/* l: aggregation space a leader needs on nodes of q ranks (blocks, index arrays). */
size_t aip_leader_bytes(int size, int per_node, size_t block_bytes);

/* decision.c: the algorithm an AIP_Alltoall runs on these nodes; `why` says why
 * it is not the one asked for, or is NULL. */
/* Whether an AIP_Alltoall asking for `asked` may run l (its leaders need more aux). */
int aip_may_choose_leader(AIP_Algorithm asked, size_t block_bytes);
AIP_Algorithm aip_decide_node_aware(AIP_Algorithm asked, const aip_shape *shape,
                                    size_t block_bytes, long long min_aux_bytes,
                                    const char **why);

#endif /* AIP_INTERNAL_H */
