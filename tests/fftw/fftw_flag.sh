#!/bin/sh
# fftw_flag.sh - the planner flag and FFTW_MPI_INPLACE_ALGORITHM reach the
# transposes inside an in-place 3D r2c plan: ir32x32x32, whose transposes
# divide on 2 and 4 ranks (the symmetric algorithms apply), and ir17x19x23,
# uneven on both (only the general one applies); and ESTIMATE follows the
# library's own choice on nodes.  Each case verifies the transform and
# checks which transpose solvers the printed plan (-v2) contains.
#
# Environment (from make check): MPIRUN, MPIBENCH, TESTBIN.
set -u
failures=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# expect NAME NP REGEX [ENV=VALUE] -- MPI-BENCH OPTIONS: the plan of
# $problem has mpi-transpose solvers, each matching REGEX; and if $message
# is set, the output contains it.
problem=ir32x32x32
message=
expect() {
    name=$1 np=$2 want=$3
    shift 3
    env=
    [ "$1" != -- ] && { env=$1; shift; }
    shift
    # shellcheck disable=SC2086 # env is one assignment or nothing
    env $env $MPIRUN "$np" "$MPIBENCH" "$@" -v2 --verify "$problem" > "$out" 2>&1
    status=$?
    got=$(grep -o 'mpi-transpose-[a-z/]*' "$out" | sort -u | tr '\n' ' ')
    if [ "$status" -ne 0 ] || ! grep -q "^$problem " "$out" || [ -z "$got" ] ||
       grep -o 'mpi-transpose-[a-z/]*' "$out" | grep -qvxE "$want" ||
       { [ -n "$message" ] && ! grep -qF "$message" "$out"; }; then
        echo "FAIL $name ($np ranks, $problem): expected '$want', got '$got' (exit $status)"
        cat "$out"
        failures=$((failures + 1))
    else
        echo "ok   $name ($np ranks, $problem): $got"
    fi
}

ranks="2 4"
# MPICH polls busily while it waits, so its oversubscribed runs cost 3-10x
# Open MPI's here: under MPICH fewer counts (what depends on the MPI is the
# same at every count; Open MPI's runs cover them all).
[ "${MPI_FLAVOR:-}" = mpich ] && ranks=2
for np in $ranks; do
    expect "flag, estimate: HSA only" $np 'mpi-transpose-inplace/hsa' \
        -- -o inplace -o estimate
    expect "no flag, estimate: stock FFTW" $np 'mpi-transpose-pairwise' \
        -- -o estimate
    expect "flag, measure: ours only" $np \
        'mpi-transpose-inplace/(hsa|lsa|mpich|sa|rd|l|hypercube|general)' -- -o inplace
    expect "environment lsa, no flag" $np 'mpi-transpose-inplace/lsa' \
        FFTW_MPI_INPLACE_ALGORITHM=lsa -- -o estimate
    expect "-o inplace=mpich" $np 'mpi-transpose-inplace/mpich' \
        -- -o inplace=mpich -o estimate
    expect "flag, environment off: stock FFTW" $np 'mpi-transpose-pairwise' \
        FFTW_MPI_INPLACE_ALGORITHM=off -- -o inplace -o estimate
    expect "environment general, no flag" $np 'mpi-transpose-inplace/general' \
        FFTW_MPI_INPLACE_ALGORITHM=general -- -o estimate
    expect "environment sa, no flag" $np 'mpi-transpose-inplace/sa' \
        FFTW_MPI_INPLACE_ALGORITHM=sa -- -o estimate

    problem=ir17x19x23 # uneven
    expect "uneven, flag, estimate: general only" $np \
        'mpi-transpose-inplace/general' -- -o inplace -o estimate
    expect "uneven, flag, measure: general only" $np \
        'mpi-transpose-inplace/general' -- -o inplace
    expect "uneven, no flag, estimate: stock FFTW" $np 'mpi-transpose-pairwise' \
        -- -o estimate
    expect "uneven, environment hsa: general" $np \
        'mpi-transpose-inplace/general' FFTW_MPI_INPLACE_ALGORITHM=hsa -- -o estimate
    problem=ir32x32x32
done

# Under ESTIMATE the instance that runs the library's own choice ranks
# first (select/decision.c): on 2 nodes of 2 ranks (AIP_RANKS_PER_NODE=2)
# LSA for ir32x32x32's 17 KiB blocks, SA for ir8x8x8's 320 B ones.
expect "flag, estimate, 2 nodes: the library's LSA" 4 'mpi-transpose-inplace/lsa' \
    AIP_RANKS_PER_NODE=2 -- -o inplace -o estimate
problem=ir8x8x8
expect "flag, estimate, 2 nodes, small blocks: the library's SA" 4 \
    'mpi-transpose-inplace/sa' AIP_RANKS_PER_NODE=2 -- -o inplace -o estimate
problem=ir32x32x32

names=$("$TESTBIN/unit/algorithms" | paste -sd ',' - | sed 's/,/, /g')
message="FFTW_MPI_INPLACE_ALGORITHM='bogus' is not one of $names, auto, off"
expect "unknown algorithm: warned, ignored" 2 'mpi-transpose-inplace/hsa' \
    FFTW_MPI_INPLACE_ALGORITHM=bogus -- -o inplace -o estimate

# Processes that disagree on the variable would plan different transposes and
# deadlock: it must be ignored, with a warning (MPMD launch, one value each).
run_one="$MPIBENCH -o inplace -o estimate -v2 --verify ir32x32x32"
# shellcheck disable=SC2086 # run_one is a word list
$MPIRUN 1 env FFTW_MPI_INPLACE_ALGORITHM=lsa $run_one \
    : -n 1 env FFTW_MPI_INPLACE_ALGORITHM=mpich $run_one > "$out" 2>&1
status=$?
got=$(grep -o 'mpi-transpose-[a-z/]*' "$out" | sort -u | tr '\n' ' ')
if [ "$status" -eq 0 ] && grep -q 'differs among the processes; ignored' "$out" &&
   [ "$got" = 'mpi-transpose-inplace/hsa ' ]; then
    echo "ok   processes disagree: warned, the flag decides: $got"
else
    echo "FAIL processes disagree: expected a warning and HSA, got '$got' (exit $status)"
    cat "$out"
    failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || { echo "$failures cases failed"; exit 1; }
