#!/bin/sh
# fftw_blocks.sh - in-place transforms whose transposes move whole blocks
# instead of transposing (transpose-inplace.c, "Blocks of rows"), under
# ESTIMATE on 3 and 4 ranks.  Each problem below must verify (mpi-bench
# --verify), and its plan (-v2) must be the layout the list names:
# fftw-patches/0004's mpi-*-rank1-bigvec/contig-transposed, or 0008's
# contig-symmetric (the vector cut as dimension 0 is), whose transposes are
# a rows-to-blocks move before the 1D transforms and a blocks-to-rows move
# after, by the symmetric schedules for contig-symmetric.  The list covers
# the three kinds of rank-1 bigvec (r2c and c2r through their complex part,
# c2c, r2r), blocks of the vector short by 1 to 3 items (the reals put
# aside) and by whole rows of dimension 0 (the blocks moved as they are,
# by cycles of their gcd), a rank without rows and ranks without blocks of
# the vector.  With
# FFTW_MPI_INPLACE_ALGORITHM=off each must plan without the layouts and
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
# Environment (from make check): MPIRUN, MPIBENCH, MPI_FLAVOR, TESTBIN.
set -u

# np problem          layout      why
cases='
3  ir30x32x20         transposed  vector 32 x 11 complex: blocks 118, 118, 116
3  ibr30x32x20        transposed  the same, c2r
3  ir32x32x20         symmetric   the same vector cut 121, 121, 110: 22 reals put aside
3  icf30x40x20        transposed  c2c, vector 800: 267, 267, 266
3  icb30x40x20        transposed  backward
3  ik10e00x8e01x7e11  transposed  r2r (rdft-rank1-bigvec), vector 56: 19, 19, 18
4  icf22x9x3          transposed  22 rows: 6, 6, 6, 4; vector 27: 7, 7, 7, 6
4  icf6x5001          transposed  6 rows: 2, 2, 2 and none; vector 5001: 1251 x 3, 1248
3  icf12x2            transposed  vector 2, fewer blocks than ranks: 1, 1 and none
4  ik9e00x2e01        transposed  r2r, vector 2: 1, 1 and two ranks without blocks
3  icf64x64x64        symmetric   rows 22, 22, 20; vector 4096: 1408, 1408, 1280, cycles of 256 reals
3  icb64x64x64        symmetric   backward
3  ir64x64x64         symmetric   vector 64 x 33 complex: 726, 726, 660, cycles of 132 reals
3  ibr64x64x64        symmetric   the same, c2r
3  ik64e00x64e01x64e11 symmetric  r2r, vector 4096 reals: cycles of 128 reals
4  icf6x64x48         symmetric   6 rows: 2, 2, 2 and none; vector 3072: 1024 x 3 and none
'

measure_cases='
3  icf30x40x20
3  ir30x32x20
3  icf64x64x64
'

failures=0
schedules=$("$TESTBIN/unit/algorithms" schedule | paste -sd '|' - | sed 's/|/\\|/g')
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

while read -r np problem layout why; do
    [ -n "$np" ] || continue
    if ! run "$np" "$problem" || ! verified "$problem"; then
        fail "np=$np $problem ($why): does not verify"
        continue
    fi
    if ! grep -q "rank1-bigvec/contig-$layout" "$out" ||
        ! grep -q '(rows-to-blocks-' "$out" || ! grep -q '(blocks-to-rows-' "$out"; then
        fail "np=$np $problem ($why): not planned contig-$layout with moves of blocks"
        continue
    fi
    case $why in *"cycles of"*)
        grep -q -- '-cycles-x' "$out" ||
            { fail "np=$np $problem ($why): blocks not moved by cycles"; continue; } ;;
    esac
    if [ "$layout" = symmetric ] &&
        grep 'mpi-transpose-inplace/' "$out" | grep -qv "mpi-transpose-inplace/\($schedules\)-"; then
        fail "np=$np $problem ($why): contig-symmetric's transposes not by the symmetric schedules"
        continue
    fi
    echo "ok   np=$np $problem: contig-$layout, moves of blocks ($why)"

    [ "$MPI_FLAVOR" != mpich ] || continue
    if ! run "$np" "$problem" FFTW_MPI_INPLACE_ALGORITHM=off || ! verified "$problem"; then
        fail "np=$np $problem, stock: does not verify"
    elif grep -q 'contig-transposed\|contig-symmetric\|mpi-transpose-inplace' "$out"; then
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
