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
 * Non-leaders only send and receive their own buffer.  They cannot tell
 * from the scatter whether the leaders' exchange failed (exchange.h), so
 * the leader says so first, in one MPI_Bcast of an int within the node.
 */
#include <stdint.h>

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

/* The leader's part: reorder, exchange with the other leaders, reorder.
 * error: the call's first error so far; returns the first error. */
static int exchange_as_leader(const aip_node_call *call, int error)
{
    const aip_shape *shape = &call->nodes->shape;
    int p = shape->size, q = shape->per_node;
    size_t nblocks = (size_t)q * (size_t)p, block = call->block_bytes;
    char *gathered = call->space->aux;
    int *dest = (int *)(gathered + align_up(nblocks * block)), *scratch = dest + nblocks;
    char *rest = (char *)(scratch + 3 * nblocks);
    aip_workspace exchange_space = *call->space;

    exchange_space.aux = rest;
    exchange_space.aux_bytes = call->space->aux_bytes - (size_t)(rest - gathered);
    aip_layout_leader_send(shape, dest);
    aip_permute_blocks(gathered, block, (int)nblocks, dest, rest, exchange_space.aux_bytes,
                       scratch);
    int err = aip_node_exchange(call, gathered, (size_t)q * q * block, call->nodes->peer_comm,
                                &exchange_space, error);
    aip_layout_leader_receive(shape, dest);
    aip_permute_blocks(gathered, block, (int)nblocks, dest, rest, exchange_space.aux_bytes,
                       scratch);
    return err;
}

static int run_l(const aip_node_call *call)
{
    const aip_nodes *nodes = call->nodes;
    int leader = nodes->local == 0, err;
    int row = (int)((size_t)nodes->shape.size * call->block_bytes); /* fits: decision.c */
    const char *mine = call->sendbuf ? call->sendbuf : call->buf;
    char *gathered = leader ? call->space->aux : NULL;

    /* Every collective runs whatever failed before it: the node's ranks are in it. */
    err = MPI_Gather(mine, row, MPI_BYTE, gathered, row, MPI_BYTE, 0, nodes->node_comm);
    if (leader)
        err = exchange_as_leader(call, err);
    int leader_failed = err != MPI_SUCCESS;
    aip_note_error(&err, MPI_Bcast(&leader_failed, 1, MPI_INT, 0, nodes->node_comm));
    if (leader_failed)
        aip_note_error(&err, aip_partner_failed());
    aip_note_error(&err, MPI_Scatter(gathered, row, MPI_BYTE, call->buf, row, MPI_BYTE, 0,
                                     nodes->node_comm));
    return err;
}

int aip_run_l(const aip_plan *plan, char *buf, const char *sendbuf)
{
    aip_node_call call = aip_node_call_of(plan, buf, sendbuf);
    return run_l(&call);
}
