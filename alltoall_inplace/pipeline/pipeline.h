/*
 * pipeline.h - the one path every exchange takes once its front end has
 * described the blocks (call/call.h):
 *   1. checks what one rank can check (options, overlapping blocks) and
 *      allocates everything the call may need (the workspace of every row
 *      of the algorithm table it may turn into), so that a failure there
 *      is an error like any other;
 *   2. agrees with the other ranks, in one MPI_Allreduce (check.c), on
 *      errors, block sizes, the options all must give alike and the budget:
 *      every rank returns the same error class before any byte moves;
 *   3. picks the algorithm (select/) and keeps its workspace;
 *   4. runs it: the table row's run function.
 * Steps 1-3 make a plan; step 4 executes it.  A one-shot call does all four
 * and frees the plan; AIP_*_init keeps the plan, so that repeated calls with
 * the same layout pay only for step 4 (no collective besides the exchange).
 * AIP_Bcast_rma takes steps 1 and 2 the same way (aip_agree) and runs its
 * own trees.
 */
#ifndef AIP_PIPELINE_H
#define AIP_PIPELINE_H

#include "call/plan.h"
#include "pipeline/check.h"

/* Steps 1-3 for a described call (collective); the plan takes the call's
 * arrays.  An error is raised and returned, the same on every rank, and
 * *plan is then NULL. */
int aip_plan_create(aip_call *call, const AIP_Options *options, aip_plan **plan);
/* Step 4 on buf (in place, or from sendbuf out of place). */
int aip_plan_execute(aip_plan *plan, char *buf, const char *sendbuf);
void aip_plan_free(aip_plan *plan);
/* All four steps: create, execute on call->buf, free. */
int aip_call_run(aip_call *call, const AIP_Options *options);
/* The PMPI layer's calls: all four steps, or with persistent non-NULL the
 * plan of MPI's persistent collective (MPI_Alltoall_init), bound to
 * call->buf as MPI binds the buffer (rebased from MPI_BOTTOM). */
int aip_call_run_or_plan(aip_call *call, const AIP_Options *options, aip_plan **persistent);

/* The PMPI layer's MPI_Ialltoall, whose call must return without the other
 * ranks: steps 1-3 as one job in flight (AIP_Plan_start's), begun at the call
 * and concluded in whichever test or wait finds the agreement in.  At the
 * call, only what is issued in the program's order of collectives on
 * call->comm: the private duplicate where there is none (aip_private_begin),
 * this execution's tag, and the agreement as an MPI_Iallreduce on call->comm.
 * Once it is in, conclude->route says whether ours runs (MPI_SUCCESS),
 * MPI's semantics (AIP_DECLINED: conclude->decline begins them on the
 * plan's job, with its private communicator and tag) or an error the
 * layer's settings found (its class, call->message written); then the
 * algorithm is chosen, without nodes (their tables need collectives of
 * their own: the node-aware rows run HSA), and its exchange begins on the
 * same job.  An error agreed there (without naming mismatched pairs: that
 * is an MPI_Alltoall) is raised when AIP_Plan_test or AIP_Plan_wait returns
 * the completion.  Errors at the call are this rank's alone, as MPI's own
 * nonblocking collectives have them: a plan that cannot be allocated, MPI
 * refusing the MPI_Comm_idup or MPI_Iallreduce. */
typedef struct aip_conclusion {
    int (*route)(void *context, aip_call *call);
    int (*decline)(aip_plan *plan, void *context);
    void *context;
} aip_conclusion;
int aip_plan_begin(aip_call *call, const aip_conclusion *conclude, aip_plan **plan);

/* Step 2 for any collective of the library: agree (aip_check_collective on
 * private_comm) and, where an error is agreed, name the mismatched pairs
 * (report: 2p long longs allocated in step 1, or NULL) and raise it on every
 * rank.  Returns MPI_SUCCESS with *agreement filled, AIP_DECLINED (the PMPI
 * layer's calls hand an unmovable datatype back to MPI), or the error class. */
int aip_agree(aip_call *call, MPI_Comm private_comm, const aip_choices *choices,
              long long budget, long long *report, aip_agreement *agreement);

#endif /* AIP_PIPELINE_H */
