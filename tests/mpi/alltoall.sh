#!/bin/sh
# Correctness against the MPI library's out-of-place collectives on
# p = 1..9 and 16 ranks, then blocks of several MiB, then the options taken
# from the environment.  One seed per run, printed, so a failure can be
# replayed with AIP_TEST_SEED=<seed>.
# AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on fewer
# ranks, each run paying the sanitizers' start and leak check.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
ranks="1 2 3 4 5 6 7 8 9 16" large="2 3 4" env_ranks=5
env_algorithms="$("$TESTBIN/unit/algorithms" schedule) auto"
[ "${AIP_TEST_SCALE:-}" = small ] && ranks="1 2 3 4" large=2 env_ranks=3 env_algorithms=lsa
# MPICH polls busily while it waits, so its oversubscribed runs cost 3-10x
# Open MPI's here: under MPICH fewer counts (what depends on the MPI is the
# same at every count; Open MPI's runs cover them all).
[ "$MPI_FLAVOR" = mpich ] && [ "${AIP_TEST_SCALE:-}" != small ] && ranks="1 2 3 5 8" large="2 3"
for np in $ranks; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/alltoall_test" --seed "$seed"
done
for np in $large; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/alltoall_test" --seed "$seed" --large
done
for alg in $env_algorithms; do
    AIP_ALGORITHM=$alg AIP_AUX_BYTES=1024 "$MPIRUN" "$env_ranks" "$TESTBIN/mpi/alltoall_test" \
        --seed "$seed" --env
done
