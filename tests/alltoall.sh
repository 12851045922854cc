#!/bin/sh
# Correctness against the MPI library's out-of-place collectives on
# p = 1..9 and 16 ranks, then blocks of several MiB, then the options taken
# from the environment.  One seed per run, printed, so a failure can be
# replayed with AIP_TEST_SEED=<seed>.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
for np in 1 2 3 4 5 6 7 8 9 16; do
    "$MPIRUN" "$np" "$TESTBIN/alltoall_test" --seed "$seed"
done
for np in 2 3 4; do
    "$MPIRUN" "$np" "$TESTBIN/alltoall_test" --seed "$seed" --large
done
for alg in $("$TESTBIN/algorithms" schedule) auto; do
    AIP_ALGORITHM=$alg AIP_AUX_BYTES=1024 "$MPIRUN" 5 "$TESTBIN/alltoall_test" --seed "$seed" --env
done
