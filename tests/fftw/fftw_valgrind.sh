#!/bin/sh
# fftw_valgrind.sh - one valgrind (memcheck) run of the patched FFTW's
# mpi-bench --verify on 2 ranks, in place with our transposes forced by the
# planner flag (-o inplace, ESTIMATE): ir24x24x24, which the symmetric hsa
# transposes, the uneven ir17x19x23, which the general one does, and
# ir17x19x24, whose vector of 19 x 13 complex does not divide by 2, so that
# its transposes move blocks short by one item (rows-to-blocks).  Fails
# on any invalid read or write, use of uninitialised memory, bad free or
# definite leak that tests/sanitizers/valgrind.supp does not attribute to
# the MPI library; and unless both transforms verify and the plan shows
# mpi-transpose-inplace/hsa and /general, the moves, and no FFTW transpose.
#
# The real mpi-bench runs under valgrind, not its libtool wrapper script:
# FFTW's libtool --mode=execute puts the uninstalled libraries on the path.
# 7-8 s with Open MPI on 2 cores (load average 3), most of it valgrind's
# start-up with the MPI library's components.  FFTW's own code is built
# without -g: its frames in a report name functions, not lines.
#
# Then fftw_guard_test --exact on 3 ranks, whose arrays are exactly
# fftw_mpi_local_size_*'s size: its fixed shapes, whose first dimensions
# are smaller than the ranks, planned with FFTW_MEASURE, under general,
# hsa-pipelined and the default on two emulated nodes; any read or write
# past a rank's array is valgrind's error.  (Not its random shapes: some
# with a dimension of 1 make stock FFTW itself write past the array.)
# About 20 s.
#
# Environment: MPIRUN, FFTW_BUILD, TESTBIN (as make check sets them;
# scripts/sanitize.sh passes build/openmpi's); VALGRIND_FLAGS adds valgrind
# options (for example --track-origins=yes to find where an uninitialised
# value comes from).
set -u
supp="$(cd "$(dirname "$0")/.." && pwd)/sanitizers/valgrind.supp"
if ! command -v valgrind > /dev/null; then
    echo "fftw_valgrind.sh: SKIP: valgrind is not installed" >&2
    exit 77
fi
bench="$FFTW_BUILD/mpi/mpi-bench"
[ -x "$bench" ] || { echo "fftw_valgrind.sh: no $bench (built without FFTW?)" >&2; exit 1; }

guard="$TESTBIN/fftw/fftw_guard_test"
[ -x "$guard" ] || { echo "fftw_valgrind.sh: no $guard (make check builds it)" >&2; exit 1; }

out=$(mktemp)
trap 'rm -f "$out"' EXIT
valgrind_flags="-q --error-exitcode=97 --leak-check=full --show-leak-kinds=definite
--errors-for-leak-kinds=definite --num-callers=40 --keep-debuginfo=yes --suppressions=$supp"
status=0
# shellcheck disable=SC2086 # the flags are word lists
$MPIRUN 2 "$FFTW_BUILD/libtool" --mode=execute valgrind $valgrind_flags ${VALGRIND_FLAGS:-} \
    "$bench" -o inplace -o estimate -v2 --verify ir24x24x24 --verify ir17x19x23 \
    --verify ir17x19x24 \
    > "$out" 2>&1 || status=$?

fail=""
[ "$status" -eq 0 ] || fail="exit $status (97: valgrind found errors)"
grep -q '^==[0-9]*== ' "$out" && fail="${fail:+$fail; }valgrind reports"
grep -q 'mpi-transpose-inplace/hsa' "$out" || fail="${fail:+$fail; }no hsa transpose in the plan"
grep -q 'mpi-transpose-inplace/general' "$out" ||
    fail="${fail:+$fail; }no general transpose in the plan"
grep -q '(rows-to-blocks-' "$out" || fail="${fail:+$fail; }no moves of blocks in the plan"
grep -q 'mpi-transpose-\(pairwise\|recurse\|alltoall\)' "$out" &&
    fail="${fail:+$fail; }an FFTW transpose in the plan"
[ "$(grep -cE '^ir(24x24x24|17x19x23|17x19x24) [0-9.e+-]+ ' "$out")" -eq 3 ] ||
    fail="${fail:+$fail; }not all three transforms verified"
if [ -n "$fail" ]; then
    cat "$out"
    echo "FAIL: mpi-bench under valgrind: $fail"
    exit 1
fi
grep -E '^ir(24x24x24|17x19x23|17x19x24) ' "$out"
echo "ok: mpi-bench --verify under valgrind on 2 ranks (hsa, general, moves of blocks), no errors"

status=0
# shellcheck disable=SC2086
$MPIRUN 3 valgrind $valgrind_flags ${VALGRIND_FLAGS:-} "$guard" --exact 1 --random 0 \
    --algorithms "general hsa-pipelined default" > "$out" 2>&1 || status=$?
if [ "$status" -ne 0 ] || grep -q '^==[0-9]*== ' "$out" ||
   ! grep -q 'fftw_guard_test (p=3): [1-9][0-9]* passed, 0 failed' "$out"; then
    cat "$out"
    echo "FAIL: fftw_guard_test --exact under valgrind (exit $status; 97: valgrind found errors)"
    exit 1
fi
grep -E 'cases|passed' "$out"
echo "ok: fftw_guard_test --exact under valgrind on 3 ranks, no errors"
