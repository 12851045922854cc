#!/bin/sh
# test.sh - install what is missing, build, and run every test under Open MPI
# and under MPICH (make check in build/openmpi and build/mpich); then the
# sanitizer step (scripts/sanitize.sh): the library alone built with
# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer and its
# tests under both MPIs (build/sanitize-<mpi>), and valgrind runs of the
# patched FFTW's mpi-bench --verify and of its guard test on exact arrays
# (build/sanitize-valgrind).
# AIP_TEST_SANITIZE=no leaves the sanitizer step out.  Last, make distcheck:
# the release tarball builds, runs its tests, installs and uninstalls from
# itself.  By default the library alone with its unit tests (a minute);
# AIP_TEST_DISTCHECK=full: the patched FFTW and every test under Open MPI
# too (about 20 minutes); no: left out.  MPICH's build and the sanitizer
# trees' run in the background, niced, while Open MPI's tests run.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# Each phase ends with its time, so that a slow CI run says where it went.
began=$(date +%s)
phase_start=$began
# phase_done WHAT: "=== WHAT in N s", N since the previous phase's end
phase_done() {
    now=$(date +%s)
    echo "=== $1 in $((now - phase_start)) s"
    phase_start=$now
}

"$top/scripts/install-deps.sh" || exit 1
# valgrind, for the sanitizer step's FFTW run (not in install-deps.sh's list).
if [ "${AIP_TEST_SANITIZE:-yes}" != no ] && ! command -v valgrind > /dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "test.sh: installing valgrind"
    { $SUDO apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends valgrind; } ||
        echo "test.sh: could not install valgrind; its run will be skipped"
fi
phase_done "dependencies"

# slowest_tests DIR SINCE: the ten slowest tests of the make check in DIR
# that began at SINCE (seconds), from the times their results were written
# (the tests run one after another; the first one's time includes building
# the test programs).
slowest_tests() {
    echo "=== the slowest tests (s):"
    ls -tr --time-style=+%s -l "$1"/tests/*/*.trs 2>/dev/null |
        awk -v last="$2" '$6 >= last { print $6 - last, $7; last = $6 }' |
        sort -rn | head -n 10 | sed "s|$1/||"
}

# check MPI [MAKE-ARGS]: make check in build/MPI, showing of each failing
# test the first lines that say FAIL with what follows them (a long test's
# first failure is far from its end), then the end of its log.
check() {
    mpi=$1
    shift
    echo "=== $mpi: make check"
    check_start=$(date +%s)
    if ! make -C "$top/build/$mpi" check "$@"; then
        for log in "$top/build/$mpi"/tests/*/*.log; do
            grep -q '^:test-result: \(FAIL\|ERROR\)' "${log%.log}.trs" 2>/dev/null || continue
            echo "--- $log: its first failures"
            grep -m 3 -A 15 'FAIL' "$log" | head -n 45
            echo "--- $log: its end"
            tail -n 25 "$log"
        done
    fi
    slowest_tests "$top/build/$mpi" "$check_start"
    phase_done "$mpi: make check"
}

failed_builds=0
echo "=== openmpi: build"
openmpi_built=no
if "$top/scripts/build.sh" openmpi; then
    openmpi_built=yes
else
    failed_builds=$((failed_builds + 1))
fi
phase_done "openmpi: build"
# While Open MPI's tests run, MPICH's build and the sanitizer trees' are made
# at the lowest priority (nice 19), in the CPU time those tests leave idle:
# single-rank tests leave a core, ranks that wait yield it under
# oversubscription, mpirun and the test bed start up.  Then MPICH's tests,
# which poll busily, run alone.
background_log="$top/build/background-build.log"
mkdir -p "$top/build"
rm -f "$background_log.status"    # a status left by an earlier run must not pass for this one's
echo "=== mpich and sanitizer builds: in the background, niced (log: $background_log)"
(
    nice -n 19 "$top/scripts/build.sh" mpich
    echo "$?" > "$background_log.status"
    [ "${AIP_TEST_SANITIZE:-yes}" = no ] || nice -n 19 "$top/scripts/sanitize.sh" --build-only
) > "$background_log" 2>&1 &
background=$!
[ "$openmpi_built" = no ] || check openmpi
wait "$background"
phase_done "waiting for the background builds"
if [ "$(cat "$background_log.status" 2>/dev/null)" = 0 ]; then
    echo "=== mpich: built in the background"
    # shellcheck disable=SC2016 # Makefile.am's list, expanded by make
    check mpich TESTS='$(MPI_TESTS)'   # the unit checks ran in Open MPI's tree
else
    echo "=== mpich: build FAILED; the end of $background_log:"
    tail -n 40 "$background_log"
    failed_builds=$((failed_builds + 1))
fi

# The sanitizer step writes its results (its own checks, make check's tests)
# as automake results in its build trees; they are counted below.
dirs="openmpi mpich"
what="Test programs under Open MPI and MPICH"
if [ "${AIP_TEST_SANITIZE:-yes}" != no ]; then
    echo "=== sanitizers"
    "$top/scripts/sanitize.sh"
    phase_done sanitizers
    dirs="$dirs sanitize-openmpi sanitize-mpich sanitize-valgrind"
    what="$what, sanitizers and valgrind"
fi

# The tarball: make distcheck in build/openmpi's tree (which removes its own
# build after it), counted below as one test.
distcheck=${AIP_TEST_DISTCHECK:-library} distcheck_passed=0 distcheck_failed=0
if [ "$distcheck" != no ] && [ -f "$top/build/openmpi/Makefile" ]; then
    echo "=== distcheck ($distcheck)"
    start=$(date +%s)
    if [ "$distcheck" = full ]; then
        set -- DISTCHECK_CONFIGURE_FLAGS="--with-mpi=openmpi"
    else
        # shellcheck disable=SC2016 # Makefile.am's list, expanded by make
        set -- DISTCHECK_CONFIGURE_FLAGS="--with-mpi=openmpi --without-fftw" \
            TESTS='$(UNIT_CHECKS)'
    fi
    if make -C "$top/build/openmpi" distcheck "$@" > "$top/build/distcheck.log" 2>&1; then
        distcheck_passed=1
    else
        distcheck_failed=1
        tail -n 40 "$top/build/distcheck.log"
    fi
    echo "=== distcheck: $([ $distcheck_passed -eq 1 ] && echo passed || echo FAILED)" \
         "in $(($(date +%s) - start)) s (log: build/distcheck.log)"
    what="$what, make distcheck"
fi

# One line for all, counted from automake's results (a failed build counts as a failure).
count() {
    for dir in $dirs; do
        grep -h "^:test-result: $1" "$top/build/$dir"/tests/*.trs \
            "$top/build/$dir"/tests/*/*.trs 2>/dev/null
    done | wc -l
}
passed=$(($(count PASS) + distcheck_passed))
skipped=$(count SKIP)
failed=$(($(count FAIL) + $(count ERROR) + failed_builds + distcheck_failed))
echo "=== all in $(($(date +%s) - began)) s"
echo "$what:"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
