/*
 * bcast.h - what AIP_Bcast_rma (bcast_rma.c) builds on: the windows cached
 * on a communicator (bcast_windows.c) and the user's buffer seen as a
 * stream of bytes (bcast_stream.c).
 */
#ifndef AIP_BCAST_H
#define AIP_BCAST_H

#include "call/call.h"
#include "call/comm.h"

/*
 * The windows of one communicator, made by the first broadcast on it and
 * kept as an attribute until the communicator is freed (or a call asks for
 * another budget or grouping).  A node is the ranks of one shared-memory
 * domain (MPI_COMM_TYPE_SHARED), cut into groups of ranks_per_node
 * consecutive ranks when that is > 0; nodes are numbered in the order of
 * their lowest rank, and a node's leader is its lowest rank.
 */
typedef struct aip_bcast_windows {
    long long budget;   /* the agreed aux budget they were made for */
    int ranks_per_node; /* the agreed grouping */
    int nodes;
    const int *node_of;   /* [p]: the node of each rank */
    const int *leader_of; /* [nodes]: the leader (global rank) of each node */
    int *children;        /* [nodes]: scratch for a tree's children */
    MPI_Comm node_comm;   /* the ranks of my node; the leader is its rank 0 */
    int node_size;
    MPI_Win shared_win; /* the node's segment, allocated at its leader */
    char *segment;      /* that segment, in this process */
    MPI_Win tree_win;   /* the leaders, expose the segment; rank n leads node n (none if
                           one node; MPI_WIN_NULL at the other ranks) */
    MPI_Comm leaders;   /* tree_win's communicator, freed after it (bcast_windows.c) */
    MPI_Group group;    /* of tree_win's leaders, for the PSCW groups (leaders only) */
    size_t slot_bytes;  /* the segment holds AIP_BCAST_SLOTS slots of one chunk */
    unsigned long long chunks_done; /* on this communicator: chunk c uses slot c % SLOTS */
    int host_nodes;     /* nodes on my host (MPI_COMM_TYPE_SHARED): > 1 where cut */
    int no_rma;         /* MPI could not make the windows on some rank: MPI_Bcast instead */
    int osc_unsafe;     /* ... or they were not made: Open MPI's osc/rdma (bcast_windows.c) */
    int warned;         /* ... and rank 0 said so */
    int *ints;          /* the memory of node_of, leader_of, children */
    aip_cached cached;  /* freed when MPI_Finalize begins, if comm is not freed before */
} aip_bcast_windows;

/* The budget's slot size: the same on every rank for the same budget. */
size_t aip_bcast_slot_bytes(long long budget);

/* After the agreement (collective): the windows of `comm` for the agreed
 * budget and grouping, cached or made now.  Making them agrees first on the
 * memory it needs, so that MPI_ERR_NO_MEM is returned by every rank alike,
 * and then on whether MPI made the windows on every rank: where it cannot
 * (an MPI without one-sided communication on this network, such as Open MPI
 * 4.1's TCP transport without UCX), the result says so in no_rma, cached
 * like the windows, and the broadcast is MPI_Bcast's.  Other errors are MPI's. */
int aip_bcast_windows_get(MPI_Comm comm, MPI_Comm private_comm, long long budget,
                          int ranks_per_node, aip_bcast_windows **windows);

/*
 * The user's buffer as the byte stream MPI_Pack would make of it.  Datatypes
 * whose elements are runs of bytes are cut anywhere with memcpy; others go
 * element by element through MPI_Pack and MPI_Unpack, an element cut by a
 * chunk boundary through `partial` (one element).
 */
typedef struct aip_bcast_stream {
    char *buf;
    int count;
    MPI_Datatype type;
    MPI_Comm comm;      /* for MPI_Pack */
    aip_type_info info;
    int bytewise;       /* the elements are consecutive runs of bytes */
    char *partial;      /* element_bytes, when not bytewise */
} aip_bcast_stream;

/* Describe buf; records errors in call.  Returns whether the stream can be
 * cut into chunks (not: a non-bytewise element larger than the budget, or an
 * MPI whose packed format is not the bytes). */
int aip_bcast_stream_begin(aip_bcast_stream *stream, aip_call *call, void *buf, int count,
                           MPI_Datatype type, long long budget);
/* Allocate `partial` if needed (before the agreement). */
int aip_bcast_stream_reserve(aip_bcast_stream *stream);
void aip_bcast_stream_end(aip_bcast_stream *stream);
/* Bytes [from, from + bytes) of the stream into `to`, or out of `from_bytes`;
 * unpacking goes forward through the stream (the partial element carries over). */
int aip_bcast_stream_pack(aip_bcast_stream *stream, MPI_Count from, size_t bytes, char *to);
int aip_bcast_stream_unpack(aip_bcast_stream *stream, MPI_Count from, size_t bytes,
                            const char *from_bytes);

#endif /* AIP_BCAST_H */
