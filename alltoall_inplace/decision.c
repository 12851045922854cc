/*
 * decision.c - what AIP_ALGORITHM=auto runs.  Kept apart from the algorithms
 * (as in Open MPI's coll/tuned decision files) so that the rules can change
 * with measurements without touching the algorithms.
 *
 * HSA: never more steps than LSA for a power of two (p - 1 against p), at
 * most ceil(log2 p) - 2 more otherwise, and the better locality; the paper
 * measured it fastest or on par on InfiniBand and Blue Gene/Q, and our
 * benchmark (README, "Performance") agrees on shared memory.  MPICH's
 * algorithm is never chosen: it takes 2p - 1 steps.
 */
#include "aip_internal.h"

AIP_Algorithm aip_decide(int comm_size)
{
    (void)comm_size;
    return AIP_ALGORITHM_HSA;
}
