#!/bin/sh
# The library under faults (fault_test.c) on p = 2..5 ranks: each of its
# allocations failing in turn, then each of its MPI sends, receives and
# completions failing in turn, then the AIP_FAULT_ALLOC variable itself.
# A short time limit per run: a rank left waiting is the failure looked for.
# AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on fewer
# ranks, each run paying the sanitizers' start and leak check.
set -e
AIP_TEST_TIMEOUT=${AIP_TEST_TIMEOUT:-120}
export AIP_TEST_TIMEOUT
ranks="2 3 4 5"
[ "${AIP_TEST_SCALE:-}" = small ] && ranks="2 4"
# MPICH polls busily while it waits, so its oversubscribed runs cost 3-10x
# Open MPI's here: under MPICH fewer counts (what depends on the MPI is the
# same at every count; Open MPI's runs cover them all).
[ "$MPI_FLAVOR" = mpich ] && [ "${AIP_TEST_SCALE:-}" != small ] && ranks="2 3 4"
for np in $ranks; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/fault_test" --alloc
done
for np in $ranks; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/fault_test" --mpi
done
# The variable: counting, and a failure it names (the first allocation on rank 1).
out=$(AIP_FAULT_ALLOC=count "$MPIRUN" 2 "$TESTBIN/mpi/fault_test" --env 2>&1) ||
    { echo "$out"; exit 1; }
echo "$out" | grep -q "AIP_FAULT_ALLOC=count: rank 1: [1-9][0-9]* allocations" ||
    { echo "$out"; echo "fault.sh: no count from AIP_FAULT_ALLOC=count"; exit 1; }
AIP_FAULT_ALLOC=1:1 "$MPIRUN" 2 "$TESTBIN/mpi/fault_test" --env --expect-no-mem
