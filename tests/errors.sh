#!/bin/sh
# Bad arguments return the same MPI error class on every rank and change nothing.
set -e
for np in 1 2 3 4; do
    "$MPIRUN" "$np" "$TESTBIN/errors_test"
done
AIP_ALGORITHM=bogus "$MPIRUN" 3 "$TESTBIN/errors_test" --bad-env
AIP_AUX_BYTES=12X "$MPIRUN" 3 "$TESTBIN/errors_test" --bad-env
AIP_AUX_STRATEGY=bogus "$MPIRUN" 2 "$TESTBIN/errors_test" --bad-env
AIP_AUX_BUFFERS=-2 "$MPIRUN" 2 "$TESTBIN/errors_test" --bad-env
AIP_REQUESTS=often "$MPIRUN" 2 "$TESTBIN/errors_test" --bad-env
AIP_RANKS_PER_NODE=two "$MPIRUN" 2 "$TESTBIN/errors_test" --bad-env
