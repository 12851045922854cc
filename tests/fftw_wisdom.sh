#!/bin/sh
# fftw_wisdom.sh - wisdom made with our solvers is exported and imported:
# mpi-bench -o wisdom plans ir32x32x32 with LSA forced (MEASURE) and writes
# wis.dat; a second run that may plan only from wisdom (-o wisdom-only)
# must find the plan there, with LSA, and verify it.  A third run forcing
# HSA must not reuse the LSA wisdom (the variable is not part of wisdom:
# FFTW finds the LSA solver inapplicable and replans).
#
# Environment (from make check): MPIRUN, MPIBENCH.
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

$MPIRUN 2 "$MPIBENCH" -o inplace=lsa -o wisdom --verify ir32x32x32 > first.out 2>&1 ||
    { echo "FAIL: planning with -o wisdom"; cat first.out; exit 1; }
grep -q fftw_mpi_transpose_inplace_register wis.dat ||
    { echo "FAIL: wis.dat does not name our solvers"; cat wis.dat; exit 1; }

# run NAME EXPECTED-SOLVER OPTIONS...: verify with the plan printed; its
# transposes must all be EXPECTED-SOLVER.
run() {
    name=$1 want=$2
    shift 2
    $MPIRUN 2 "$MPIBENCH" -o wisdom "$@" -v2 --verify ir32x32x32 > "$name.out" 2>&1
    status=$?
    got=$(grep -o 'mpi-transpose-[a-z/]*' "$name.out" | sort -u | tr '\n' ' ')
    if [ "$status" -ne 0 ] || ! grep -q '^ir32x32x32 ' "$name.out" || [ "$got" != "$want " ]; then
        echo "FAIL $name: expected '$want', got '$got' (exit $status)"
        cat "$name.out"
        exit 1
    fi
    echo "ok   $name: $got"
}
run "from wisdom only" mpi-transpose-inplace/lsa -o inplace=lsa -o wisdom-only
run "wisdom of another algorithm" mpi-transpose-inplace/hsa -o inplace=hsa
