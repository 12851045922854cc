#!/bin/sh
# fftw_wisdom.sh - wisdom made with our solvers, and what FFTW does with
# wisdom it cannot use (kernel/planner.c and api/apiplan.c of FFTW 3.3.10;
# docs/design.md, "Wisdom"):
#
# - mpi-bench -o wisdom plans ir32x32x32 and ir16x16x16 with LSA forced
#   (MEASURE) and writes wis.dat, which names our solvers; a run that may
#   plan only from wisdom (-o wisdom-only) finds LSA there and verifies.
# - FFTW_MPI_INPLACE_ALGORITHM is not part of wisdom: forcing HSA, the LSA
#   entry's solver does not apply.  Under -o wisdom-only FFTW does not
#   replan: no plan, and mpi-bench says so.  Otherwise FFTW replans (HSA)
#   after forgetting ALL wisdom, so the rewritten wis.dat has lost
#   ir16x16x16's entry too.
# - Wisdom of a planner with other solvers (stock FFTW, or ours before a
#   solver instance was added) carries another configuration signature on
#   its first line, the only thing FFTW compares before refusing the whole
#   file: simulated by changing that signature.  mpi-bench must say so, and
#   -o wisdom-only then finds no plan.  (The real cases, Debian's FFTW and
#   a build with a sixth instance, behave the same: docs/design.md.)
#
# Environment (from make check): MPIRUN, MPIBENCH.
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

$MPIRUN 2 "$MPIBENCH" -o inplace=lsa -o wisdom --verify ir32x32x32 ir16x16x16 > first.out 2>&1 ||
    { echo "FAIL: planning with -o wisdom"; cat first.out; exit 1; }
grep -q fftw_mpi_transpose_inplace_register wis.dat ||
    { echo "FAIL: wis.dat does not name our solvers"; cat wis.dat; exit 1; }
cp wis.dat lsa.dat

# run NAME EXPECTED-SOLVER PROBLEM OPTIONS...: verify PROBLEM with the plan
# printed; its transposes must all be EXPECTED-SOLVER.
run() {
    name=$1 want=$2 problem=$3
    shift 3
    $MPIRUN 2 "$MPIBENCH" -o wisdom "$@" -v2 --verify "$problem" > "$name.out" 2>&1
    status=$?
    got=$(grep -o 'mpi-transpose-[a-z/]*' "$name.out" | sort -u | tr '\n' ' ')
    if [ "$status" -ne 0 ] || ! grep -q "^$problem " "$name.out" || [ "$got" != "$want " ]; then
        echo "FAIL $name: expected '$want', got '$got' (exit $status)"
        cat "$name.out"
        exit 1
    fi
    echo "ok   $name: $got"
}

# fails NAME MESSAGE PROBLEM OPTIONS...: mpi-bench must fail and print MESSAGE.
fails() {
    name=$1 message=$2 problem=$3
    shift 3
    $MPIRUN 2 "$MPIBENCH" -o wisdom "$@" --verify "$problem" > "$name.out" 2>&1
    status=$?
    if [ "$status" -eq 0 ] || ! grep -q -- "$message" "$name.out"; then
        echo "FAIL $name: expected failure with '$message' (exit $status)"
        cat "$name.out"
        exit 1
    fi
    echo "ok   $name: fails, '$message'"
}

run "from wisdom only" mpi-transpose-inplace/lsa ir32x32x32 -o inplace=lsa -o wisdom-only

cp lsa.dat wis.dat
fails "another algorithm, wisdom only" "wisdom-only: no plan for ir32x32x32" ir32x32x32 \
    -o inplace=hsa -o wisdom-only

cp lsa.dat wis.dat
run "another algorithm" mpi-transpose-inplace/hsa ir32x32x32 -o inplace=hsa
fails "wisdom forgotten by the replan" "wisdom-only: no plan for ir16x16x16" ir16x16x16 \
    -o inplace=lsa -o wisdom-only

# Another solver set: the same file under another configuration signature.
sed '1s/#x[0-9a-f]*/#x0badc0de/' lsa.dat > wis.dat
fails "other solvers, wisdom only" "made by a planner with other solvers" ir32x32x32 \
    -o inplace=lsa -o wisdom-only
grep -q "bench: ERROR reading wisdom" "other solvers, wisdom only.out" ||
    { echo "FAIL: no import error"; exit 1; }
