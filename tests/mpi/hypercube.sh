#!/bin/sh
# The hypercube all-to-all against MPI_Alltoall on p = 1..9 and 16 ranks
# (powers of two and not: both routings), in place and out of place, block
# sizes from 0 to more than the budget, budgets from the minimum to 1 MiB
# (node_test --algorithm hypercube); then that AIP_DEBUG says it runs where
# asked and that hsa runs where blocks have gaps.  When auto takes it is
# decision_test's.  One seed per run, printed, so a failure can be replayed
# with AIP_TEST_SEED=<seed>.
# AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on fewer
# ranks, each run paying the sanitizers' start and leak check.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
ranks="1 2 3 4 5 6 7 8 9 16" debug_ranks=6
[ "${AIP_TEST_SCALE:-}" = small ] && ranks="3 4" debug_ranks=4
# MPICH polls busily while it waits, so its oversubscribed runs cost 3-10x
# Open MPI's here: under MPICH fewer counts (what depends on the MPI is the
# same at every count; Open MPI's runs cover them all).
[ "$MPI_FLAVOR" = mpich ] && [ "${AIP_TEST_SCALE:-}" != small ] && ranks="2 3 5 8"
for np in $ranks; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/node_test" --seed "$seed" --algorithm hypercube
done
out=$(AIP_DEBUG=1 "$MPIRUN" "$debug_ranks" "$TESTBIN/mpi/node_test" --seed "$seed" \
    --algorithm hypercube 2>&1) || { echo "$out"; exit 1; }
for expected in "AIP_Alltoall on $debug_ranks ranks: hypercube," \
    "AIP_Alltoall_oop on $debug_ranks ranks: hypercube," \
    "hsa instead of hypercube: only AIP_Alltoall with blocks of contiguous bytes"; do
    echo "$out" | grep -q "$expected" || { echo "$out"; echo "hypercube.sh: no '$expected'"; exit 1; }
done
