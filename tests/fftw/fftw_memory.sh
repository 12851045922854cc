#!/bin/sh
# fftw_memory.sh - the memory promise: an in-place ir256x256x256 whose ranks
# may take at most 8 MiB of private memory beyond what they hold when the
# transform starts (tests/fftw/fftw_memory_test: RLIMIT_DATA = VmData + 8 MiB).
#
#   stock FFTW (FFTW_MPI_INPLACE_ALGORITHM=off) must run out of memory: its
#     in-place transpose mallocs one block (32 MiB on 2 ranks, 14 MiB on 3),
#     so the limit bites;
#   ours must complete and give every coefficient right: hsa on 2 ranks, the
#     general exchange on 3 (256 rows do not divide by 3), and its plan (whose
#     transposes hold the library's budget from planning on, printed as
#     -aux<bytes>) must hold at most 1 MiB + 64 KiB per transpose;
#   ours with a budget as large as a block (AIP_AUX_BYTES=64M) completes
#     under the limit too, its plan holding at least 8 MiB per transpose: the
#     budget is taken at planning, never during the transform, and it is what
#     a transpose plan holds.
# Then FFTW's own check, mpi-bench --verify, of ir128x128x128 with the same
# algorithms and no limit: --verify gathers the whole transform onto every
# rank, which no limit near the local array allows (1 round: 3 s; 256^3
# would take 27 s and 2.3 GB).  And one with tuples longer than 64k reals
# (ir8x10x70000 on 2 ranks, ir12x12x30000 on 3), whose local transposes
# ours does itself in a 64k-real buffer, chunk by chunk (transpose-cycles,
# or the moves of blocks, rows-to-blocks and blocks-to-rows, which follow
# the same cycles): FFTW's toms513 would buffer two whole tuples, N^2/p
# reals at N^3.
#
# Environment (from make check): MPIRUN, TESTBIN, MPIBENCH.
set -u
failures=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

fail() {
    echo "FAIL: $*"
    cat "$out"
    failures=$((failures + 1))
}

# limited NP ALGORITHM [VAR=VALUE]: run the transform under the limit
limited() {
    env FFTW_MPI_INPLACE_ALGORITHM="$2" ${3:+"$3"} \
        "$MPIRUN" "$1" "$TESTBIN/fftw/fftw_memory_test" -s 256x256x256 -m 8 > "$out" 2>&1
}

# held FILE: the bytes each transpose plan of the printed plan holds (-aux<bytes>).
held() {
    grep -o 'mpi-transpose-inplace/[a-z-]*aux[0-9]*' "$1" | sed 's/.*aux//' | tr '\n' ' ' |
        sed 's/ $//'
}

# plan_holds FILE MIN MAX: there are transpose plans, each holding MIN..MAX bytes.
plan_holds() {
    bytes=$(held "$1")
    [ -n "$bytes" ] || return 1
    for b in $bytes; do
        [ "$b" -ge "$2" ] && [ "$b" -le "$3" ] || return 1
    done
}

# verify NP ALGORITHM PROBLEM REGEX: mpi-bench --verify of PROBLEM with
# ALGORITHM, whose printed plan must match REGEX.
verify() {
    if ! "$MPIRUN" "$1" "$MPIBENCH" -o estimate -o inplace="$2" -v2 --verify-rounds 1 \
             --verify "$3" > "$out" 2>&1 ||
       ! grep -q "$4" "$out" || ! grep -qE "^$3 [0-9.e+-]+ " "$out"; then
        fail "mpi-bench --verify $3 with $2 on $1 ranks"
    else
        echo "ok   $1 ranks, ours ($2): mpi-bench --verify $3 ($(grep -o "$4" "$out" | head -n 1))"
    fi
}

for case in "2 hsa ir8x10x70000" "3 general ir12x12x30000"; do
    set -- $case
    np=$1 ours=$2 long_tuples=$3

    if limited "$np" off; then
        fail "stock FFTW completed on $np ranks under the limit: it does not bite"
    elif ! grep -q 'alloc.c:[0-9]*: assertion failed' "$out"; then
        fail "stock FFTW failed on $np ranks, but not for want of memory"
    else
        echo "ok   $np ranks, stock FFTW: out of memory under VmData + 8 MiB"
    fi

    if ! limited "$np" "$ours" || ! grep -q "mpi-transpose-inplace/$ours.*" "$out" ||
       ! grep -q ': verified$' "$out" || ! plan_holds "$out" 0 1114112; then
        fail "ours ($ours) on $np ranks under the limit, its plan within the default budget"
    else
        echo "ok   $np ranks, ours ($ours): verified under VmData + 8 MiB;" \
             "$(sed -n 's/.*peak RSS [0-9.]* MiB, of which \([0-9.]* MiB\).*/\1/p' "$out")" \
             "more during the transform; plan holds $(held "$out") bytes"
    fi

    if ! limited "$np" "$ours" AIP_AUX_BYTES=64M || ! grep -q ': verified$' "$out" ||
       ! plan_holds "$out" 8388608 67108864; then
        fail "ours ($ours) with a block-sized budget on $np ranks: not verified, or its plan" \
             "does not hold the budget"
    else
        echo "ok   $np ranks, ours with a block-sized budget: verified, plan holds $(held "$out")" \
             "bytes (taken at planning)"
    fi

    verify "$np" "$ours" ir128x128x128 "mpi-transpose-inplace/$ours"
    verify "$np" "$ours" "$long_tuples" \
        'transpose-cycles-[0-9x-]*/65536\|rows-to-blocks-\|blocks-to-rows-'
done
[ "$failures" -eq 0 ]
