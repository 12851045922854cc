#!/bin/sh
# fftw_wisdom.sh - wisdom made with our solvers is exported and imported:
# mpi-bench -o wisdom plans ir32x32x32 with the flag (MEASURE) and writes
# wis.dat; a second run that may plan only from wisdom (-o wisdom-only)
# must find the plan there, with our transposes, and verify it.
#
# Environment (from make check): MPIRUN, MPIBENCH.
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

$MPIRUN 2 "$MPIBENCH" -o inplace -o wisdom --verify ir32x32x32 > first.out 2>&1 ||
    { echo "FAIL: planning with -o wisdom"; cat first.out; exit 1; }
grep -q fftw_mpi_transpose_inplace_register wis.dat ||
    { echo "FAIL: wis.dat does not name our solvers"; cat wis.dat; exit 1; }

$MPIRUN 2 "$MPIBENCH" -o inplace -o wisdom -o wisdom-only -v2 \
    --verify ir32x32x32 > second.out 2>&1 ||
    { echo "FAIL: planning from wisdom only"; cat second.out; exit 1; }
if ! grep -q 'mpi-transpose-inplace/' second.out || ! grep -q '^ir32x32x32 ' second.out; then
    echo "FAIL: the plan from wisdom does not use our transposes or did not verify"
    cat second.out
    exit 1
fi
echo "ok   wisdom: $(grep -o 'mpi-transpose-inplace/[a-z]*' second.out | sort -u | tr '\n' ' ')"
