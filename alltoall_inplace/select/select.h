/*
 * select.h - the algorithm table and the choice among its rows.
 *
 * One row per algorithm (algorithms.c): its name, its kind, how it runs and
 * what workspace it needs.  The table drives the pipeline's dispatch, the
 * names AIP_ALGORITHM accepts and its help, and the solver instances the
 * FFTW transposes register (AIP_Algorithm_at).  Adding an algorithm is one
 * file, one row, and its tests.  What `auto` picks, and what an algorithm
 * falls back to where it does not apply, is decided apart from the
 * algorithms (decision.c), as Open MPI's coll/tuned decision files do.
 */
#ifndef AIP_SELECT_H
#define AIP_SELECT_H

#include "call/plan.h"
#include "node/nodes.h"
#include "schedule/schedule.h"

/* What a call needs besides its blocks, for the algorithms it may run; the
 * pipeline allocates it before the agreement. */
typedef struct aip_needs {
    size_t aux_bytes; /* the auxiliary buffer, within the budget */
    int ring;         /* the executor's ring of transfers (exchange/) */
    int schedule;     /* a schedule's peers: 2p ints */
    int segments;     /* node-aware steps' index space: p blocks, p displacements */
    int general;      /* the general algorithm's index sets and messages (general/) */
    int nodes;        /* the node tables, unless the communicator's cache holds them */
} aip_needs;

typedef struct aip_algorithm_row {
    AIP_Algorithm algorithm;
    const char *name;
    AIP_Algorithm_kind kind;
    const char *summary; /* one line, for AIP_ALGORITHM's help */
    /* KIND_SCHEDULE: the schedule the executor runs (run is aip_run_schedule). */
    const aip_schedule *schedule;
    /* Everything but choices: execute a plan on buf (from sendbuf out of place). */
    int (*run)(const aip_plan *plan, char *buf, const char *sendbuf);
    /* Everything but choices: add this call's needs to *needs (field-wise maximum). */
    void (*needs)(const aip_call *call, size_t budget, aip_needs *needs);
} aip_algorithm_row;

/* algorithms.c: the row of an algorithm (choices included); NULL if none. */
const aip_algorithm_row *aip_algorithm_row_of(AIP_Algorithm algorithm);
/* The names of the table, ", "-separated, for messages (truncated to size). */
void aip_algorithm_names(char *text, size_t size);

/* decision.c */
/* Whether `asked` may turn out node-aware for this call: the nodes must be found. */
int aip_may_run_node_aware(const aip_call *call, AIP_Algorithm asked);
/* The needs of every algorithm `asked` may turn into (auto: all it may choose). */
void aip_needs_of(const aip_call *call, AIP_Algorithm asked, size_t budget, aip_needs *needs);
/* The algorithm to run once the nodes (or NULL) and the smallest budget are
 * known; `why` says why it is not the one asked for, or is NULL. */
AIP_Algorithm aip_decide(const aip_call *call, AIP_Algorithm asked, const aip_shape *shape,
                         long long min_aux_bytes, const char **why);

#endif /* AIP_SELECT_H */
