#!/bin/sh
# sanitize.sh [openmpi] [mpich] [--no-valgrind] [--build-only] - the library alone
# (--without-fftw) built with AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer in build/sanitize-<mpi>/, its tests run there;
# then valgrind runs of the patched FFTW's mpi-bench --verify and of
# fftw_guard_test on arrays of exactly the local size
# (tests/fftw/fftw_valgrind.sh) with the Open MPI build's FFTW, if
# build/openmpi has one (scripts/build.sh openmpi, then its make check).
# Both MPIs by default.  scripts/test.sh runs it after the normal builds;
# run scripts/install-deps.sh first when calling it alone.
#
# Per MPI:
#   1. configure --without-fftw with CFLAGS/LDFLAGS below, make, make the
#      test programs;
#   2. tests/sanitizers/canary.c on 2 ranks: a clean MPI program must pass
#      (the MPI libraries' own leaks are suppressed) and see the sanitizer
#      variables on every rank; a leak of ours, a heap overflow and a signed
#      overflow must each fail with the sanitizer's report;
#   3. make check TESTS=...: the schedule and simulation tests and the MPI
#      tests that need neither FFTW nor much time or memory (below).
# Each result is written as an automake result (tests/sanitize-*.trs beside
# make check's own), so scripts/test.sh counts them all in its summary line.
# --build-only: step 1 alone, no valgrind (scripts/test.sh builds the trees
# in the background this way, and runs the rest after).
# Exit status: 0 when everything passed.
#
# Left out of the sanitized run: memory.sh and general.sh's --memory (their
# bounds on the resident set do not hold with ASan's shadow memory and
# quarantine: 7.2 MiB for a 5 MiB bound under MPICH), large.sh (4 GiB per
# rank, plus ASan's shadow), testbed.sh and node_testbed.sh (the namespace
# bed launches Open MPI itself, about 3 minutes; node_test runs the same
# node-aware code with nodes of k ranks on one host), naive_alltoallv.sh
# (the benchmarks' code, not the library's).
#
# Environment: SANITIZE_TESTS replaces the test list (for every MPI);
# SANITIZE_JOBS make's -j.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
supp="$top/tests/sanitizers"

mpis=""
valgrind=yes
build_only=no
for arg in "$@"; do
    case "$arg" in
    openmpi|mpich) mpis="$mpis $arg" ;;
    --no-valgrind) valgrind=no ;;
    --build-only) build_only=yes valgrind=no ;;
    *) echo "usage: $0 [openmpi] [mpich] [--no-valgrind] [--build-only]" >&2; exit 2 ;;
    esac
done
[ -n "$mpis" ] || mpis="openmpi mpich"

SAN='-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined'
SAN_CFLAGS="-O1 -g $SAN"
SAN_LDFLAGS="$SAN"
# The tests: make check's own scripts and programs, under
# AIP_TEST_SCALE=small, which each says how it shrinks: the MPI tests on
# fewer ranks (each run pays the MPI library's start-up and a leak check of
# its leftovers, 1-3 s under Open MPI; MPICH polls busily, and its 8, 9 and
# 16 oversubscribed ranks take minutes with sanitizers on 2 cores); and, in
# the first MPI's pass only, the tests that use no MPI (schedule_test on
# p <= 256, the simulations, general_sim_test with fewer cases).
AIP_TEST_SCALE=small
export AIP_TEST_SCALE
SIM_TESTS="tests/unit/schedule_test tests/unit/decision_test tests/unit/hypercube_sim_test \
tests/unit/general_sim_test tests/unit/node_sim_test tests/unit/bcast_tree_test"
MPI_TESTS="tests/mpi/alltoall.sh tests/mpi/node.sh tests/mpi/hypercube.sh tests/mpi/general.sh \
tests/mpi/plan.sh tests/mpi/nonblocking.sh tests/mpi/errors.sh tests/mpi/fault.sh tests/mpi/bcast.sh"

# The sanitizers' run-time options, for every rank.
#  ASan: stop at the first error (halt_on_error, the default, made explicit);
#    catch uses of a returned function's locals (detect_stack_use_after_return);
#    full malloc stacks with the slow unwinder, which lsan.supp needs
#    (fast_unwind_on_malloc=0, see there); leaks checked at exit.
#  LSan: the MPI libraries' own leaks suppressed (lsan.supp says why).
#  UBSan: stop at the first error, with a stack (the code is also built with
#    -fno-sanitize-recover=undefined, so every check aborts).
ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:fast_unwind_on_malloc=0:detect_stack_use_after_return=1"
LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
# Open MPI's -x for these variables, read by mpirun from its environment
# (tests/mpirun.sh runs mpirun without -x): Open MPI forwards its whole
# environment to ranks on the local host anyway, this makes it explicit and
# holds for remote hosts too.  MPICH's hydra forwards the environment.
OMPI_MCA_mca_base_env_list="ASAN_OPTIONS;LSAN_OPTIONS;UBSAN_OPTIONS"
export OMPI_MCA_mca_base_env_list

# record DIR NAME RESULT LOGFILE: an automake-style result (PASS, FAIL, SKIP).
record() {
    printf ':test-result: %s\n:global-test-result: %s\n:recheck: no\n:copy-in-global-log: no\n' \
        "$3" "$3" > "$1/tests/sanitize-$2.trs"
    [ "$4" = "$1/tests/sanitize-$2.log" ] || cp "$4" "$1/tests/sanitize-$2.log" 2>/dev/null
    echo "$3: sanitize-$2"
    [ "$3" != FAIL ] || { echo "--- $1/tests/sanitize-$2.log"; tail -40 "$1/tests/sanitize-$2.log"; }
}

# canary DIR MODE EXPECT-EXIT PATTERN [ARGS]: run the canary on 2 ranks; it must
# exit 0 (EXPECT-EXIT ok) or not (fail), and its output must hold PATTERN.
canary() {
    c_dir=$1 c_mode=$2 c_expect=$3 c_pattern=$4
    shift 4
    c_log="$c_dir/tests/sanitize-canary-$c_mode.log"
    "$c_dir/tests/mpirun.sh" 2 "$c_dir/tests/sanitizer_canary" "$c_mode" "$@" > "$c_log" 2>&1
    c_status=$?
    c_result=PASS
    if [ "$c_expect" = ok ] && [ "$c_status" -ne 0 ]; then
        echo "canary $c_mode: exit $c_status, expected 0" >> "$c_log"; c_result=FAIL
    elif [ "$c_expect" = fail ] && [ "$c_status" -eq 0 ]; then
        echo "canary $c_mode: exit 0, expected the sanitizer to fail it" >> "$c_log"; c_result=FAIL
    elif ! grep -q "$c_pattern" "$c_log"; then
        echo "canary $c_mode: no '$c_pattern' in the output" >> "$c_log"; c_result=FAIL
    fi
    record "$c_dir" "canary-$c_mode" "$c_result" "$c_log"
}

failed=0
cd "$top"
mkdir -p m4
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    autoreconf -fi || exit 1
fi
for mpi in $mpis; do
    start=$(date +%s)
    dir="$top/build/sanitize-$mpi"
    echo "=== sanitize $mpi: build in $dir"
    mkdir -p "$dir/tests"
    rm -f "$dir"/tests/*.trs "$dir"/tests/*.log "$dir"/tests/*/*.trs "$dir"/tests/*/*.log # no stale results
    buildlog="$dir/build.log"
    (
        set -e
        cd "$dir"
        if [ ! -f Makefile ] || [ "$top/configure" -nt config.status ] ||
           ! grep -qF -- "$SAN_CFLAGS" config.status; then
            "$top/configure" --with-mpi="$mpi" --without-fftw \
                CFLAGS="$SAN_CFLAGS" LDFLAGS="$SAN_LDFLAGS"
        fi
        # the library and the test programs (not the benchmarks)
        make -j"${SANITIZE_JOBS:-$(nproc)}" alltoall_inplace/liballtoall_inplace.la
        make -j"${SANITIZE_JOBS:-$(nproc)}" check TESTS=
        mpicc=$(sed -n 's/^MPICC = //p' Makefile)
        $mpicc $SAN_CFLAGS -Wall -Wextra -o tests/sanitizer_canary "$supp/canary.c" $SAN_LDFLAGS
    ) > "$buildlog" 2>&1
    if [ $? -ne 0 ]; then
        record "$dir" build FAIL "$buildlog"
        failed=$((failed + 1))
        continue
    fi
    record "$dir" build PASS "$buildlog"
    echo "=== sanitize $mpi: built in $(($(date +%s) - start)) s"
    [ "$build_only" = no ] || continue

    echo "=== sanitize $mpi: canaries"
    canary "$dir" clean ok 'sanitizer options seen' "$ASAN_OPTIONS|$LSAN_OPTIONS|$UBSAN_OPTIONS"
    canary "$dir" leak fail 'ERROR: LeakSanitizer: detected memory leaks'
    canary "$dir" overflow fail 'ERROR: AddressSanitizer: heap-buffer-overflow'
    canary "$dir" ubsan fail 'runtime error: signed integer overflow'

    echo "=== sanitize $mpi: make check (sanitizers)"
    tests=${SANITIZE_TESTS:-"$SIM_TESTS $MPI_TESTS"}
    SIM_TESTS="" # once
    if ! make -C "$dir" check TESTS="$tests"; then
        for log in "$dir"/tests/*.log "$dir"/tests/*/*.log; do
            grep -q '^:test-result: \(FAIL\|ERROR\)' "${log%.log}.trs" 2>/dev/null &&
                { echo "--- $log"; tail -60 "$log"; }
        done
    fi
    grep -l '^:test-result: \(FAIL\|ERROR\)' "$dir"/tests/*.trs "$dir"/tests/*/*.trs > /dev/null 2>&1 &&
        failed=$((failed + 1))
    echo "=== sanitize $mpi: $(($(date +%s) - start)) s"
done

# The valgrind runs of the patched FFTW (tests/fftw/fftw_valgrind.sh), with the
# normal Open MPI build's mpi-bench and fftw_guard_test: FFTW is not rebuilt
# with sanitizers.
if [ "$valgrind" = yes ]; then
    start=$(date +%s)
    dir="$top/build/sanitize-valgrind"
    ompi="$top/build/openmpi"
    echo "=== valgrind: mpi-bench --verify of $ompi"
    mkdir -p "$dir/tests"
    rm -f "$dir"/tests/*.trs "$dir"/tests/*.log
    log="$dir/tests/sanitize-fftw-valgrind.log"
    if [ ! -x "$ompi/fftw/build/mpi/mpi-bench" ] || [ ! -x "$ompi/tests/mpirun.sh" ]; then
        echo "no $ompi/fftw/build/mpi/mpi-bench: run scripts/build.sh openmpi first" > "$log"
        record "$dir" fftw-valgrind SKIP "$log"
    else
        MPIRUN="$ompi/tests/mpirun.sh" FFTW_BUILD="$ompi/fftw/build" TESTBIN="$ompi/tests" \
            "$top/tests/fftw/fftw_valgrind.sh" > "$log" 2>&1
        case $? in
        0) record "$dir" fftw-valgrind PASS "$log" ;;
        77) record "$dir" fftw-valgrind SKIP "$log" ;;
        *) record "$dir" fftw-valgrind FAIL "$log"; failed=$((failed + 1)) ;;
        esac
    fi
    echo "=== valgrind: $(($(date +%s) - start)) s"
fi

[ "$failed" -eq 0 ]
