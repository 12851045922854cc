#!/bin/sh
# fftw_blocks.sh - in-place transforms whose transposes move whole blocks
# instead of transposing (transpose-inplace.c, "Blocks of rows"), under
# ESTIMATE on 3 and 4 ranks.  Each problem below must verify (mpi-bench
# --verify), and its plan (-v2) must be the layout of fftw-patches/0004,
# mpi-*-rank1-bigvec/contig-transposed, whose transposes are a
# rows-to-blocks move before the 1D transforms and a blocks-to-rows move
# after.  The list covers the three kinds of rank-1 bigvec (r2c and c2r
# through their complex part, c2c, r2r), blocks of the vector short by 1 to
# 3 items (the reals put aside), a rank without rows and ranks without
# blocks of the vector.  With
# FFTW_MPI_INPLACE_ALGORITHM=off each must plan without the layout and
# without our transposes: stock FFTW's plans stay stock (under Open MPI
# only: the planner's choice does not depend on the MPI, and MPICH's
# oversubscribed polling makes each run several seconds).
#
# Under MEASURE the planner also tries CONTIG, whose transposes have the
# layout's sizes and other flags.  Before fftw-patches/0006 the two shared
# one entry of FFTW's table: the planner replayed one's solution for the
# other, called its wisdom bogus and planned the whole transform under
# ESTIMATE, which leaves no wisdom (2.3-2.7x slower at icf256x256x256 on 3
# ranks, docs/results.md).  So the MEASURE cases must verify and leave
# wisdom (-o wisdom) that names our transposes (Open MPI only, as above).
#
# Environment (from make check): MPIRUN, MPIBENCH, MPI_FLAVOR.
set -u

# np problem          why
cases='
3  ir32x32x20         vector 32 x 11 complex: blocks 118, 118, 116
3  ibr32x32x20        the same, c2r
3  icf30x40x20        c2c, vector 800: 267, 267, 266
3  icb30x40x20        backward
3  ik10e00x8e01x7e11  r2r (rdft-rank1-bigvec), vector 56: 19, 19, 18
4  icf22x9x3          22 rows: 6, 6, 6, 4; vector 27: 7, 7, 7, 6
4  icf6x5001          6 rows: 2, 2, 2 and none; vector 5001: 1251 x 3, 1248
3  icf12x2            vector 2, fewer blocks than ranks: 1, 1 and none
4  ik9e00x2e01        r2r, vector 2: 1, 1 and two ranks without blocks
'

measure_cases='
3  icf30x40x20
3  ir32x32x20
'

failures=0
out=$(mktemp)
dir=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$dir"' EXIT

# run NP PROBLEM [ENV=VALUE]: mpi-bench's plan and verification in $out
run() {
    # shellcheck disable=SC2086 # $3 is one assignment or nothing
    env ${3:-} $MPIRUN "$1" "$MPIBENCH" -o inplace -o estimate -v2 --verify-rounds 1 --verify "$2" < /dev/null > "$out" 2>&1
}

# measured NP PROBLEM: MEASURE's plan and verification in $out, and the
# wisdom it left in $dir/wis.dat
measured() {
    rm -f "$dir/wis.dat"
    (cd "$dir" && $MPIRUN "$1" "$MPIBENCH" -o inplace -o wisdom -v2 --verify-rounds 1 --verify "$2") < /dev/null > "$out" 2>&1
}

# verified PROBLEM: mpi-bench printed its verification line
verified() {
    awk -v p="$1" '$1 == p { found = 1 } END { exit !found }' "$out"
}

fail() {
    echo "FAIL $*"
    sed 's/^/    /' "$out"
    failures=$((failures + 1))
}

while read -r np problem why; do
    [ -n "$np" ] || continue
    if ! run "$np" "$problem" || ! verified "$problem"; then
        fail "np=$np $problem ($why): does not verify"
        continue
    fi
    if ! grep -q 'rank1-bigvec/contig-transposed' "$out" ||
        ! grep -q '(rows-to-blocks-' "$out" || ! grep -q '(blocks-to-rows-' "$out"; then
        fail "np=$np $problem ($why): not planned with moves of blocks"
        continue
    fi
    echo "ok   np=$np $problem: moves of blocks ($why)"

    [ "$MPI_FLAVOR" != mpich ] || continue
    if ! run "$np" "$problem" FFTW_MPI_INPLACE_ALGORITHM=off || ! verified "$problem"; then
        fail "np=$np $problem, stock: does not verify"
    elif grep -q 'contig-transposed\|mpi-transpose-inplace' "$out"; then
        fail "np=$np $problem: stock FFTW's plan uses ours"
    else
        echo "ok   np=$np $problem: stock FFTW's plan unchanged"
    fi
done <<EOF
$cases
EOF

[ "$MPI_FLAVOR" = mpich ] || while read -r np problem; do
    [ -n "$np" ] || continue
    if ! measured "$np" "$problem" || ! verified "$problem"; then
        fail "np=$np $problem, MEASURE: does not verify"
    elif ! grep -q fftw_mpi_transpose_inplace_register "$dir/wis.dat" 2>/dev/null; then
        fail "np=$np $problem, MEASURE: no wisdom of our transposes (bogus wisdom, planned under ESTIMATE?)"
    else
        echo "ok   np=$np $problem: MEASURE plans and leaves wisdom of our transposes"
    fi
done <<EOF
$measure_cases
EOF

[ "$failures" -eq 0 ] || { echo "$failures cases failed"; exit 1; }
echo "all verified"
