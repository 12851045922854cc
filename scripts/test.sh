#!/bin/sh
# test.sh - install what is missing, build, and run every test under Open MPI
# and under MPICH (make check in build/openmpi and build/mpich).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh" || exit 1

failed_builds=0
for mpi in openmpi mpich; do
    echo "=== $mpi: build"
    if ! "$top/scripts/build.sh" "$mpi"; then
        failed_builds=$((failed_builds + 1))
        continue
    fi
    echo "=== $mpi: make check"
    if ! make -C "$top/build/$mpi" check; then
        # Show what failed: the logs of the failing tests.
        for log in "$top/build/$mpi"/tests/*.log; do
            grep -q '^:test-result: \(FAIL\|ERROR\)' "${log%.log}.trs" 2>/dev/null &&
                { echo "--- $log"; tail -50 "$log"; }
        done
    fi
done

# One line for both MPIs, counted from automake's results (a failed build counts as a failure).
count() { grep -h "^:test-result: $1" "$top"/build/*/tests/*.trs 2>/dev/null | wc -l; }
passed=$(count PASS)
skipped=$(count SKIP)
failed=$(($(count FAIL) + $(count ERROR) + failed_builds))
echo "Test programs under Open MPI and MPICH:"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
