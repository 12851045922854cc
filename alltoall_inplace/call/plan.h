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
} aip_workspace;

typedef struct AIP_Plan_s aip_plan;

struct aip_algorithm_row;
struct aip_nodes;

struct AIP_Plan_s {
    aip_call call;          /* the layout (call.buf unused: each execution brings one) */
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
};

#endif /* AIP_PLAN_H */
