/*
 * node_exchange.c - the steps sa, rd and l are made of: in-place hsa
 * exchanges among a subset of the ranks, in which each peer's data is a list
 * of blocks (sa, rd) or one segment of the buffer (l).  Each runs on the
 * plan's job; sa's and rd's second step is begun by the first's `then`, so
 * that a nonblocking execution advances through both in the background.
 */
#include <string.h>

#include "node/node_aware.h"
#include "schedule/schedule.h"

aip_node_call aip_node_call_of(const aip_plan *plan, char *buf, const char *sendbuf)
{
    const aip_call *call = &plan->call;
    const aip_index_space *index = plan->state;
    return (aip_node_call){
        .buf = buf + call->first_offset,
        .sendbuf = sendbuf ? sendbuf + call->first_offset : NULL,
        .block_bytes = (size_t)call->block_bytes,
        .nodes = plan->nodes,
        .space = &plan->space,
        .chunk_bytes = plan->chunk_bytes,
        .blocks = index->blocks,
        .displacements = index->displacements,
        .peers = index->peers,
    };
}

aip_node_level aip_level_within(const aip_nodes *nodes)
{
    return (aip_node_level){ nodes->node_comm, nodes->shape.by_local, nodes->shape.nodes };
}

aip_node_level aip_level_across(const aip_nodes *nodes)
{
    return (aip_node_level){ nodes->peer_comm, nodes->shape.rank_at, nodes->shape.per_node };
}

/* Begin one step on job: peer i's blocks read from src (buf, or the send buffer
 * out of place, when this rank's own blocks are copied too), the peer's written to
 * the same positions of buf.  error: the call's first error so far. */
static void begin_node_step(aip_exchange_job *job, const aip_node_call *call,
                            aip_node_level level, const char *src, int error)
{
    aip_segments segments = { level.positions, level.per_peer, call->block_bytes,
                              call->displacements, .by_step = 0 };
    int rank, size;

    MPI_Comm_rank(level.comm, &rank);
    MPI_Comm_size(level.comm, &size);
    if (src != call->buf)
        for (int k = 0; k < level.per_peer; k++) {
            size_t at = (size_t)level.positions[rank * level.per_peer + k] * call->block_bytes;
            memcpy(call->buf + at, src + at, call->block_bytes);
        }
    aip_schedule_hsa.fill(rank, size, call->peers);
    aip_exchange_begin_segments(job, call->buf, src, &segments, call->peers,
                                aip_schedule_hsa.nsteps(size), call->space, call->chunk_bytes,
                                level.comm, error);
}

/* The second step, once the first is complete, over the level the first did not
 * take: it runs even after an error in the first, winding down, since its partners
 * expect its messages (exchange.h).  The buffer is the first's, in place now. */
static int second_step(aip_exchange_job *job, int error)
{
    const aip_plan *plan = job->context;
    aip_node_call call = aip_node_call_of(plan, job->buf - plan->call.first_offset, NULL);
    aip_node_level level = job->comm == call.nodes->node_comm ? aip_level_across(call.nodes)
                                                              : aip_level_within(call.nodes);
    begin_node_step(job, &call, level, call.buf, error);
    return 1;
}

int aip_node_start_two_steps(aip_plan *plan, char *buf, const char *sendbuf,
                             aip_node_level first)
{
    aip_node_call call = aip_node_call_of(plan, buf, sendbuf);
    begin_node_step(&plan->job, &call, first, call.sendbuf ? call.sendbuf : call.buf,
                    MPI_SUCCESS);
    plan->job.then = second_step;
    plan->job.context = plan;
    return MPI_SUCCESS;
}

void aip_node_begin_exchange(aip_exchange_job *job, const aip_node_call *call, char *buf,
                             size_t segment_bytes, MPI_Comm comm, const aip_workspace *space,
                             int error)
{
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < size; i++)
        call->blocks[i] = (aip_block){ (MPI_Aint)(i * segment_bytes), (MPI_Count)segment_bytes };
    aip_schedule_hsa.fill(rank, size, call->peers);
    aip_exchange_begin(job, buf, call->blocks, call->peers, aip_schedule_hsa.nsteps(size), space,
                       call->chunk_bytes, comm, error);
}
