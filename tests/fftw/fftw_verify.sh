#!/bin/sh
# fftw_verify.sh - mpi-bench --verify of in-place transforms with the planner
# flag (-o inplace, under ESTIMATE) on 1..5, 7 and 8 ranks.  Each must
# verify, and on more than one rank its plan's distributed transposes must
# all be ours: when both transposed dimensions divide by the rank count, the
# symmetric ones (mpi-transpose-inplace/NAME, NAME any algorithm of the
# library's table but general: tests/unit/algorithms symmetric); otherwise, uneven
# blocks or processes without rows, mpi-transpose-inplace/general or, where
# the blocks are symmetric (transpose-inplace-choice.c: square transposes,
# the vector blocks of fftw-patches/0008), one of the schedules
# (tests/unit/algorithms schedule), and at least one of those somewhere in
# the list: the node-aware and routed exchanges are AIP_Alltoall's alone.
# None may be FFTW's (pairwise, recurse, alltoall).
#
# The list: every kind of in-place MPI transform (r2c, c2r, c2c forward and
# backward), ranks 2, 3 and 4, transposed output and input, and sizes that
# divide by some rank counts and not others (odd 17x19x23, 30x42x50,
# 100x60x70); on 7 and 8 ranks the odd sizes leave processes without rows.
# Sizes stay small so that 8 oversubscribed ranks take seconds with Open MPI;
# there 7 and 8 ranks run what they add to 1-5: the odd and uneven sizes,
# and one transform of each kind that divides on 8.  MPICH's busy polling
# makes oversubscribed runs 20-40x slower on 2 cores (40 s a transform on 8
# ranks), so under MPICH 1 and 2 ranks run the list and 3-5 a short one
# (one transform that divides on 3 and 5 ranks, one that does not: both
# exchanges); 7 and 8 ranks run under Open MPI.
#
# Environment (from make check): MPIRUN, MPIBENCH, MPI_FLAVOR, TESTBIN;
# FFTW_VERIFY_RANKS replaces the rank counts.
set -uf

ranks=${FFTW_VERIFY_RANKS:-1 2 3 4 5 7 8}
case "${MPI_FLAVOR:-}" in
mpich) short_from=3 ranks=${FFTW_VERIFY_RANKS:-1 2 3 4 5} short="ir24x24x24 icf40x40x8" ;;
*) short_from=7 short="ir24x24x24 icf40x40x8 ibr24x24x24 ir100x60x70 ir17x19x23 icf17x19x23
     ibr17x19x23" ;;
esac

# problem        the two distributed dimensions a transpose exchanges
problems='
ir24x24x24       24 24   3D r2c
ibr24x24x24      24 24   3D c2r
icf40x40x8       40 40   3D c2c forward
icb40x40x8       40 40   3D c2c backward
icf120x60        120 60  2D c2c
ir60x62          60 32   2D r2c: 60 x (62/2+1) complex
ibr60x62         60 32   2D c2r: 60 x (62/2+1) complex
icf8x16x4x6      8 16    4D c2c
ir8x16x4x6       8 16    4D r2c
ir]24x24x24      24 24   transposed output
icf]40x40x8      40 40   transposed output, c2c
ibr[24x24x24     24 24   c2r, transposed input
ir30x42x50       30 42   divides by 2, 3; uneven on 4, 5, 7, 8
icf30x42x50      30 30   c2c: its transposes (rank1-bigvec) split only 30
icb30x42x50      30 30   the same, backward: even on 2, 3, 5
ir100x60x70      100 60  divides by 2, 4, 5; uneven on 3, 7, 8
ir17x19x23       17 19   odd: uneven on every count
icf17x19x23      17 19   odd, c2c
ibr17x19x23      17 19   odd, c2r
'

failures=0
plans=$(cat "$(dirname "$0")/plans.awk") # each problem's plan: check() below
out=$(mktemp)
trap 'rm -f "$out"' EXIT
symmetric=$("$TESTBIN/unit/algorithms" symmetric | paste -sd '|' -)
schedules=$("$TESTBIN/unit/algorithms" schedule | paste -sd '|' -)
uneven_symmetric=0 # uneven transforms planned with schedules, on 3 ranks or more
most=1

for np in $ranks; do
    [ "$np" -gt "$most" ] && most=$np
    list=$problems
    [ "$np" -ge "$short_from" ] &&
        list=$(echo "$problems" | awk -v short="$short" '
            BEGIN { n = split(short, s); for (i = 1; i <= n; i++) keep[s[i]] = 1 }
            $1 in keep')
    args=$(echo "$list" | awk 'NF { printf " --verify %s", $1 }')
    # shellcheck disable=SC2086 # args is a word list
    $MPIRUN "$np" "$MPIBENCH" -o inplace -o estimate -v2 $args > "$out" 2>&1
    status=$?

    result=$(echo "$list" | awk -v out="$out" -v np="$np" -v status="$status" \
                                -v symmetric="($symmetric)" -v schedules="($schedules)" "$plans"'
        NF { d0[n] = $2; d1[n] = $3 }
        # how many of the plan'"'"'s transposes match name
        function count(plan, name,   copy) {
            copy = plan
            return gsub("mpi-transpose-inplace/" name "-", "", copy)
        }
        function check(k, plan,   even, ours, sym, gen, sched, theirs, bad) {
            even = (d0[k] % np == 0 && d1[k] % np == 0)
            ours = count(plan, "[a-z]+")
            sym = count(plan, symmetric)
            gen = count(plan, "general")
            sched = count(plan, schedules)
            theirs = (plan ~ /mpi-transpose-(pairwise|recurse|alltoall)/)
            bad = even ? sym < ours : gen + sched < ours
            if (np > 1 && (theirs || bad))
                printf "FAIL np=%d %s: expected only mpi-transpose-inplace/%s\n%s\n",
                       np, prob[k], even ? symmetric : "general or " schedules, plan
            else
                printf "ok   np=%d %s%s\n", np, prob[k],
                       even ? (sym ? "  (symmetric)" : "") \
                            : (sched ? "  (uneven, symmetric)" : (gen ? "  (general)" : ""))
        }')
    echo "$result"
    uneven_symmetric=$((uneven_symmetric + $(echo "$result" | grep -c 'uneven, symmetric')))
    if [ "$status" -ne 0 ] || echo "$result" | grep -q '^FAIL'; then
        failures=$((failures + 1))
        [ "$status" -ne 0 ] && { echo "mpi-bench on $np ranks exited $status:"; tail -n 20 "$out"; }
    fi
done

if [ "$most" -ge 3 ] && [ "$uneven_symmetric" -eq 0 ]; then
    echo "FAIL no uneven transform planned with symmetric schedules"
    failures=$((failures + 1))
fi
[ "$failures" -eq 0 ] || { echo "$failures rank counts failed"; exit 1; }
echo "all verified"
