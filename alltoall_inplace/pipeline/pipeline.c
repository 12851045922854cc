/*
 * pipeline.c - the path every exchange takes once its front end has
 * described the blocks (pipeline.h lists the steps): local checks and
 * allocation, the collective agreement (check.c), the choice of algorithm
 * (select/), and the run of the algorithm's table row.  The first three
 * make a plan, the last executes it; a one-shot call does both, AIP_*_init
 * keeps the plan for AIP_Plan_execute.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call/options.h"
#include "exchange/exchange.h"
#include "node/node_aware.h"
#include "pipeline/pipeline.h"
#include "select/select.h"

/* Chunks for a budget: AIP_PIPELINE_DEPTH of them fit, none larger than the cap. */
static size_t chunk_bytes_for(long long budget)
{
    long long chunk = budget / AIP_PIPELINE_DEPTH;
    if (chunk > AIP_CHUNK_BYTES_MAX)
        chunk = AIP_CHUNK_BYTES_MAX;
    return chunk < 1 ? 1 : (size_t)chunk;
}

/* The rows a plan may run, with their states, until the choice keeps one. */
typedef struct may_run {
    int count;
    const aip_algorithm_row *rows[AIP_MAY_RUN_MAX];
    void *states[AIP_MAY_RUN_MAX];
} may_run;

/* What a begun plan holds until its agreement is in (aip_plan_begin). */
struct aip_beginning {
    uint64_t words[AIP_CHECK_WORDS]; /* the agreement's, reduced in place */
    MPI_Request request;
    aip_conclusion conclude;
    may_run candidates; /* step 1's rows and states, until the choice */
    MPI_Status status;  /* the job's gate on request */
    int index;
    int error;          /* an error agreed or found at the conclusion, or MPI_SUCCESS */
};

static void may_run_release(may_run *candidates);

/* What the plan holds: itself, the call's blocks, the workspace and its row's
 * state (not the node tables it references: the communicator's cache's). */
static size_t plan_bytes(const aip_plan *plan)
{
    size_t p = (size_t)plan->call.size;
    return sizeof *plan + (aip_call_general(&plan->call) ? 2 : 1) * p * sizeof(aip_block) +
           plan->space.aux_bytes + (plan->space.ring ? plan->space.ring_bytes : 0) +
           (plan->report ? 2 * p * sizeof(long long) : 0) +
           (plan->state ? plan->row->bytes(&plan->call, plan->state) : 0) +
           (plan->beginning ? sizeof *plan->beginning : 0);
}

void aip_plan_free(aip_plan *plan)
{
    if (!plan)
        return;
    if (plan->beginning) {
        may_run_release(&plan->beginning->candidates);
        free(plan->beginning);
    }
    aip_nodes_release(plan->nodes);
    aip_nodes_release(plan->spare_nodes);
    if (plan->state)
        plan->row->release(plan->state);
    aip_workspace_free(&plan->space);
    aip_private_release(plan->private);
    free(plan->report);
    aip_call_free(&plan->call);
    free(plan);
}

static void may_run_release(may_run *candidates)
{
    for (int i = 0; i < candidates->count; i++)
        if (candidates->states[i])
            candidates->rows[i]->release(candidates->states[i]);
    candidates->count = 0;
}

/* Step 1's allocations: the workspace of every row `asked` may turn into
 * (the aux buffer the largest of theirs), and the nodes' if they may be needed. */
static int allocate(aip_plan *plan, AIP_Algorithm asked, const aip_choices *choices,
                    long long budget, int nodes, may_run *candidates, size_t *aux_bytes)
{
    const aip_call *call = &plan->call;
    AIP_Algorithm algorithms[AIP_MAY_RUN_MAX];
    int ring = 0, err = MPI_SUCCESS;

    *aux_bytes = 0;
    candidates->count = aip_may_run(call, asked, algorithms);
    for (int i = 0; i < candidates->count; i++) {
        const aip_algorithm_row *row = aip_algorithm_row_of(algorithms[i]);
        size_t aux = row->aux_bytes(call, (size_t)budget);
        candidates->rows[i] = row;
        candidates->states[i] = NULL;
        if (err == MPI_SUCCESS && row->allocate)
            err = row->allocate(row, call, &candidates->states[i]);
        *aux_bytes = aux > *aux_bytes ? aux : *aux_bytes;
        ring |= row->ring;
    }
    if (err == MPI_SUCCESS && !(plan->report = aip_malloc(2 * (size_t)call->size *
                                                         sizeof *plan->report)))
        err = MPI_ERR_NO_MEM;
    if (err == MPI_SUCCESS)
        err = aip_workspace_alloc(&plan->space, *aux_bytes, ring, chunk_bytes_for(budget),
                                  call->size);
    if (err == MPI_SUCCESS && nodes && aip_may_run_node_aware(call, asked))
        err = aip_nodes_reserve(call->comm, choices->ranks_per_node, call->size,
                                &plan->spare_nodes);
    return err;
}

/* The chosen row's state goes to the plan, the others' are freed. */
static int keep_chosen(aip_plan *plan, may_run *candidates)
{
    for (int i = 0; i < candidates->count; i++)
        if (candidates->rows[i] == plan->row) {
            plan->state = candidates->states[i];
            candidates->states[i] = NULL;
            may_run_release(candidates);
            return MPI_SUCCESS;
        }
    may_run_release(candidates);
    return MPI_ERR_INTERN; /* aip_decide chose outside aip_may_run: a bug, not a crash */
}

static void print_decision(const aip_plan *plan, size_t bytes)
{
    const aip_nodes *nodes = plan->nodes;
    char shape[64] = "";

    if (nodes)
        snprintf(shape, sizeof shape, ", %d nodes of %s%d ranks", nodes->shape.nodes,
                 nodes->shape.smallest == nodes->shape.per_node ? "" : "up to ",
                 nodes->shape.per_node);
    fprintf(stderr,
            "alltoall_inplace: %s on %d ranks%s: %s%s, aux buffer %zu bytes on rank 0, chunks "
            "of %zu bytes, %zu bytes held\n",
            plan->call.fn, plan->call.size, shape, plan->row->name,
            plan->asked == AIP_ALGORITHM_AUTO ? " (auto)" : "", plan->space.aux_bytes,
            plan->chunk_bytes, bytes);
    if (plan->why)
        fprintf(stderr, "alltoall_inplace: %s instead of %s: %s\n", plan->row->name,
                AIP_Algorithm_name(plan->asked), plan->why);
}

int aip_agree(aip_call *call, MPI_Comm private_comm, const aip_choices *choices,
              long long budget, long long *report, aip_agreement *agreement)
{
    int err = aip_check_collective(call, private_comm, choices, budget, agreement);
    if (err != MPI_SUCCESS)
        return aip_raise_mpi_error(call, err, "the argument check failed");
    if (agreement->error == MPI_SUCCESS)
        return MPI_SUCCESS;
    /* MPI_ERR_TYPE wins over the classes after it, so no rank found a worse error. */
    if (call->declines_unmovable && agreement->unmovable && agreement->error == MPI_ERR_TYPE)
        return AIP_DECLINED;
    if (agreement->mismatch && report)
        aip_report_mismatch(call, private_comm, report);
    return aip_raise(call->comm, agreement->error, call->fn,
                     call->error != MPI_SUCCESS ? call->message : NULL);
}

/* Step 3 once agreed: the algorithm, decided on plan->nodes where they were found, and
 * its workspace kept (an error: its class, described in call->message, not raised). */
static int choose(aip_plan *plan, const aip_agreement *agreement, may_run *candidates)
{
    aip_call *call = &plan->call;

    AIP_Algorithm algorithm =
        aip_decide(call, plan->asked, plan->nodes ? &plan->nodes->shape : NULL,
                   agreement->min_aux_bytes, &plan->why);
    plan->row = aip_algorithm_row_of(algorithm);
    int err = keep_chosen(plan, candidates);
    if (err != MPI_SUCCESS)
        return aip_describe_mpi_error(call, err, "the algorithm chosen has no workspace");
    if (plan->row->kind != AIP_KIND_NODE_AWARE) {
        aip_nodes_release(plan->nodes);
        plan->nodes = NULL;
    }
    plan->debug = call->rank == 0 && aip_env_debug(); /* read once: executions read no getenv */
    if (plan->debug)
        print_decision(plan, plan_bytes(plan));
    return MPI_SUCCESS;
}

/* What every rank takes from the agreement alike. */
static void take_agreement(aip_plan *plan, const aip_agreement *agreement)
{
    plan->asked = (AIP_Algorithm)agreement->choices.algorithm;
    plan->chunk_bytes = chunk_bytes_for(agreement->min_aux_bytes);
    if (!agreement->contiguous) /* so that all ranks decide alike */
        plan->call.block_bytes = -1;
}

/* Steps 2 and 3: agree, then choose and prepare the algorithm. */
static int agree_and_choose(aip_plan *plan, const aip_choices *choices, long long budget,
                            may_run *candidates)
{
    aip_call *call = &plan->call;
    aip_agreement agreement;
    aip_private *private;
    int err;

    if ((err = aip_private_get(call->comm, &private)) != MPI_SUCCESS)
        return aip_raise_mpi_error(call, err, "duplicating the communicator failed");
    plan->private = aip_private_acquire(private);
    plan->private_comm = aip_private_handle(private);
    if ((err = aip_agree(call, plan->private_comm, choices, budget, plan->report,
                         &agreement)) != MPI_SUCCESS)
        return err;
    take_agreement(plan, &agreement);
    if (aip_may_run_node_aware(call, plan->asked) &&
        (err = aip_nodes_get(call->comm, plan->private_comm, agreement.choices.ranks_per_node,
                             &plan->spare_nodes, &plan->nodes)) != MPI_SUCCESS)
        return aip_raise_mpi_error(call, err, "finding the nodes failed");
    aip_nodes_release(plan->spare_nodes); /* unused: the nodes were cached, or not needed */
    plan->spare_nodes = NULL;
    if ((err = choose(plan, &agreement, candidates)) != MPI_SUCCESS)
        return aip_raise(call->comm, err, call->fn, call->message);
    return MPI_SUCCESS;
}

/* Step 1 for plan->call: everything that can fail locally, before the agreement; nodes:
 * whether the node-aware rows may run (their nodes need collectives of their own). */
static void prepare(aip_plan *plan, const AIP_Options *options, int nodes, may_run *candidates,
                    long long *budget, aip_choices *choices)
{
    aip_call *call = &plan->call;
    char why[320];

    if (aip_options_resolve(options, &plan->options, why, sizeof why) != MPI_SUCCESS)
        aip_call_error(call, MPI_ERR_ARG, "%s", why);
    if (call->error == MPI_SUCCESS) {
        aip_check_overlap(call, call->blocks, aip_call_general(call) ? "send " : "");
        if (aip_call_general(call))
            aip_check_overlap(call, call->recv_blocks, "receive ");
    }
    aip_call_rebase_bottom(call);
    *budget = aip_budget_of(&plan->options);
    *choices = (aip_choices){
        .algorithm = aip_asked(call, plan->options.algorithm),
        .ranks_per_node = plan->options.ranks_per_node,
        .requests = plan->options.requests,
    };
    if (call->error == MPI_SUCCESS) {
        size_t aux_bytes;
        if (allocate(plan, (AIP_Algorithm)choices->algorithm, choices, *budget, nodes,
                     candidates, &aux_bytes) != MPI_SUCCESS)
            aip_call_error(call, MPI_ERR_NO_MEM,
                           "cannot allocate the %zu-byte auxiliary buffer and O(p) arrays",
                           aux_bytes);
    }
}

int aip_plan_create(aip_call *call, const AIP_Options *options, aip_plan **created)
{
    aip_plan *plan = aip_calloc(1, sizeof *plan);
    may_run candidates = { 0 };
    aip_choices choices;
    long long budget;
    int err;

    if (created)
        *created = NULL;
    if (!plan) { /* a plan of the call's own, so that the agreement below still runs */
        static const aip_plan empty;
        aip_plan stand_in = empty;
        stand_in.call = *call;
        aip_call_error(&stand_in.call, MPI_ERR_NO_MEM, "cannot allocate a plan");
        aip_choices none = { .algorithm = AIP_ALGORITHM_AUTO, .requests = AIP_REQUESTS_P2P };
        err = agree_and_choose(&stand_in, &none, 0, &candidates);
        aip_private_release(stand_in.private);
        aip_call_free(&stand_in.call);
        return err;
    }
    plan->call = *call; /* the plan owns the blocks now */
    prepare(plan, options, 1, &candidates, &budget, &choices);
    err = agree_and_choose(plan, &choices, budget, &candidates);
    may_run_release(&candidates); /* after an error: what the choice did not keep */
    if (err != MPI_SUCCESS) {
        aip_plan_free(plan);
        return err;
    }
    if (created)
        *created = plan;
    return MPI_SUCCESS;
}

/* The job's then once the agreement of a begun plan is in: steps 2 and 3 concluded,
 * and the exchange (or MPI's semantics) begun on the same job; 0 where the job ends
 * here, with the error in plan->beginning->error. */
static int conclude_agreement(aip_exchange_job *job, int error)
{
    aip_plan *plan = job->context;
    struct aip_beginning *b = plan->beginning;
    aip_call *call = &plan->call;
    aip_agreement agreement;
    int err;

    if (error != MPI_SUCCESS) /* the agreement failed in MPI: the job's error */
        return 0;
    if ((err = aip_private_ready(plan->private)) != MPI_SUCCESS) {
        b->error = aip_describe_mpi_error(call, err, "duplicating the communicator failed");
        return 0;
    }
    plan->private_comm = aip_private_handle(plan->private);
    aip_check_conclude(call, b->words, &agreement);
    int route = b->conclude.route ? b->conclude.route(b->conclude.context, call) : MPI_SUCCESS;
    if (route != MPI_SUCCESS && route != AIP_DECLINED) {
        b->error = route;
        return 0;
    }
    if ((route == AIP_DECLINED && agreement.error == MPI_SUCCESS) ||
        (call->declines_unmovable && agreement.unmovable && agreement.error == MPI_ERR_TYPE)) {
        if ((err = b->conclude.decline(plan, b->conclude.context)) != MPI_SUCCESS) {
            b->error = aip_describe_mpi_error(call, err, "running MPI's semantics failed");
            return 0;
        }
        return 1;
    }
    if (agreement.error != MPI_SUCCESS) {
        if (agreement.mismatch)
            aip_call_error(call, MPI_ERR_TYPE,
                           "the blocks of some pair of ranks differ in size (in place, the "
                           "counts and datatypes of a pair must describe the same number of "
                           "bytes; the blocking call names the pair)");
        b->error = agreement.error;
        return 0;
    }
    take_agreement(plan, &agreement);
    if ((b->error = choose(plan, &agreement, &b->candidates)) != MPI_SUCCESS)
        return 0;
    if ((err = plan->row->start(plan, call->buf, NULL)) != MPI_SUCCESS) {
        b->error = aip_describe_mpi_error(call, err, "the exchange failed");
        return 0;
    }
    return 1;
}

int aip_plan_begin(aip_call *call, const aip_conclusion *conclude, aip_plan **begun)
{
    aip_plan *plan = aip_calloc(1, sizeof *plan);
    struct aip_beginning *b = plan ? aip_calloc(1, sizeof *b) : NULL;
    aip_private *private;
    aip_choices choices;
    long long budget;
    int err;

    *begun = NULL;
    if (!b) {
        free(plan);
        err = aip_raise(call->comm, MPI_ERR_NO_MEM, call->fn, "cannot allocate a plan");
        aip_call_free(call);
        return err;
    }
    plan->call = *call; /* the plan owns the blocks now */
    call = &plan->call;
    plan->beginning = b;
    b->conclude = *conclude;
    b->request = MPI_REQUEST_NULL;
    prepare(plan, NULL, 0, &b->candidates, &budget, &choices);
    if ((err = aip_private_begin(call->comm, &private)) != MPI_SUCCESS) {
        err = aip_raise_mpi_error(call, err, "duplicating the communicator failed");
        aip_plan_free(plan);
        return err;
    }
    plan->private = aip_private_acquire(private);
    plan->space.tag = aip_private_next_tag(private);
    if ((err = aip_check_begin(call, call->comm, &choices, budget, b->words, &b->request)) !=
        MPI_SUCCESS) {
        err = aip_raise_mpi_error(call, err, "the argument check failed");
        aip_plan_free(plan);
        return err;
    }
    aip_exchange_begin_gate(&plan->job, &b->request, 1,
                            &(aip_gate_space){ .statuses = &b->status, .indices = &b->index },
                            &plan->space, MPI_SUCCESS);
    plan->job.then = conclude_agreement;
    plan->job.context = plan;
    aip_exchange_in_flight(&plan->job);
    plan->active = 1;
    *begun = plan;
    return MPI_SUCCESS;
}

/* An exchange that failed: the error raised on the plan's communicator. */
static int raise_exchange_error(aip_plan *plan, int err)
{
    return aip_private_raise(plan->private, plan->call.comm,
                             aip_describe_mpi_error(&plan->call, err, "the exchange failed"),
                             plan->call.fn, plan->call.message);
}

int aip_plan_execute(aip_plan *plan, char *buf, const char *sendbuf)
{
    const aip_algorithm_row *row = plan->row;
    int err, complete;

    plan->space.tag = aip_private_next_tag(plan->private);
    if ((err = row->start(plan, buf, sendbuf)) == MPI_SUCCESS)
        err = aip_exchange_advance(&plan->job, 1, &complete);
    return err == MPI_SUCCESS ? MPI_SUCCESS : raise_exchange_error(plan, err);
}

int aip_call_run(aip_call *call, const AIP_Options *options)
{
    aip_plan *plan;
    int err;

    if ((err = aip_plan_create(call, options, &plan)) != MPI_SUCCESS)
        return err;
    err = aip_plan_execute(plan, plan->call.buf, plan->call.sendbuf);
    aip_plan_free(plan);
    return err;
}

int aip_call_run_or_plan(aip_call *call, const AIP_Options *options, aip_plan **persistent)
{
    return persistent ? aip_plan_create(call, options, persistent) : aip_call_run(call, options);
}

/* ---- Plans, the public face of the pipeline. ---- */

/* Whether a plan's blocks have data to move (so that buf must be a buffer). */
static int moves_data(const aip_plan *plan)
{
    for (int j = 0; j < plan->call.size; j++)
        if (plan->call.blocks[j].bytes > 0 || plan->call.recv_blocks[j].bytes > 0)
            return 1;
    return 0;
}

/* The local checks of AIP_Plan_execute and AIP_Plan_start, which have no
 * agreement to spend: a rank that finds an error raises it, and its
 * partners' exchange cannot complete, as with any MPI collective given a bad
 * buffer.  MPI_SUCCESS if the plan may execute on buf. */
static int check_execution(aip_plan *plan, const void *buf, const char *fn)
{
    if (!plan)
        return aip_raise(MPI_COMM_NULL, MPI_ERR_ARG, fn, "plan is NULL");
    if (plan->active)
        return aip_private_raise(plan->private, plan->call.comm, MPI_ERR_REQUEST, fn,
                                 "the plan's previous execution is not complete: finish it "
                                 "with AIP_Plan_wait (or AIP_Plan_test) first");
    if ((!buf || buf == MPI_IN_PLACE) && moves_data(plan))
        return aip_private_raise(plan->private, plan->call.comm, MPI_ERR_BUFFER, fn,
                                 "buf is NULL or MPI_IN_PLACE but the plan's blocks have data");
    return MPI_SUCCESS;
}

int AIP_Plan_execute(AIP_Plan plan, void *buf)
{
    int err = check_execution(plan, buf, "AIP_Plan_execute");
    return err != MPI_SUCCESS ? err : aip_plan_execute(plan, buf, NULL);
}

int AIP_Plan_start(AIP_Plan plan, void *buf)
{
    int err = check_execution(plan, buf, "AIP_Plan_start");
    if (err != MPI_SUCCESS)
        return err;
    plan->space.tag = aip_private_next_tag(plan->private);
    if ((err = plan->row->start(plan, buf, NULL)) != MPI_SUCCESS)
        return raise_exchange_error(plan, err);
    aip_exchange_in_flight(&plan->job);
    plan->active = 1;
    return MPI_SUCCESS;
}

/* An active plan's execution, complete (*flag 1): its error raised (a begun plan's
 * agreed error as aip_agree raises it: the message where this rank has one). */
static int completed(aip_plan *plan, int err)
{
    const struct aip_beginning *b = plan->beginning;

    plan->active = 0;
    if (b && b->error != MPI_SUCCESS && err == MPI_SUCCESS)
        return aip_private_raise(plan->private, plan->call.comm, b->error, plan->call.fn,
                                 plan->call.message);
    return err == MPI_SUCCESS ? MPI_SUCCESS : raise_exchange_error(plan, err);
}

int AIP_Plan_test(AIP_Plan plan, int *flag)
{
    if (!plan)
        return aip_raise(MPI_COMM_NULL, MPI_ERR_ARG, "AIP_Plan_test", "plan is NULL");
    if (!flag)
        return aip_private_raise(plan->private, plan->call.comm, MPI_ERR_ARG, "AIP_Plan_test",
                                 "flag is NULL");
    *flag = 1; /* an inactive plan is complete, as an inactive persistent request */
    if (!plan->active)
        return MPI_SUCCESS;
    aip_exchange_advance_in_flight(); /* this plan's and every other's */
    if (!plan->job.complete) {
        *flag = 0;
        return MPI_SUCCESS;
    }
    return completed(plan, plan->job.result);
}

int AIP_Plan_wait(AIP_Plan plan)
{
    int complete;
    if (!plan)
        return aip_raise(MPI_COMM_NULL, MPI_ERR_ARG, "AIP_Plan_wait", "plan is NULL");
    if (!plan->active)
        return MPI_SUCCESS;
    return completed(plan, aip_exchange_advance(&plan->job, 1, &complete));
}

int AIP_Plan_free(AIP_Plan *plan)
{
    if (plan && *plan && (*plan)->active) /* its messages still read and write the buffers */
        return aip_private_raise((*plan)->private, (*plan)->call.comm, MPI_ERR_REQUEST,
                                 "AIP_Plan_free",
                                 "the plan is executing: complete it with AIP_Plan_wait first");
    if (plan) {
        aip_plan_free(*plan);
        *plan = NULL;
    }
    return MPI_SUCCESS;
}

AIP_Algorithm AIP_Plan_algorithm(AIP_Plan plan)
{
    return plan && plan->row ? plan->row->algorithm : AIP_ALGORITHM_DEFAULT;
}

size_t AIP_Plan_bytes(AIP_Plan plan)
{
    return plan ? plan_bytes(plan) : 0;
}
