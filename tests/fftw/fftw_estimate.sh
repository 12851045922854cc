#!/bin/sh
# fftw_estimate.sh - fftw-patches/0007: under FFTW_ESTIMATE, a loop of
# transforms whose strides span a page, over a vector of smaller stride,
# gathers the vectors into buffers instead of running strided.  Each case
# is verified, and its printed plan (-v2) must hold a buffered solver, or
# must not:
#   serial, FFTW's bench: 256 points 8 KiB apart over a contiguous vector
#     (dft-buffered), the same as an r2hc r2r (rdft-buffered), a 256 x 256
#     c2c (its columns, 4 KiB apart); out of place, where dft-buffered does
#     not apply under ESTIMATE, the loop stays and still verifies (the charge
#     is a cost, never a refusal); nor is a loop charged whose transforms'
#     elements all fit in the L1 cache (300 points 4800 bytes apart);
#   MPI on 2 ranks, ours (-o inplace) and stock: c2c, r2c and c2r 256x32x32
#     (after the transpose, the first dimension's transforms lie 8 KiB and
#     4.3 KiB apart) and c2c 4x256x256 (each rank's planes' columns).
# Without the patch none of these plans buffers.
#
# Environment (from make check): MPIRUN, MPIBENCH, FFTW_BUILD.
set -u
failures=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# check NAME WANT PROBLEM COMMAND...: COMMAND (ending in options for
# PROBLEM) verifies PROBLEM, and its plan has a line matching WANT (a
# regex), or none if WANT is !REGEX
check() {
    name=$1 want=$2 problem=$3
    shift 3
    "$@" -o estimate -v2 --verify "$problem" > "$out" 2>&1
    status=$?
    case $want in
    !*) grep -qE -- "${want#!}" "$out" && found=yes || found=no; ok=no ;;
    *) grep -qE -- "$want" "$out" && found=yes || found=no; ok=yes ;;
    esac
    if [ "$status" -ne 0 ] || ! grep -qF "$problem " "$out" || [ "$found" != "$ok" ]; then
        echo "FAIL $name ($problem): expected '$want' in the plan (exit $status)"
        cat "$out"
        failures=$((failures + 1))
    else
        echo "ok   $name ($problem): '$want'"
    fi
}

bench=$FFTW_BUILD/tests/bench
check "strided c2c loop gathers" '^\(dft-buffered' "icf256:512:512*512:1:1" "$bench"
check "strided r2hc loop gathers" '^\(rdft-buffered' "ik256:512:512f*512:1:1" "$bench"
check "2D columns gather" 'dft-buffered-256' icf256x256 "$bench"
check "out of place: the loop stays" '!buffered' "ocf256:512:512*512:1:1" "$bench"
check "fits in L1: the loop stays" '!^\(dft-buffered' "icf300:300:300*300:1:1" "$bench"

for algorithm in hsa off; do
    for problem in icf256x32x32 ir256x32x32 ibr256x32x32 icf4x256x256; do
        check "MPI, $algorithm" 'dft-buffered' $problem \
            env FFTW_MPI_INPLACE_ALGORITHM=$algorithm $MPIRUN 2 "$MPIBENCH"
    done
done

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all passed"
