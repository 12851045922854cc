/*
 * decision.c - what AIP_ALGORITHM=auto runs, and what a node-aware algorithm
 * falls back to where it does not apply.  Kept apart from the algorithms (as
 * in Open MPI's coll/tuned decision files) so that the rules can change with
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
 */
#include <limits.h>

#include "aip_internal.h"

AIP_Algorithm aip_decide(int comm_size)
{
    (void)comm_size;
    return AIP_ALGORITHM_HSA;
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

int aip_may_choose_leader(AIP_Algorithm asked, size_t block_bytes)
{
    return asked == AIP_ALGORITHM_L ||
           (asked == AIP_ALGORITHM_AUTO && block_bytes <= AIP_AUTO_L_MAX_BYTES);
}

AIP_Algorithm aip_decide_node_aware(AIP_Algorithm asked, const aip_shape *shape,
                                    size_t block_bytes, long long min_aux_bytes,
                                    const char **why)
{
    *why = NULL;
    if (!aip_shape_two_level(shape)) {
        if (asked != AIP_ALGORITHM_AUTO)
            *why = shape->smallest != shape->per_node
                       ? "the nodes have different numbers of ranks"
                       : "one node, or one rank per node: nothing to aggregate";
        return AIP_ALGORITHM_HSA;
    }
    if (asked == AIP_ALGORITHM_AUTO) {
        if (aip_may_choose_leader(asked, block_bytes) &&
            leader_fits(shape, block_bytes, min_aux_bytes))
            return AIP_ALGORITHM_L;
        return block_bytes <= AIP_AUTO_SA_MAX_BYTES ? AIP_ALGORITHM_SA : AIP_ALGORITHM_HSA;
    }
    if (asked == AIP_ALGORITHM_L && !leader_fits(shape, block_bytes, min_aux_bytes)) {
        *why = "the leaders' aggregation space exceeds half the aux budget";
        return AIP_ALGORITHM_SA;
    }
    return asked;
}
