#!/bin/sh
# test.sh - install what is missing, build, and run every test under Open MPI
# and under MPICH (make check in build/openmpi and build/mpich).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh" || exit 1

passed=0
failed=0
for mpi in openmpi mpich; do
    echo "=== $mpi: build"
    if ! "$top/scripts/build.sh" "$mpi"; then
        failed=$((failed + 1))
        continue
    fi
    echo "=== $mpi: make check"
    if make -C "$top/build/$mpi" check; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        # Show what failed: the logs of the failing tests.
        for log in "$top/build/$mpi"/tests/*.log; do
            grep -q '^FAIL\|^ERROR' "${log%.log}.trs" 2>/dev/null && { echo "--- $log"; tail -50 "$log"; }
        done
    fi
done
echo "test suites (one per MPI): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
