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
 * In place as SA: the same two exchanges of block lists at equal positions,
 * across nodes first (peer (b, x): node b's positions), then within the node
 * (peer (a, y): local rank y's positions).
 */
#include "node/node_aware.h"

int aip_start_rd(aip_plan *plan, char *buf, const char *sendbuf)
{
    return aip_node_start_two_steps(plan, buf, sendbuf, aip_level_across(plan->nodes));
}
