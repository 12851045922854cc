#!/bin/sh
# bench/cpmd_fft's pipelined band batches (bench/cpmd_pipeline.c): the
# CPMD-style steps (forward 3D FFT to the transposed layout, a propagator,
# backward) of two batches in flight, each one's exchanges (nonblocking
# in-place plans of the library) behind the other's FFTs, against stock
# FFTW in place.  cpmd_fft checks every band: its spectrum after the first
# forward transform, its values after all steps; a wrong one exits 1.  Each
# run must end with status 0 and print one row per variant.  Cases: 1, 2
# and 4 ranks (local transposes before and after each exchange, none with
# one plane a rank), two task groups, several algorithms and pieces per
# computation, the sequential twin; then what the pipeline does not take
# (N not divisible by the ranks, an odd number of batches) must be a
# "not run" line, not a failure.  About 10 s under Open MPI here.
# Environment (from make check): MPIRUN, TESTBIN, MPI_FLAVOR.
set -u
CPMD=${CPMD:-$TESTBIN/../bench/cpmd_fft}
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run NP ROWS ARGS...: cpmd_fft must exit 0 with ROWS rows (no '#')
run() {
    np=$1 rows=$2
    shift 2
    "$MPIRUN" "$np" "$CPMD" -r 1 "$@" > "$out" 2>&1
    status=$?
    got=$(grep -vc '^#' "$out")
    if [ "$status" = 0 ] && [ "$got" = "$rows" ]; then
        echo "ok: $np ranks: $*"
    else
        echo "FAIL: $np ranks: $*: status $status, $got rows (want 0, $rows)" >&2
        cat "$out" >&2
        failed=1
    fi
}

run 1 3 -n 8 -b 4 -B 2 -a stock,hsa-pipelined,hsa-sequential
run 2 4 -n 16 -b 8 -B 2 -a stock,hsa-pipelined,lsa-pipelined,auto-sequential
run 2 2 -n 16 -b 4 -B 1 -t 3 -a hsa-pipelined,mpich-pipelined
run 4 3 -n 16 -b 6 -B 3 -a stock,hsa-pipelined,sa-pipelined
run 4 2 -n 8 -b 4 -B 1 -g 2 -a hsa-pipelined,hypercube-pipelined
run 4 1 -n 4 -b 2 -B 1 -a hsa-pipelined # one plane a rank: no local transposes

# Not taken: a comment line says why, and the run still succeeds.
for args in "3 -n 16 -b 4 -B 1" "2 -n 16 -b 6 -B 2"; do
    # shellcheck disable=SC2086 # args is a list of words
    set -- $args
    np=$1
    shift
    "$MPIRUN" "$np" "$CPMD" -r 1 "$@" -a hsa-pipelined > "$out" 2>&1
    status=$?
    if [ "$status" = 0 ] && grep -q '^# hsa-pipelined: not run' "$out" &&
        ! grep -v '^#' "$out" | grep -q .; then
        echo "ok: $np ranks: $*: not run"
    else
        echo "FAIL: $np ranks: $*: expected a 'not run' line, status 0" >&2
        cat "$out" >&2
        failed=1
    fi
done
exit $failed
