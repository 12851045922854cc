/*
 * plan.h - a call ready to execute: agreed, its algorithm chosen, its
 * workspace allocated (pipeline.c).  The run functions of the algorithm
 * table read it; only the pipeline writes it.
 */
#ifndef AIP_PLAN_H
#define AIP_PLAN_H

#include "call/call.h"
#include "exchange/exchange.h"

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
