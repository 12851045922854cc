#!/bin/sh
# check.sh [-s N] [-n "2 3 4"] [heffte|fftmpi|pfft ...] - run each peer that
# bench/peers/build.sh built on an N^3 complex (and real) problem (default 64)
# on 2, 3 and 4 ranks: our drivers, and the peers' own programs with the
# command lines the comparison uses.  A line per run, "ok" or "FAIL", with the
# driver's "min_s median_s vmhwm_kib" or the program's time and error; exit
# status 1 if any run failed or was wrong.
#
# The peers' own programs exit 0 even when their result is wrong, so their
# error is read from their output: speed3d_c2c's "Max error" (it prints ERROR
# and no times beyond its tolerance), test3d's "Max error" (with -v and a
# random input: -i 82783; the default input is all zeros), bench_c2c's
# "error" (printed only with -pfft_loops 1), simple_check_*'s "maxerror"
# (fixed 29x27x31 on a 2x2 grid: 4 ranks only).  PFFT's time_c2c is not run:
# in place it clears the forward result before the backward transform, so its
# error is the input's size.
#
# Environment: MPI (openmpi or mpich, default openmpi), PEERS_DIR (build.sh's,
# default build/peers/$MPI), AIP_TEST_TIMEOUT (seconds per run, default 300;
# the runs go through tests/mpirun.sh of build/$MPI, as the tests do).
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
MPI=${MPI:-openmpi}
PEERS_DIR=${PEERS_DIR:-$top/build/peers/$MPI}
launcher=$top/build/$MPI/tests/mpirun.sh
[ -x "$launcher" ] || { echo "check.sh: no $launcher: run scripts/build.sh $MPI first" >&2; exit 1; }
size=64 ranks="2 3 4"
while [ $# -gt 0 ]; do
    case "$1" in
    -s) size=$2; shift 2 ;;
    -n) ranks=$2; shift 2 ;;
    -*) echo "usage: check.sh [-s N] [-n \"RANKS...\"] [heffte|fftmpi|pfft ...]" >&2; exit 2 ;;
    *) break ;;
    esac
done
peers=${*:-heffte fftmpi pfft}
tolerance=1e-9
failures=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# verdict OK TEXT NP COMMAND...: one line for a run.
verdict() {
    ok=$1 text=$2 np=$3
    shift 3
    if [ "$ok" = yes ]; then
        printf 'ok    np %s  %s: %s\n' "$np" "$*" "$text"
    else
        printf 'FAIL  np %s  %s: %s\n' "$np" "$*" "$text"
        failures=$((failures + 1))
    fi
}

# driver NP PROGRAM ARGS...: our drivers check themselves (exit status).
driver() {
    np=$1
    shift
    if "$launcher" "$np" "$@" >"$out" 2>&1; then
        ok=yes text=$(tail -n 1 "$out")
    else
        ok=no text=$(grep -m1 -E 'FAILED|wrong|rror' "$out" || tail -n 1 "$out")
    fi
    program=${1##*/}
    shift
    verdict "$ok" "$text" "$np" "$program" "$@"
}

# own NP PATTERN PROGRAM ARGS...: a peer's program; its error is the number
# after PATTERN in its output, its time the line the caller's TIME_PATTERN matches.
own() {
    np=$1 pattern=$2
    shift 2
    status=0
    "$launcher" "$np" "$@" >"$out" 2>&1 || status=$?
    error=$(sed -n "s/.*$pattern *\([-+.0-9eE]*\).*/\1/p" "$out" | tail -n 1)
    time=$(grep -m1 -E "$TIME_PATTERN" "$out" | sed 's/^ *//' || true)
    program=${1##*/}
    shift
    if [ "$status" -eq 0 ] && [ -n "$error" ] &&
        awk -v e="$error" -v t="$tolerance" 'BEGIN { exit !(e <= t) }'; then
        verdict yes "error $error; $time" "$np" "$program" "$@"
    else
        verdict no "status $status, error '${error:-none}'; $(grep -m1 ERROR "$out" || tail -n 1 "$out")" \
            "$np" "$program" "$@"
    fi
}

need() {
    [ -x "$1" ] || { echo "check.sh: no $1; run MPI=$MPI bench/peers/build.sh first" >&2; exit 1; }
}

echo "check.sh: $MPI, ${size}^3 on $ranks ranks, peers in $PEERS_DIR"
n=$size
for peer in $peers; do
    case "$peer" in
    heffte)
        bin="$PEERS_DIR/heffte/bin"
        need "$bin/heffte_fft3d"
        echo "-- heffte: $(sed -n '/^--$/{n;p;q}' "$PEERS_DIR/heffte/stamp")"
        for np in $ranks; do
            for options in "" "-d slabs" "-t" "-k r2c" "-k r2c -d slabs -t"; do
                # shellcheck disable=SC2086 # the options are words
                driver "$np" "$bin/heffte_fft3d" -s "$n" -r 5 $options
            done
            TIME_PATTERN="Time per run"
            own "$np" "Max error: *" "$bin/speed3d_c2c" fftw double "$n" "$n" "$n" -slabs
            own "$np" "Max error: *" "$bin/speed3d_c2c" fftw double "$n" "$n" "$n" -pencils
            own "$np" "Max error: *" "$bin/speed3d_r2c" fftw double "$n" "$n" "$n"
        done
        ;;
    fftmpi)
        bin="$PEERS_DIR/fftmpi/bin"
        need "$bin/test3d"
        echo "-- fftmpi: $(sed -n '/^--$/{n;p;q}' "$PEERS_DIR/fftmpi/stamp")"
        TIME_PATTERN="time/fft3d"
        for np in $ranks; do
            # slabs in and out (fftMPI still goes through its own pencils)
            own "$np" "Max error = " "$bin/test3d" -g "$n" "$n" "$n" \
                -pin 1 1 "$np" -pout 1 1 "$np" -n 5 -i 82783 -v
            # x pencils in and out, where the ranks make a 2D grid
            if [ "$np" -eq 4 ]; then
                own "$np" "Max error = " "$bin/test3d" -g "$n" "$n" "$n" \
                    -pin 1 2 2 -pout 1 2 2 -n 5 -i 82783 -v
            fi
        done
        ;;
    pfft)
        for build in pfft pfft-debian; do
            bin="$PEERS_DIR/$build/bin"
            if [ "$build" = pfft-debian ] && [ ! -x "$bin/pfft_fft3d" ]; then
                continue # only built under Open MPI
            fi
            need "$bin/pfft_fft3d"
            echo "-- $build: $(sed -n '/^--$/{n;p;q}' "$PEERS_DIR/$build/stamp")"
            for np in $ranks; do
                for options in "-d slabs" "" "-t" "-k r2c" "-k r2c -d slabs -t"; do
                    # shellcheck disable=SC2086 # the options are words
                    driver "$np" "$bin/pfft_fft3d" -s "$n" -r 5 $options
                done
                TIME_PATTERN="exec_forw"
                own "$np" "error = " "$bin/bench_c2c" -pfft_n "$n" "$n" "$n" \
                    -pfft_np "$np" 1 1 -pfft_inplace -pfft_loops 1
                if [ "$np" -eq 4 ]; then
                    TIME_PATTERN="^$"
                    own 4 "maxerror = " "$bin/simple_check_c2c_inplace"
                    own 4 "maxerror = " "$bin/simple_check_c2c_transposed_inplace"
                fi
            done
        done
        ;;
    *) echo "usage: check.sh [-s N] [-n \"RANKS...\"] [heffte|fftmpi|pfft ...]" >&2; exit 2 ;;
    esac
done
if [ "$failures" -gt 0 ]; then
    echo "check.sh: $failures run(s) FAILED"
    exit 1
fi
echo "check.sh: all runs ok"
