/*
 * alltoall_sa.c - send-side aggregation (SA), the design proposed by Kumar,
 * Mamidala & Panda, "Scaling Alltoall Collective on Multi-core Systems"
 * (Sect. 5), in place.
 *
 * A direct alltoall sends p - 1 messages per rank, and on a node of q cores
 * all q ranks pay the start-up cost of each: small messages are dominated by
 * it.  SA sends n - 1 inter-node messages per rank instead, q times larger:
 *   step 1, within each node: rank (a, x) gives rank (a, y) everything it
 *           has for local rank y on every node (one segment of n blocks);
 *   step 2, among the ranks of equal local rank, one per node: rank (a, y)
 *           gives (b, y) the q blocks it now holds for it.
 * Unlike a leader-based scheme every core drives the network, and unlike
 * receive-side distribution (alltoall_rd.c) the shared-memory copies happen
 * on the sending side, where the data is in cache (the paper's Fig. 5: on
 * NICs fed by programmed I/O that is what makes SA faster).
 *
 * In place: each step is an hsa exchange of segments (node_exchange.c) with
 * the bounded executor, and the three reorderings of blocks around them are
 * in-place permutations through the aux buffer (node_layouts.c):
 *   [global rank] -> [y][b]  step 1  [x][b] -> [b][x]  step 2  [a][x] -> [global rank]
 * The last one is the identity when ranks are placed by node (block placement).
 * Out of place the first permutation is the copy from the send buffer.
 * Extra memory: the aux budget and O(p) integers, as for hsa.
 */
#include "aip_internal.h"

int aip_alltoall_sa(const aip_node_call *call)
{
    const aip_nodes *nodes = call->nodes;
    return aip_node_two_steps(call, aip_layout_by_local, nodes->node_comm,
                              nodes->shape.per_node, nodes->peer_comm, nodes->shape.nodes,
                              aip_layout_from_node_major);
}
