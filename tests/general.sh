#!/bin/sh
# AIP_Alltoallv_general against the MPI library's out-of-place
# MPI_Alltoallv on p = 1..9 and 16 ranks (oversubscribed), then the memory
# bound with 256 MiB per rank.  One seed per run, printed, so a failure can
# be replayed with AIP_TEST_SEED=<seed>.
set -e
seed=${AIP_TEST_SEED:-$(date +%s)}
for np in 1 2 3 4 5 6 7 8 9 16; do
    "$MPIRUN" "$np" "$TESTBIN/general_test" --seed "$seed"
done
"$MPIRUN" 2 "$TESTBIN/general_test" --memory 256
