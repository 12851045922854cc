/*
 * select.h - the algorithm table and the choice among its rows.
 *
 * One row per algorithm (algorithms.c): its name, its kind, how it runs and
 * what workspace it needs.  The table drives the pipeline's dispatch and
 * allocation, the names AIP_ALGORITHM accepts and its help, the solver
 * instances the FFTW transposes register, and the algorithms the tests and
 * benchmarks run (AIP_Algorithm_at).  Adding an algorithm is its file, its
 * row, its enum value and its line in Makefile.am.  What `auto` picks, and
 * what an algorithm falls back to where it does not apply, is decided apart
 * from the algorithms (decision.c), as Open MPI's coll/tuned decision files
 * do; tests/unit/decision_test checks it without MPI.
 */
#ifndef AIP_SELECT_H
#define AIP_SELECT_H

#include "call/plan.h"
#include "node/nodes.h"
#include "schedule/schedule.h"

/* One row per algorithm: what it is, how it runs, and the workspace it
 * needs.  The pipeline makes the workspace of every row a call may turn into
 * (aip_may_run) before the agreement, so that running out of memory is an
 * error all ranks return, and keeps the chosen row's after the choice. */
typedef struct aip_algorithm_row {
    AIP_Algorithm algorithm;
    const char *name;
    AIP_Algorithm_kind kind;
    const char *summary; /* one line, for AIP_ALGORITHM's help */
    /* AIP_KIND_SCHEDULE: the schedule the executor runs (aip_start_schedule). */
    const aip_schedule *schedule;
    /* Everything but choices executes a plan on buf (from sendbuf out of
     * place) as a job of the executor that stops and resumes: start begins
     * it on plan->job, and the tests and waits advance it
     * (aip_exchange_advance; AIP_Plan_execute is start and a wait). */
    int (*start)(aip_plan *plan, char *buf, const char *sendbuf);
    /* Its workspace.  aux_bytes: how much of the plan's auxiliary buffer it
     * uses, within the budget; ring: whether the executor's ring of
     * transfers (exchange.h).  allocate: its own state, O(p), made from the
     * call's rank and size alone (aip_plan.state, which run reads); release
     * frees it, bytes says what it holds.  NULL allocate: no state. */
    size_t (*aux_bytes)(const aip_call *call, size_t budget);
    int ring;
    int (*allocate)(const struct aip_algorithm_row *row, const aip_call *call, void **state);
    void (*release)(void *state);
    size_t (*bytes)(const aip_call *call, const void *state);
} aip_algorithm_row;

/* algorithms.c: the row of an algorithm (choices included); NULL if none. */
const aip_algorithm_row *aip_algorithm_row_of(AIP_Algorithm algorithm);

/* decision.c */
/* The algorithm a call asks for, given the one its options name: a call
 * with separate receive blocks asks for the general algorithm, whatever is
 * named, since no other takes its layouts. */
AIP_Algorithm aip_asked(const aip_call *call, AIP_Algorithm named);
/* Whether `asked` may turn out node-aware for this call: the nodes must be found. */
int aip_may_run_node_aware(const aip_call *call, AIP_Algorithm asked);
/* The rows `asked` may turn into for this call, whatever the agreement and
 * the nodes turn out to be: fills rows[0 .. count) and returns count. */
enum { AIP_MAY_RUN_MAX = 5 }; /* auto's candidates (decision.c checks) */
int aip_may_run(const aip_call *call, AIP_Algorithm asked, AIP_Algorithm rows[AIP_MAY_RUN_MAX]);
/* The algorithm to run once the nodes (or NULL) and the smallest budget are
 * known; `why` says why it is not the one asked for, or is NULL.  One of
 * aip_may_run's rows. */
AIP_Algorithm aip_decide(const aip_call *call, AIP_Algorithm asked, const aip_shape *shape,
                         long long min_aux_bytes, const char **why);

#endif /* AIP_SELECT_H */
