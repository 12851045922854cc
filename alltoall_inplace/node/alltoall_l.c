/*
 * alltoall_l.c - the leader-based alltoall (L) of Kumar, Mamidala & Panda
 * (Sect. 5, the scheme their SA improves on), in place.
 *
 * One rank per node, its local rank 0, gathers the buffers of its node,
 * exchanges with the other leaders one message per node pair, and scatters
 * the result.  Only n - 1 network messages per node: the cheapest start-up
 * cost of all, which is what tiny messages need (the paper: L best for very
 * small messages on offload NICs).  But one core drives the network and the
 * leader copies the node's whole data twice, so the advantage fades with
 * size (SA, alltoall_sa.c, wins from there).
 *
 * The leader needs room for its node's data, q * p blocks, and index arrays
 * for permuting them: L runs only when that fits in half of the aux budget
 * (decision.c; the other half is the exchange's) and is replaced by SA
 * otherwise.  At the leader:
 *   gather [x][global j] -> [b][y][x]  exchange  [a][y][x] -> [y][global j]  scatter
 * Non-leaders only send and receive their own buffer.
 *
 * It runs as one job of the executor in steps, each begun by the one
 * before once it is complete (its `then`), so that a nonblocking execution
 * advances in the background: at the leader, receive the node's buffers,
 * exchange with the other leaders, send the buffers back; at another rank,
 * send its buffer, then receive it back (in place, not before the send is
 * complete).  The gather and scatter are point-to-point messages on the
 * node's communicator with the execution's tag, not MPI's collectives:
 * nonblocking collectives would have to be started in the same order on
 * every rank, and steps begin in whatever order tests and waits reach them.
 * Errors wind down as the exchange's do (exchange.h): a leader that failed
 * or received an empty buffer sends the buffers back empty, so its node's
 * ranks learn of it from the size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "node/node_aware.h"

/* Index arrays start at an aligned offset after the blocks. */
static size_t align_up(size_t bytes)
{
    return (bytes + 15) & ~(size_t)15;
}

size_t aip_leader_bytes(int size, int per_node, size_t block_bytes)
{
    size_t nblocks = (size_t)per_node * (size_t)size;
    if (block_bytes && nblocks > SIZE_MAX / 2 / block_bytes)
        return SIZE_MAX / 2;
    return align_up(nblocks * block_bytes) + 4 * sizeof(int) * nblocks;
}

/* Space for a leader of a node as large as the communicator, and for
 * its exchange, within the budget: whatever the nodes turn out to be. */
size_t aip_l_aux_bytes(const aip_call *call, size_t budget)
{
    size_t leader = 2 * aip_leader_bytes(call->size, call->size, (size_t)call->block_bytes);
    size_t exchange = aip_exchange_aux_bytes(call, budget);
    return leader < budget ? (leader > exchange ? leader : exchange) : budget;
}

/* l's state: the index space first (aip_node_call_of reads the plan's state as one),
 * then the node's messages in flight and the room to complete them. */
typedef struct l_state {
    aip_index_space index;
    char *buf;             /* the execution's buffer, as AIP_Plan_start got it */
    MPI_Request *requests; /* a leader's q - 1 receives or sends; another rank's one */
    aip_gate_space gate;
} l_state;

/* One allocation: the struct, then the arrays in decreasing alignment. */
int aip_l_allocate(const struct aip_algorithm_row *row, const aip_call *call, void **state)
{
    size_t p = (size_t)call->size;
    l_state *l = aip_malloc(aip_l_bytes(call, NULL));
    (void)row;
    if (!(*state = l))
        return MPI_ERR_NO_MEM;
    l->index.blocks = (aip_block *)(l + 1);
    l->index.displacements = (MPI_Aint *)(l->index.blocks + p);
    l->requests = (MPI_Request *)(l->index.displacements + p);
    l->gate = (aip_gate_space){ .statuses = (MPI_Status *)(l->requests + p) };
    l->index.peers = (int *)(l->gate.statuses + p);
    l->gate.indices = l->index.peers + 2 * p;
    return MPI_SUCCESS;
}

size_t aip_l_bytes(const aip_call *call, const void *state)
{
    size_t p = (size_t)call->size;
    (void)state;
    return sizeof(l_state) + p * (sizeof(aip_block) + sizeof(MPI_Aint) +
                                  sizeof(MPI_Request) + sizeof(MPI_Status) + 3 * sizeof(int));
}

/* A node's buffer: p blocks (fits an int: decision.c). */
static int row_bytes(const aip_plan *plan)
{
    return (int)((size_t)plan->call.size * (size_t)plan->call.block_bytes);
}

/* Wait for the messages posted in requests[0 .. count), then go on with `next`. */
static void begin_messages(aip_plan *plan, int count, int receives, int error,
                           int (*next)(aip_exchange_job *, int))
{
    l_state *l = plan->state;
    l->gate.each = receives ? row_bytes(plan) : 0; /* a node's buffer each, or sends */
    aip_exchange_begin_gate(&plan->job, l->requests, count, &l->gate, &plan->space, error);
    plan->job.then = next;
    plan->job.context = plan;
}

/* A message the node's exchange needs, posted (empty once error is set, exchange.h);
 * where MPI fails twice it is left out, its request null, and error says so. */
static void post_row(int receive, char *row, int bytes, int peer, const aip_plan *plan,
                     MPI_Request *request, int *error)
{
    MPI_Comm comm = plan->nodes->node_comm;
    int err = receive ? aip_post_receive(row, bytes, MPI_BYTE, peer, plan->space.tag, comm,
                                         request, error)
                      : aip_post_data(row, bytes, MPI_BYTE, peer, plan->space.tag, comm, request,
                                      error);
    if (err != MPI_SUCCESS) {
        aip_note_error(error, err);
        *request = MPI_REQUEST_NULL;
    }
}

/* The leader's aggregation space at the front of aux: the node's blocks, then
 * the index arrays of the permutations, then the exchange's own aux. */
typedef struct leader_space {
    char *gathered;
    int *dest, *scratch;
    aip_workspace exchange;
} leader_space;

static leader_space leader_space_of(const aip_plan *plan)
{
    size_t nblocks = (size_t)plan->nodes->shape.per_node * (size_t)plan->call.size;
    leader_space at = { .gathered = plan->space.aux, .exchange = plan->space };
    at.dest = (int *)(at.gathered + align_up(nblocks * (size_t)plan->call.block_bytes));
    at.scratch = at.dest + nblocks;
    at.exchange.aux = (char *)(at.scratch + 3 * nblocks);
    at.exchange.aux_bytes = plan->space.aux_bytes - (size_t)(at.exchange.aux - at.gathered);
    return at;
}

static void permute(const aip_plan *plan, const leader_space *at)
{
    aip_permute_blocks(at->gathered, (size_t)plan->call.block_bytes,
                       plan->nodes->shape.per_node * plan->call.size, at->dest, at->exchange.aux,
                       at->exchange.aux_bytes, at->scratch);
}

/* The leader, its node's buffers sent back: complete. */
static int leader_scatter(aip_exchange_job *job, int error)
{
    aip_plan *plan = job->context;
    l_state *l = plan->state;
    leader_space at = leader_space_of(plan);
    int q = plan->nodes->shape.per_node, row = row_bytes(plan);

    aip_layout_leader_receive(&plan->nodes->shape, at.dest);
    permute(plan, &at);
    memcpy(aip_node_call_of(plan, l->buf, NULL).buf, at.gathered, (size_t)row);
    for (int x = 1; x < q; x++)
        post_row(0, at.gathered + (size_t)x * (size_t)row, row, x, plan, &l->requests[x - 1],
                 &error);
    begin_messages(plan, q - 1, 0, error, NULL);
    return 1;
}

/* The leader, its node's buffers gathered: one segment per node to the other leaders. */
static int leader_exchange(aip_exchange_job *job, int error)
{
    aip_plan *plan = job->context;
    const aip_nodes *nodes = plan->nodes;
    int q = nodes->shape.per_node;
    leader_space at = leader_space_of(plan);
    aip_node_call call = aip_node_call_of(plan, ((l_state *)plan->state)->buf, NULL);

    aip_layout_leader_send(&nodes->shape, at.dest);
    permute(plan, &at);
    aip_node_begin_exchange(job, &call, at.gathered, (size_t)q * (size_t)q * call.block_bytes,
                            nodes->peer_comm, &at.exchange, error);
    job->then = leader_scatter;
    job->context = plan;
    return 1;
}

/* Another rank, its buffer sent: receive it back in place. */
static int local_receive(aip_exchange_job *job, int error)
{
    aip_plan *plan = job->context;
    l_state *l = plan->state;

    post_row(1, aip_node_call_of(plan, l->buf, NULL).buf, row_bytes(plan), 0, plan,
             &l->requests[0], &error);
    begin_messages(plan, 1, 1, error, NULL);
    return 1;
}

int aip_start_l(aip_plan *plan, char *buf, const char *sendbuf)
{
    l_state *l = plan->state;
    aip_node_call call = aip_node_call_of(plan, buf, sendbuf);
    const char *mine = call.sendbuf ? call.sendbuf : call.buf;
    int q = plan->nodes->shape.per_node, row = row_bytes(plan), error = MPI_SUCCESS;

    l->buf = buf;
    if (plan->nodes->local != 0) {
        post_row(0, (char *)mine, row, 0, plan, &l->requests[0], &error);
        begin_messages(plan, 1, 0, error, local_receive);
        return MPI_SUCCESS;
    }
    char *gathered = plan->space.aux;
    memcpy(gathered, mine, (size_t)row);
    for (int x = 1; x < q; x++)
        post_row(1, gathered + (size_t)x * (size_t)row, row, x, plan, &l->requests[x - 1], &error);
    begin_messages(plan, q - 1, 1, error, leader_exchange);
    return MPI_SUCCESS;
}
