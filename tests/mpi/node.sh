#!/bin/sh
# The node-aware exchanges against MPI_Alltoall on p = 1..9 ranks of one
# machine, with nodes of 1..4 consecutive ranks (and the one node
# MPI_COMM_TYPE_SHARED finds).  One seed per run, printed, so a failure can be
# replayed with AIP_TEST_SEED=<seed>.
# AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on fewer
# ranks, each run paying the sanitizers' start and leak check.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
ranks="1 2 3 4 5 6 7 8 9"
[ "${AIP_TEST_SCALE:-}" = small ] && ranks=4
# MPICH polls busily while it waits, so its oversubscribed runs cost 3-10x
# Open MPI's here: under MPICH fewer counts (what depends on the MPI is the
# same at every count; Open MPI's runs cover them all).
[ "$MPI_FLAVOR" = mpich ] && [ "${AIP_TEST_SCALE:-}" != small ] && ranks="2 4 5 8"
for np in $ranks; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/node_test" --seed "$seed"
done
# The environment's grouping, and the fallbacks said in debug output.
out=$(AIP_RANKS_PER_NODE=2 AIP_DEBUG=1 "$MPIRUN" 5 "$TESTBIN/mpi/node_test" \
    --seed "$seed" --default-nodes 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "hsa instead of sa: the nodes have different numbers of ranks" ||
    { echo "$out"; echo "node.sh: no fallback message for nodes 2+2+1"; exit 1; }
out=$(AIP_RANKS_PER_NODE=2 AIP_DEBUG=1 "$MPIRUN" 4 "$TESTBIN/mpi/node_test" \
    --seed "$seed" --default-nodes 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "sa instead of l: the leaders' aggregation space" ||
    { echo "$out"; echo "node.sh: no fallback message for l with a small budget"; exit 1; }
echo "$out" | grep -q "2 nodes of 2 ranks: l," ||
    { echo "$out"; echo "node.sh: l did not run on 2 x 2"; exit 1; }
