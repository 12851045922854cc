/*
 * alltoall_rd.c - receive-side distribution (RD), the alternative Kumar,
 * Mamidala & Panda weigh against SA (Sect. 5, Fig. 8), in place.
 *
 * The same two steps as SA (alltoall_sa.c) in the other order:
 *   step 1, among the ranks of equal local rank: rank (a, x) gives (b, x)
 *           everything it has for node b (q blocks);
 *   step 2, within each node: rank (b, x) gives (b, y) the n blocks it
 *           received for it, one from each node.
 * Same messages, same memory; the shared-memory copies now happen after the
 * network delivered the data, which costs more where the NIC writes to
 * memory behind the caches (the paper measured SA 10% faster from 256 B on
 * InfiniPath) and the same elsewhere.
 *
 * Layouts: [global rank] -> [b][y]  step 1  [a][y] -> [y][a]  step 2
 *          [x][a] -> [global rank].
 */
#include "aip_internal.h"

int aip_alltoall_rd(const aip_node_call *call)
{
    const aip_nodes *nodes = call->nodes;
    return aip_node_two_steps(call, aip_layout_by_node, nodes->peer_comm, nodes->shape.nodes,
                              nodes->node_comm, nodes->shape.per_node,
                              aip_layout_from_local_major);
}
