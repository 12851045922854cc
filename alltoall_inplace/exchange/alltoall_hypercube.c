/*
 * alltoall_hypercube.c - the hypercube all-to-all of Plimpton et al.
 * (Cluster 2006) for AIP_Alltoall's equal blocks, in place: ceil(log2 p)
 * stages of one message each way instead of p - 1 exchanges, for blocks so
 * small that start-up costs dominate.  The stages, and the proof that each
 * received block lands where a sent one was, are pure functions
 * (schedule/schedule_hypercube.c); here they run through the executor.
 *
 * A stage sends about half the buffer (p / 2 blocks, gathered into the aux
 * buffer where they fit in a chunk, so one message per stage while p / 2
 * blocks fit in a chunk) and receives as many blocks into the places they
 * left, scattered there by an indexed datatype.  The next stage sends what
 * this one received, so stages do not overlap.  For p other than a power of
 * two, a last pass swaps pairs of blocks home through the aux buffer.
 * Extra memory: within the aux budget, a stage's data (p / 2 blocks) or
 * what hsa needs, whichever is larger, since hsa runs instead should the
 * agreement find another rank's blocks not contiguous; and O(p) integers.
 *
 * The stages run as one job of the executor, each begun by the one before
 * once it is complete (its `then`), so that a nonblocking execution
 * (AIP_Plan_start) advances through all of them in the background.
 *
 * Errors: a rank whose MPI fails winds down through the remaining stages,
 * its messages empty (exchange.h), and skips the final pass.
 */
#include <string.h>

#include "call/plan.h"
#include "exchange/exchange.h"
#include "schedule/hypercube.h"

/* Exchange the contents of two blocks through aux, a chunk at a time. */
static void swap_blocks(char *a, char *b, size_t bytes, char *aux, size_t chunk_bytes)
{
    for (size_t done = 0; done < bytes; done += chunk_bytes) {
        size_t len = bytes - done < chunk_bytes ? bytes - done : chunk_bytes;
        memcpy(aux, a + done, len);
        memcpy(a + done, b + done, len);
        memcpy(b + done, aux, len);
    }
}

/* A stage's data, p / 2 blocks, within the budget. */
size_t aip_hypercube_aux_bytes(const aip_call *call, size_t budget)
{
    if (call->block_bytes < 0)
        return 0; /* not AIP_Alltoall's blocks: never runs */
    size_t stage = (size_t)(call->size / 2) * (size_t)call->block_bytes;
    return stage < budget ? stage : budget;
}

/* Every block home: the final pass, after the last stage (the identity for a power of
 * two). */
static void send_home(const aip_plan *plan, char *blocks)
{
    int rank = plan->call.rank, p = plan->call.size;
    size_t block = (size_t)plan->call.block_bytes;
    size_t chunk = plan->chunk_bytes < plan->space.aux_bytes ? plan->chunk_bytes
                                                             : plan->space.aux_bytes;
    for (int s = 0; s < p; s++) {
        int home = aip_hypercube_home(rank, p, s);
        if (s < home)
            swap_blocks(blocks + (size_t)s * block, blocks + (size_t)home * block, block,
                        plan->space.aux, chunk);
    }
}

static int next_stage(aip_exchange_job *job, int error);

/* Begin stage k on the plan's job: the blocks this rank sends listed in
 * index->peers[0 .. p/2), its partners after them at [p] and [p + 1]. */
static void begin_stage(aip_plan *plan, char *blocks, int k, int error)
{
    aip_index_space *index = plan->state;
    int p = plan->call.size, *route = index->peers + p;
    aip_hypercube_stage stage = aip_hypercube_stage_of(plan->call.rank, p, k, index->peers);
    aip_segments list = { index->peers, stage.count, (size_t)plan->call.block_bytes,
                          index->displacements, .by_step = 1 };

    route[0] = stage.to;
    route[1] = stage.from;
    index->stage = k;
    aip_exchange_begin_routed(&plan->job, blocks, &list, &route[0], &route[1], 1, &plan->space,
                              plan->chunk_bytes, plan->private_comm, error);
    plan->job.then = next_stage;
    plan->job.context = plan;
}

/* Once a stage is complete: the next one, even after an error (winding down: its
 * partners expect its messages), or the final pass if none failed. */
static int next_stage(aip_exchange_job *job, int error)
{
    aip_plan *plan = job->context;
    const aip_index_space *index = plan->state;
    int k = index->stage + 1;

    if (k < aip_hypercube_nstages(plan->call.size)) {
        begin_stage(plan, job->buf, k, error);
        return 1;
    }
    if (error == MPI_SUCCESS)
        send_home(plan, job->buf);
    return 0;
}

int aip_start_hypercube(aip_plan *plan, char *buf, const char *sendbuf)
{
    const aip_call *call = &plan->call;
    char *blocks = buf + call->first_offset;
    size_t bytes = (size_t)call->size * (size_t)call->block_bytes;

    if (sendbuf) /* out of place: the stages work in place on a copy */
        memcpy(blocks, sendbuf + call->first_offset, bytes);
    if (call->block_bytes == 0 || aip_hypercube_nstages(call->size) == 0) /* agreed on every rank */
        aip_exchange_begin(&plan->job, blocks, call->blocks, NULL, 0, &plan->space,
                           plan->chunk_bytes, plan->private_comm, MPI_SUCCESS);
    else
        begin_stage(plan, blocks, 0, MPI_SUCCESS);
    return MPI_SUCCESS;
}
