#!/bin/sh
# AIP_Bcast_rma against MPI_Bcast on p = 1..9 ranks (bcast_test: every root,
# the three trees and auto, nodes of 1, 2, 3 ranks and as MPI finds them,
# sizes around the chunk, gapped and mixed datatypes, window reuse, errors);
# bcast_world_test: on MPI_COMM_WORLD itself and on a communicator never
# freed, through MPI_Finalize; bcast_split_test: on the two halves of
# MPI_COMM_WORLD at the same time.  One seed per run, printed, so that a
# failure can be replayed with AIP_TEST_SEED=<seed>.  MPICH, whose every
# wait spins, runs every root with every tree on 2, 3 and 4 ranks and roots
# 0 and p-1 on 8, about a minute instead of 5: the trees' shapes on 1 and
# 5-9 ranks run under Open MPI (odd p through its pt2pt one-sided), and the
# tree code is the same for both MPIs.
#
# Open MPI 4's osc/rdma makes the broadcast MPI_Bcast's between nodes that
# share a host (bcast_windows.c), as all of them do here; with sm,pt2pt the
# trees run.  So under Open MPI odd p run with OMPI_MCA_osc=sm,pt2pt (the
# trees) and even p as installed (the fallback, and the one node's
# shared-memory window, which is made either way).
#
# AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on fewer
# ranks, each run paying the sanitizers' start and leak check.
# There the duplicate left to MPI_Finalize is freed before it (the leak
# check would report MPI's own objects), and the halves repeat 4 times.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
echo "seed $seed"
pt2pt=OMPI_MCA_osc=sm,pt2pt
ranks="1 2 3 4 5 6 7 8 9" world_ranks="2 4" world_args='' split_args='' split_limit=60
[ "${AIP_TEST_SCALE:-}" = small ] &&
    ranks="3 4" world_ranks=3 world_args="--free-dup 1" split_args="--repeat 4" split_limit=120
[ "$MPI_FLAVOR" = mpich ] && [ "${AIP_TEST_SCALE:-}" != small ] && ranks="2 3 4 8"
for np in $ranks; do
    quick=0
    [ "$MPI_FLAVOR" = mpich ] && [ "$np" -gt 5 ] && quick=1
    osc=
    [ "$MPI_FLAVOR" = openmpi ] && [ $((np % 2)) = 1 ] && osc=$pt2pt
    env $osc "$MPIRUN" "$np" "$TESTBIN/mpi/bcast_test" --seed "$seed" --quick "$quick"
done
# What runs: the tree asked for, and auto's choice, among nodes of one rank.
out=$(env $pt2pt AIP_DEBUG=1 AIP_RANKS_PER_NODE=1 AIP_BCAST_ALGORITHM=binary "$MPIRUN" 4 \
    "$TESTBIN/mpi/bcast_test" --seed "$seed" --quick 1 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -q "AIP_Bcast_rma on 4 ranks, 4 nodes: binary," ||
    { echo "$out"; echo "bcast.sh: AIP_BCAST_ALGORITHM=binary did not run the binary tree"; exit 1; }
# auto: the binary tree (tunables.h says why), small messages and long.
out=$(AIP_DEBUG=1 "$MPIRUN" 4 "$TESTBIN/mpi/bcast_test" --seed "$seed" --quick 1 2>&1) ||
    { echo "$out"; exit 1; }
for expected in "4 ranks, [0-9] nodes: binary (auto), 684 bytes" \
    "4 ranks, [0-9] nodes: binary (auto), 393228 bytes"; do
    echo "$out" | grep -q "$expected" || { echo "$out"; echo "bcast.sh: no '$expected'"; exit 1; }
done
# On MPI_COMM_WORLD and a duplicate left to MPI_Finalize: the windows cached
# there are freed while MPI still works (a crash after right results fails);
# under Open MPI also with the window between nodes made.
for np in $world_ranks; do
    # shellcheck disable=SC2086 # world_args is a word list
    "$MPIRUN" "$np" "$TESTBIN/mpi/bcast_world_test" --seed "$seed" $world_args
done
if [ "$MPI_FLAVOR" = openmpi ]; then
    # shellcheck disable=SC2086
    env $pt2pt "$MPIRUN" 4 "$TESTBIN/mpi/bcast_world_test" --seed "$seed" $world_args
fi
# Two halves at once, each rank a node: right data and no hang (a minute at
# most; it takes seconds) with the osc component as installed, which under
# Open MPI 4 is osc/rdma, declined; with sm,pt2pt the trees run, and must.
# shellcheck disable=SC2086 # split_args is a word list
AIP_TEST_TIMEOUT=$split_limit "$MPIRUN" 4 "$TESTBIN/mpi/bcast_split_test" --seed "$seed" $split_args
# shellcheck disable=SC2086
out=$(env $pt2pt AIP_DEBUG=1 AIP_TEST_TIMEOUT=$split_limit \
    "$MPIRUN" 4 "$TESTBIN/mpi/bcast_split_test" --seed "$seed" $split_args 2>&1) ||
    { echo "$out"; exit 1; }
echo "$out" | grep -q "AIP_Bcast_rma on 2 ranks, 2 nodes: binary (auto)," ||
    { echo "$out"; echo "bcast.sh: the halves did not run the tree between nodes"; exit 1; }
