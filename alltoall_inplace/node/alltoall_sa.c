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
 * In place, without moving any block within the buffer: a block's position
 * is its final one from the start, because what rank (a, x) holds at the
 * position of rank (b, y) is, before step 1, its own data for (b, y); after
 * step 1, (a, y)'s data for (b, x); after step 2, (b, y)'s data for (a, x).
 * So each step swaps blocks between two ranks at equal positions, and a
 * peer's segment is a list of blocks (shape's tables, nodes.h):
 *   step 1, peer (a, y): the positions of local rank y's ranks, by node;
 *   step 2, peer (b, x): the positions of node b's ranks, by local rank.
 * Each step is an hsa exchange of those lists with the bounded executor
 * (aip_exchange_begin_segments): blocks smaller than a chunk are gathered
 * into the aux buffer, one message per peer where the budget allows, and the
 * peer's message is scattered into place by an indexed datatype; larger
 * blocks go chunk by chunk.  Both steps are one job of the executor, which a
 * nonblocking execution (AIP_Plan_start) advances in the background.  Under block placement step 2's segments are contiguous,
 * under cyclic placement step 1's.  Out of place, step 1 reads the send
 * buffer.  Extra memory: the aux budget and O(p) integers, as for hsa.
 */
#include "node/node_aware.h"

int aip_start_sa(aip_plan *plan, char *buf, const char *sendbuf)
{
    return aip_node_start_two_steps(plan, buf, sendbuf, aip_level_within(plan->nodes));
}
