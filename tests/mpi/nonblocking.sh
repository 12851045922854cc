#!/bin/sh
# Nonblocking executions (AIP_Plan_start, _test, _wait) of every algorithm,
# three plans in flight with random steps between them, against the MPI
# library's collectives, on p = 1..5 and 8 ranks (nodes of 2: the
# node-aware algorithms run on 4 and 8).  One seed per run, printed,
# replayed with AIP_TEST_SEED=<seed>.
# AIP_TEST_SCALE=small (scripts/sanitize.sh): 3 and 4 ranks, one round.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
echo "seed $seed"
ranks="1 2 3 4 5 8" rounds=3
[ "${AIP_TEST_SCALE:-}" = small ] && ranks="3 4" rounds=1
# MPICH polls busily while it waits, so its oversubscribed runs cost 3-10x
# Open MPI's here: under MPICH fewer counts (what depends on the MPI is the
# same at every count; Open MPI's runs cover them all).
[ "$MPI_FLAVOR" = mpich ] && [ "${AIP_TEST_SCALE:-}" != small ] && ranks="2 3 4 8"
for np in $ranks; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/nonblocking_test" --seed "$seed" --rounds "$rounds"
done
