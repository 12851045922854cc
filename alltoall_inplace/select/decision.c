/*
 * decision.c - what AIP_ALGORITHM=auto runs, and what an algorithm falls
 * back to where it does not apply.  Kept apart from the algorithms (as in
 * Open MPI's coll/tuned decision files) so that the rules can change with
 * measurements without touching the algorithms.
 *
 * HSA: never more steps than LSA for a power of two (p - 1 against p), at
 * most ceil(log2 p) - 2 more otherwise, and the better locality; the paper
 * measured it fastest or on par on InfiniBand and Blue Gene/Q, and our
 * benchmark (README, "Performance") agrees on shared memory.  MPICH's
 * algorithm is never chosen: it takes 2p - 1 steps.
 *
 * AIP_Alltoall on several nodes of equally many ranks: the leader-based
 * exchange for blocks up to AIP_AUTO_L_MAX_BYTES (32 B) where the leader's
 * space fits, SA up to AIP_AUTO_SA_MAX_BYTES (2 KiB), hsa above (the
 * thresholds and their measurements are in tunables.h).
 *
 * AIP_Alltoall on one rank per node (hybrid MPI + threads codes, and the
 * paper's Red Storm) runs the hypercube for blocks up to
 * AIP_AUTO_HYPERCUBE_MAX_BYTES (128 B) on AIP_AUTO_HYPERCUBE_MIN_RANKS (16)
 * ranks or more: log2 p messages instead of p - 1.  Where several ranks
 * share a node, SA (or L) moves each byte over the node's link once, the
 * hypercube log2(n)/2 times, which costs more than the start-ups it saves
 * (measurements in tunables.h).
 *
 * On exactly two nodes of several ranks, LSA instead of HSA above those
 * thresholds.  HSA's first level crosses between the nodes and all its
 * later ones stay within them, so its exchange uses the network for half
 * its steps and the nodes' memory for the other half, never both; LSA's
 * every step has flows of both kinds.  JuRoPA's model at 16 ranks (2 x 8):
 * an exchange of 1024^3's blocks in lockstep takes 0.79 s under HSA, 0.69 s
 * under LSA (bench/smpi/route_load.c), and the whole transform 0.99x and
 * 0.96x stock's.  On more nodes the memory-only levels are the last
 * 1/nodes of HSA's steps, and its locality wins (4 nodes and up, both
 * models).
 *
 * A general call (separate receive blocks) asks for the general algorithm,
 * whatever its options name: no other takes its layouts (aip_asked).
 */
#include <limits.h>

#include "node/node_aware.h"
#include "select/select.h"

/* Whether the call may run node-aware: AIP_Alltoall's contiguous blocks, something
 * to move, and more than one rank. */
static int node_aware_capable(const aip_call *call)
{
    return call->block_bytes > 0 && call->size > 1 && !aip_call_general(call);
}

static int node_aware(AIP_Algorithm algorithm)
{
    const aip_algorithm_row *row = aip_algorithm_row_of(algorithm);
    return row && row->kind == AIP_KIND_NODE_AWARE;
}

int aip_may_run_node_aware(const aip_call *call, AIP_Algorithm asked)
{
    return node_aware_capable(call) && (asked == AIP_ALGORITHM_AUTO || node_aware(asked));
}

/* Whether the call may be routed through the hypercube's stages: AIP_Alltoall's
 * contiguous equal blocks (a stage moves a list of them between positions). */
static int hypercube_capable(const aip_call *call)
{
    return call->block_bytes >= 0 && !aip_call_general(call);
}

/* Whether `auto` may run `algorithm` for this call, before the nodes are known. */
static int auto_may_choose(const aip_call *call, AIP_Algorithm algorithm)
{
    switch (algorithm) {
    case AIP_ALGORITHM_HSA: return 1;
    case AIP_ALGORITHM_LSA: return node_aware_capable(call); /* where nodes are found */
    case AIP_ALGORITHM_HYPERCUBE:
        return hypercube_capable(call) && call->size >= AIP_AUTO_HYPERCUBE_MIN_RANKS &&
               call->block_bytes <= AIP_AUTO_HYPERCUBE_MAX_BYTES;
    case AIP_ALGORITHM_SA:
        return node_aware_capable(call) && call->block_bytes <= AIP_AUTO_SA_MAX_BYTES;
    case AIP_ALGORITHM_L:
        return node_aware_capable(call) && call->block_bytes <= AIP_AUTO_L_MAX_BYTES;
    default: return 0;
    }
}

AIP_Algorithm aip_asked(const aip_call *call, AIP_Algorithm named)
{
    return aip_call_general(call) ? AIP_ALGORITHM_GENERAL : named;
}

/* Adds `algorithm` to rows[0 .. *count) unless it is there. */
static void add_row(AIP_Algorithm rows[AIP_MAY_RUN_MAX], int *count, AIP_Algorithm algorithm)
{
    for (int i = 0; i < *count; i++)
        if (rows[i] == algorithm)
            return;
    rows[(*count)++] = algorithm;
}

/* Every algorithm aip_decide may return for `asked`: the agreement may only
 * take contiguity away (block_bytes -1 on every rank), the nodes may have
 * any shape, and the budget may be anyone's. */
int aip_may_run(const aip_call *call, AIP_Algorithm asked, AIP_Algorithm rows[AIP_MAY_RUN_MAX])
{
    static const AIP_Algorithm auto_candidates[] = { AIP_ALGORITHM_HSA, AIP_ALGORITHM_LSA,
                                                     AIP_ALGORITHM_SA, AIP_ALGORITHM_L,
                                                     AIP_ALGORITHM_HYPERCUBE };
    _Static_assert(sizeof auto_candidates / sizeof auto_candidates[0] <= AIP_MAY_RUN_MAX,
                   "rows[] holds every candidate of auto");
    int count = 0;

    switch (asked) {
    case AIP_ALGORITHM_AUTO:
        for (size_t i = 0; i < sizeof auto_candidates / sizeof auto_candidates[0]; i++)
            if (auto_candidates[i] == AIP_ALGORITHM_HSA ||
                auto_may_choose(call, auto_candidates[i]))
                add_row(rows, &count, auto_candidates[i]);
        return count;
    case AIP_ALGORITHM_HYPERCUBE:
        if (hypercube_capable(call))
            add_row(rows, &count, AIP_ALGORITHM_HYPERCUBE);
        add_row(rows, &count, AIP_ALGORITHM_HSA);
        return count;
    default:
        if (node_aware(asked)) {
            if (aip_may_run_node_aware(call, asked)) {
                add_row(rows, &count, asked);
                if (asked == AIP_ALGORITHM_L)
                    add_row(rows, &count, AIP_ALGORITHM_SA);
            }
            add_row(rows, &count, AIP_ALGORITHM_HSA);
            return count;
        }
        add_row(rows, &count, asked);
        return count;
    }
}

/* The leader's aggregation space fits in half the smallest budget (the other
 * half is its exchange's), and a node's buffer in an int count of bytes. */
static int leader_fits(const aip_shape *shape, size_t block_bytes, long long min_aux_bytes)
{
    size_t row = (size_t)shape->size * block_bytes;
    return row <= INT_MAX &&
           aip_leader_bytes(shape->size, shape->per_node, block_bytes) <=
               (size_t)min_aux_bytes / 2;
}

/* Auto's choice for blocks where aggregating them pays nothing. */
static AIP_Algorithm auto_exchange(const aip_shape *shape)
{
    return shape->nodes == 2 && shape->per_node > 1 ? AIP_ALGORITHM_LSA : AIP_ALGORITHM_HSA;
}

/* On nodes found: the node-aware algorithm asked for, or auto's choice. */
static AIP_Algorithm decide_on_nodes(const aip_call *call, AIP_Algorithm asked,
                                     const aip_shape *shape, long long min_aux_bytes,
                                     const char **why)
{
    size_t block_bytes = (size_t)call->block_bytes;

    if (asked == AIP_ALGORITHM_AUTO && shape->per_node == 1 &&
        auto_may_choose(call, AIP_ALGORITHM_HYPERCUBE))
        return AIP_ALGORITHM_HYPERCUBE;
    if (!aip_shape_two_level(shape)) {
        if (asked == AIP_ALGORITHM_AUTO)
            return auto_exchange(shape);
        *why = shape->smallest != shape->per_node
                   ? "the nodes have different numbers of ranks"
                   : "one node, or one rank per node: nothing to aggregate";
        return AIP_ALGORITHM_HSA;
    }
    if (asked == AIP_ALGORITHM_AUTO) {
        if (auto_may_choose(call, AIP_ALGORITHM_L) &&
            leader_fits(shape, block_bytes, min_aux_bytes))
            return AIP_ALGORITHM_L;
        return auto_may_choose(call, AIP_ALGORITHM_SA) ? AIP_ALGORITHM_SA : auto_exchange(shape);
    }
    if (asked == AIP_ALGORITHM_L && !leader_fits(shape, block_bytes, min_aux_bytes)) {
        *why = "the leaders' aggregation space exceeds half the aux budget";
        return AIP_ALGORITHM_SA;
    }
    return asked;
}

AIP_Algorithm aip_decide(const aip_call *call, AIP_Algorithm asked, const aip_shape *shape,
                         long long min_aux_bytes, const char **why)
{
    *why = NULL;
    if (asked == AIP_ALGORITHM_HYPERCUBE && !hypercube_capable(call)) {
        *why = "only AIP_Alltoall with blocks of contiguous bytes runs the hypercube";
        return AIP_ALGORITHM_HSA;
    }
    if (shape)
        return decide_on_nodes(call, asked, shape, min_aux_bytes, why);
    if (asked == AIP_ALGORITHM_AUTO)
        return AIP_ALGORITHM_HSA;
    if (node_aware(asked)) { /* nothing to move, or not AIP_Alltoall's blocks */
        if (call->block_bytes < 0)
            *why = "only AIP_Alltoall with blocks of contiguous bytes runs node-aware";
        return AIP_ALGORITHM_HSA;
    }
    return asked;
}
