/*
 * plan.h - a call ready to execute: agreed, its algorithm chosen, its
 * workspace allocated (pipeline/pipeline.c).  The run functions of the
 * algorithm table read it; only the pipeline writes it.  It sits on the
 * ground floor so that the algorithms below the pipeline can read it.
 */
#ifndef AIP_PLAN_H
#define AIP_PLAN_H

#include "call/call.h"
#include "call/comm.h"

/* The memory the executor works in (exchange/exchange.h allocates it),
 * allocated by the pipeline before the agreement so that running out of
 * memory is an error all ranks return. */
typedef struct aip_workspace {
    char *aux; /* the auxiliary buffer: copies of outgoing chunks */
    size_t aux_bytes;
    void *ring; /* the transfers in flight */
    int capacity;
    size_t ring_bytes;
    int tag; /* of this execution's messages (aip_private_next_tag) */
} aip_workspace;

/* The executor's transfers in flight, oldest first, and the ring of aux
 * space they hold (exchange.c). */
typedef struct aip_window {
    char *aux;
    size_t aux_bytes;
    size_t head; /* end of the newest copy */
    void *ring;
    int capacity, first, count;
    int tag;
    int error; /* the first error (wind_down.c): from then on our chunks go empty */
} aip_window;

/* Peer i's data as a list of equal blocks, wherever they lie: the blocks at
 * positions[i * per_peer + k] * block_bytes, k < per_peer, in that order
 * (by_step: step s's list at positions[s * per_peer], whoever its peer). */
typedef struct aip_segments {
    const int *positions;
    int per_peer;
    size_t block_bytes;
    MPI_Aint *displacements; /* scratch for per_peer entries */
    int by_step;
} aip_segments;

/* What a job's gate (its messages in flight) knows of them: the bytes message i
 * must bring (expected[i], or `each` for all where expected is NULL; 0 for a
 * send), what to do as each arrives (arrived, or NULL: nothing), and
 * MPI_Testsome's room for them. */
struct aip_exchange_job;
typedef struct aip_gate_space {
    const MPI_Aint *expected;
    MPI_Aint each;
    int (*arrived)(struct aip_exchange_job *job, int index);
    MPI_Status *statuses;
    int *indices;
} aip_gate_space;

/* A schedule's exchange under way (exchange.c): the transfers in flight and
 * the next chunk to post, so that it can stop and resume between any two.
 * Peer i's data is blocks[i], or (segments.positions set) a list of blocks
 * read from src.  Where the exchange is one step of several (sa, rd, the
 * hypercube's stages), then begins the next on the same job once this one
 * is complete. */
typedef struct aip_exchange_job {
    aip_window window;
    char *buf;
    const char *src;
    const aip_block *blocks;
    aip_segments segments;
    const int *peers;
    const int *sources; /* routed: step s receives from sources[s]; else from peers[s] */
    int nsteps;
    size_t chunk_bytes;
    MPI_Comm comm;
    int step;      /* whose data is being posted; nsteps once all are */
    int listed;    /* blocks of that peer's list posted so far */
    size_t posted; /* bytes of that block posted so far */
    /* Begins the next step with the call's first error so far and returns 1, or
     * returns 0: the exchange is complete.  context: the caller's (the plan). */
    int (*then)(struct aip_exchange_job *job, int error);
    void *context;
    /* Messages that must complete before the steps are posted (aip_exchange_begin_gate):
     * gate_left of gate_count still active. */
    MPI_Request *gate;
    int gate_count, gate_left;
    aip_gate_space gate_space;
    int busy;      /* being advanced: the sweeps of other waits pass it */
    int complete, result; /* once complete: the first error, or MPI_SUCCESS */
    struct aip_exchange_job *next_in_flight; /* aip_exchange_in_flight's list */
} aip_exchange_job;

typedef struct AIP_Plan_s aip_plan;

struct aip_algorithm_row;
struct aip_nodes;

struct AIP_Plan_s {
    aip_call call;          /* the layout; call.buf is the PMPI layer's persistent
                             * request's buffer (AIP_Plan_* executions bring their own) */
    aip_private *private;   /* a reference: the plan outlives call.comm if need be (comm.c) */
    MPI_Comm private_comm;  /* its handle: where our messages travel */
    const struct aip_algorithm_row *row; /* what runs */
    AIP_Algorithm asked;    /* as agreed, normalised */
    const char *why;        /* why row is not what was asked, or NULL */
    AIP_Options options;    /* resolved */
    const struct aip_nodes *nodes; /* node-aware algorithms: the nodes (a reference); else NULL */
    struct aip_nodes *spare_nodes; /* step 1: memory for building the nodes, if not cached */
    int debug;              /* AIP_DEBUG, on rank 0: print what runs */
    size_t chunk_bytes;     /* agreed by all ranks: the smallest budget's chunks */
    aip_workspace space;    /* the aux buffer (and the executor's ring) */
    void *state;            /* row's own workspace (select.h), or NULL */
    long long *report;         /* 2p: naming mismatched pairs (check.c) */
    int active;             /* AIP_Plan_start'ed, its completion not yet returned */
    struct aip_beginning *beginning; /* aip_plan_begin's plan: its agreement under way */
    aip_exchange_job job;   /* the execution under way (every row but general) */
};

#endif /* AIP_PLAN_H */
