#!/bin/sh
# The benchmarks' naive in-place Alltoallv (bench/naive_alltoallv.c) against
# the MPI library's out-of-place MPI_Alltoallv on p = 1..8 ranks
# (oversubscribed).  One seed per run, printed, so a failure can be replayed
# with AIP_TEST_SEED=<seed>.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
for np in 1 2 3 4 5 6 7 8; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/naive_alltoallv_test" --seed "$seed"
done
