#!/bin/sh
# Bad arguments return the same MPI error class on every rank and change nothing.
# AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on fewer
# ranks, each run paying the sanitizers' start and leak check.
set -e
ranks="1 2 3 4" env_ranks=3
[ "${AIP_TEST_SCALE:-}" = small ] && ranks="1 3" env_ranks=2
for np in $ranks; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/errors_test"
done
AIP_ALGORITHM=bogus "$MPIRUN" "$env_ranks" "$TESTBIN/mpi/errors_test" --bad-env
AIP_AUX_BYTES=12X "$MPIRUN" "$env_ranks" "$TESTBIN/mpi/errors_test" --bad-env
AIP_AUX_STRATEGY=bogus "$MPIRUN" 2 "$TESTBIN/mpi/errors_test" --bad-env
AIP_AUX_BUFFERS=-2 "$MPIRUN" 2 "$TESTBIN/mpi/errors_test" --bad-env
AIP_REQUESTS=often "$MPIRUN" 2 "$TESTBIN/mpi/errors_test" --bad-env
AIP_RANKS_PER_NODE=two "$MPIRUN" 2 "$TESTBIN/mpi/errors_test" --bad-env
