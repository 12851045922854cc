#!/bin/sh
# fftw_pipelined.sh - the pipelined in-place transforms of rank >= 2
# (transpose/rank-geq2-pipelined.c), forced by
# FFTW_MPI_INPLACE_ALGORITHM=hsa-pipelined: mpi-bench --verify of every
# kind of in-place transform on 1-4 ranks.  Where the pipeline takes the
# shape (the ranks listed: n0, and the second dimension for transposed
# output, divide by the ranks; the rows by a chunk count; a row by ranks x
# chunks), the plan must be mpi-dft- or mpi-rdft2-rank-geq2-pipelined,
# elsewhere it must not; both must verify.  c2r runs the pipeline
# reversed (stage 1 last, its columns before its lines).  Uneven rows on
# 3 and 5 ranks (MPICH: 2) must take the sliced pipeline where n0 divides
# a row into at least 2 slices (transposed: where n1 = n0 and the slices
# are equal).  Then the chunk
# counts (the estimate takes the most that fit), MEASURE, forced and not
# (on one node the pipeline must not compete), a budget small enough that
# rows run in pieces, and a NAME-pipelined that names no symmetric
# algorithm, which is ignored with a warning.
#
# MPICH's busy polling makes oversubscribed runs slow here, so it runs 2
# ranks.  Environment (from make check): MPIRUN, MPIBENCH,
# MPI_FLAVOR.
set -uf

ranks=${FFTW_PIPELINED_RANKS:-1 2 3 4}
[ "${MPI_FLAVOR:-}" = mpich ] && ranks=${FFTW_PIPELINED_RANKS:-2}

# problem        pipelined on   what
problems='
icf24x24x8       2,3,4   3D c2c forward
icb24x24x8       2,3,4   3D c2c backward
ir24x24x24       2,3,4   3D r2c
icf]24x24x8      2,3,4   3D c2c, transposed output
ir]24x24x24      2,3,4   3D r2c, transposed output
icf8x16x4x6      2,3s,4  4D c2c (8 rows on 3 ranks: sliced)
ir8x16x4x6       2,3s,4  4D r2c
icf120x60        2,3,4   2D c2c (30 rows on 4 ranks: 5 chunks)
ir60x62          2       2D r2c: 60 x 32 complex
ir30x42x50       3       30 rows: 15 on 2 ranks, 7.5 on 4 (a row, 42 x 26, no multiple of 30)
icf16x12x10      2,4     1 row a chunk on 4 ranks: stage 1 in pieces
ir]16x12x10      2,4     the same, r2c, transposed output
icf17x19x23      -       odd, and a row no multiple of 17: never
ibr24x24x24      2,3,4   3D c2r: the pipeline reversed
ibr[24x24x24     2,3,4   3D c2r, transposed input
ibr8x16x4x6      2,3s,4  4D c2r
ibr16x12x10      2,4     c2r, 1 row a chunk on 4 ranks: columns, then lines
ibr30x42x50      3       c2r, 30 rows
'

# Uneven rows (no chunk count fits): the sliced pipeline, which cuts each
# row's n0 M complex numbers into slices of n0 m and exchanges them by
# in-place Alltoallv plans, must take them where n0 divides a row (the
# "s" ranks): k slices of M / k, the last wider where no divisor of M is
# near k.  Transposed output or input: where the second dimension is as
# long as n0, and M has a divisor near k.
uneven='
icf25x20x10      2s,3s,5   c2c: 13 + 12, 9 + 9 + 7 rows, M = 8; 5 chunks on 5
ir25x30x8        2s,3s,5   r2c: M = 6
ibr25x30x8       2s,3s,5   c2r: the sliced pipeline reversed
icf25x20x10x3    2s,3s,5   4D c2c: M = 24
icf21x14x6       2s,3s,5s  7 rows a rank on 3: no k divides them
icf6x12x4        2s,3,5s   c2c: 2 + 2 + 2 + 0 + 0 rows on 5, processes with none
ibr6x12x4        2s,3,5s   c2r, the same
icf24x24x8       2,3,5s    c2c: chunks on 2 and 3 ranks, sliced on 5
ibr24x24x24      2,3,5s    c2r: M = 13 slices of one complex number
ir25x25x72       2s,3s,5   r2c: M = 37, prime: 4 slices of 7, the last 9
ibr25x25x72      2s,3s,5   c2r, the same, reversed
icf25x25x37      2s,3s,5   c2c: M = 37
ir6x6x36         2s,3,5s   M = 19: 3 slices of 4, the last 7; 2 + 2 + 2 + 0 + 0 rows on 5
icf25x50         2s,3s,5   2D c2c: M = 2
icf]25x25x8      2s,3s,5   c2c, transposed output: a second dimension as long as n0, in its blocks
icf[25x25x10     2s,3s,5   c2c, transposed input (to FFTW, transposed output of the dimensions swapped)
ir]25x25x16      2s,3s,5   r2c, transposed output: M = 9 slices of one complex number
ibr[25x25x16     2s,3s,5   c2r, transposed input: the sliced pipeline reversed
ir]25x25x4x6     2s,3s,5   4D r2c, transposed output: M = 16
icf]6x6x4        2s,3,5s   transposed output: 2 + 2 + 2 + 0 + 0 rows on 5
ibr[6x6x36       3         M = 19, prime: the transposed slices must be equal (chunks on 3)
ir]25x30x8       5         r2c, transposed output, n1 not n0: never sliced
icf25x12x7       -         a row, 84, no multiple of 25
'

failures=0
plans=$(cat "$(dirname "$0")/plans.awk") # each problem's plan: check() below
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run NAME NP EXPECT-PIPELINED-WHERE MPI-BENCH-ARGS...: one mpi-bench run
# whose problems are checked against the list.
check_run() {
    np=$1 list=$2
    shift 2
    "$@" > "$out" 2>&1
    status=$?
    result=$(echo "$list" | awk -v out="$out" -v np="$np" -v status="$status" "$plans"'
        NF { where[n] = $2 }
        function check(k, plan,   want, got, what) {
            got = (plan ~ /mpi-(dft|rdft2)-rank-geq2-pipelined\/k[0-9]+-/)
            got += (plan ~ /rank-geq2-pipelined\/k[0-9]+-sliced-/)
            want = index("," where[k] ",", "," np ",") > 0
            if (index("," where[k] ",", "," np "s,") > 0)
                want = 2
            what = want == 2 ? "a sliced" : want ? "a chunked" : "no"
            if (got != want)
                printf "FAIL np=%d %s: expected %s pipelined plan\n%s\n",
                       np, prob[k], what, plan
            else
                printf "ok   np=%d %s%s\n", np, prob[k],
                       got == 2 ? "  (pipelined, sliced)" : got ? "  (pipelined)" : ""
        }')
    echo "$result"
    if [ "$status" -ne 0 ] || echo "$result" | grep -q '^FAIL'; then
        failures=$((failures + 1))
        [ "$status" -ne 0 ] && { echo "mpi-bench on $np ranks exited $status:"; tail -n 20 "$out"; }
    fi
}

verify_args() {
    echo "$1" | awk 'NF { printf " --verify %s", $1 }'
}

for np in $ranks; do
    echo "== $np ranks, FFTW_MPI_INPLACE_ALGORITHM=hsa-pipelined"
    # shellcheck disable=SC2046 # a word list
    check_run "$np" "$problems" $MPIRUN "$np" "$MPIBENCH" -o inplace=hsa-pipelined \
        -o estimate -v2 $(verify_args "$problems")
done

uneven_ranks=${FFTW_PIPELINED_UNEVEN_RANKS:-3 5}
[ "${MPI_FLAVOR:-}" = mpich ] && uneven_ranks=${FFTW_PIPELINED_UNEVEN_RANKS:-2}
for np in $uneven_ranks; do
    echo "== $np ranks, uneven rows, FFTW_MPI_INPLACE_ALGORITHM=hsa-pipelined"
    # shellcheck disable=SC2046 # a word list
    check_run "$np" "$uneven" $MPIRUN "$np" "$MPIBENCH" -o inplace=hsa-pipelined \
        -o estimate -v2 $(verify_args "$uneven")
done

# The estimate takes the most chunks that fit (PIPELINE_CHUNKS): 8 where
# the rows and a row divide by them, else 5, else 4.
chunk_counts='
icf32x16x8       2       c2c: 16 rows a rank, a row 128 complex: k = 8
icf20x20x10      2       c2c: 10 rows a rank, a row 200 complex: k = 5
ir24x24x24       2       r2c: 12 rows a rank: k = 4
'
echo "== 2 ranks, -o inplace=hsa-pipelined, the chunk counts"
# shellcheck disable=SC2046 # a word list
check_run 2 "$chunk_counts" $MPIRUN 2 "$MPIBENCH" -o inplace=hsa-pipelined -o estimate -v2 \
    $(verify_args "$chunk_counts")
for k in 8 5 4; do
    grep -q "rank-geq2-pipelined/k$k-" "$out" ||
        { echo "FAIL: no plan of $k chunks"; failures=$((failures + 1)); }
done

# Under MEASURE, forced, the planner times the chunk counts; not forced,
# the pipeline competes only across nodes, so on this one it never runs.
measured='
icf32x32x16      2       c2c
ir32x32x32       2       r2c
ir]32x32x32      2       r2c, transposed output
ibr32x32x32      2       c2r
'
echo "== 2 ranks, -o inplace=hsa-pipelined under MEASURE"
# shellcheck disable=SC2046 # a word list
check_run 2 "$measured" $MPIRUN 2 "$MPIBENCH" -o inplace=hsa-pipelined -o measure -v2 \
    $(verify_args "$measured")
one_node=$(echo "$measured" | awk 'NF { $2 = "-"; print }')
echo "== 2 ranks, -o inplace under MEASURE, one node"
# shellcheck disable=SC2046 # a word list
check_run 2 "$one_node" $MPIRUN 2 "$MPIBENCH" -o inplace -o measure -v2 \
    $(verify_args "$one_node")

# A budget far below a chunk's bytes: stage 1 and stage 2 test once per
# budget's worth (exchange_tests), so the rows' transforms run in pieces
# where the steps alone would leave them whole.  Columns are cut in
# groups of 8 complex numbers, the last piece taking the rest.
small_budget='
ir24x24x24       2       r2c: rows in pieces of lines, C = 13 columns in one piece
icf24x24x8       2       c2c
ibr24x24x24      2       c2r
ir64x64x64       2       r2c: C = 33 columns, 3 pieces of 8 and one of 9
ibr64x64x64      2       c2r: the same, reversed
'
echo "== 2 ranks, -o inplace=hsa-pipelined, AIP_AUX_BYTES=1K"
# shellcheck disable=SC2046 # a word list
check_run 2 "$small_budget" env AIP_AUX_BYTES=1K $MPIRUN 2 "$MPIBENCH" \
    -o inplace=hsa-pipelined -o estimate -v2 $(verify_args "$small_budget")
grep -Eq '\(lines/([2-9]|[1-9][0-9]+)' "$out" ||
    { echo "FAIL: no row cut into pieces under a 1 KiB budget"; failures=$((failures + 1)); }
grep -q '(columns/4-last9' "$out" ||
    { echo "FAIL: no columns cut with a wider last piece"; failures=$((failures + 1)); }

# general has no pipeline: the variable is ignored, with a warning, and
# nothing is pipelined under ESTIMATE.
echo "== 2 ranks, FFTW_MPI_INPLACE_ALGORITHM=general-pipelined"
ignored='
icf24x24x8       -       c2c
'
# shellcheck disable=SC2046 # a word list
check_run 2 "$ignored" env FFTW_MPI_INPLACE_ALGORITHM=general-pipelined \
    $MPIRUN 2 "$MPIBENCH" -o estimate -v2 $(verify_args "$ignored")
grep -q "general-pipelined' is not one of" "$out" ||
    { echo "FAIL: no warning for general-pipelined"; cat "$out"; failures=$((failures + 1)); }

[ "$failures" -eq 0 ] || { echo "$failures runs failed"; exit 1; }
echo "all verified"
