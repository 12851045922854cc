#!/bin/sh
# bench/gups (HPCC RandomAccess) on p = 1..9 ranks, oversubscribed: the
# reference, hypercube and Bruck algorithms on one global table of 2^12
# words, so every run applies the same 16384 updates.  Each algorithm must
# verify with 0 errors, and the digest of its final table must be the same
# for every algorithm and every p (XOR updates commute: the final table does
# not depend on who applies what when), and equal to the one known for
# this table.  Then lists longer than a message (--message-max), Q = 1,
# and a wrong run (--skip-update loses one update): the program must fail
# with 1 error per algorithm and a different digest.  About 7 s under
# Open MPI and 15 s under MPICH here (2 cores).
set -u
GUPS=${GUPS:-$TESTBIN/../bench/gups}
known=0x115883c376ef639d # the digest of 2^12 words after their 4 x 2^12 updates
algs=reference,hypercube,bruck
failed=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT

# run NP [ARGS...]: one --table run; its rows (no '#') into $out
run() {
    np=$1
    shift
    "$MPIRUN" "$np" "$GUPS" --table -a "$algs" "$@" > "$out" 2>&1
    status=$?
    grep -v '^#' "$out" | grep -q . || { echo "gups.sh: p=$np $*: no rows" >&2; cat "$out" >&2; }
    return $status
}
# check_rows WHAT ERRORS DIGEST: each of the 3 rows has that error count and
# digest (columns: algorithm P log2N updates Q rules time GUPS errors
# err_frac maxQ' checksum)
check_rows() {
    what=$1 errors=$2 digest=$3
    rows=$(grep -v '^#' "$out" | awk -v e="$errors" -v d="$digest" \
        'NF == 12 && $9 == e && $12 == d { n++ } END { print n + 0 }')
    if [ "$rows" = 3 ]; then
        echo "ok: $what"
    else
        echo "FAIL: $what: expected 3 rows with errors=$errors checksum=$digest" >&2
        cat "$out" >&2
        failed=1
    fi
}

for np in 1 2 3 4 5 6 7 8 9; do
    run "$np" -n 12 || { echo "FAIL: p=$np: exit status $status" >&2; failed=1; }
    check_rows "p=$np, 3 algorithms, 0 errors, digest $known" 0 "$known"
done
# Lists longer than a message: --message-max 1 and 3 make the hypercube and
# Bruck send most stages as several messages (the continuation protocol).
run 6 -n 9 -q 16 --message-max 1 || { echo "FAIL: p=6 --message-max 1: exit status $status" >&2; failed=1; }
digest=$(grep -v '^#' "$out" | awk 'NR == 1 { print $12 }')
check_rows "p=6, Q=16, messages of 1 datum, 0 errors, the same digest" 0 "$digest"
run 8 -n 9 -q 16 --message-max 3 || { echo "FAIL: p=8 --message-max 3: exit status $status" >&2; failed=1; }
check_rows "p=8, Q=16, messages of 3 datums, the digest of p=6" 0 "$digest"
# The smallest look-ahead (a tiny table: MPICH polls busily on 2 cores).
run 5 -n 6 -q 1 || { echo "FAIL: p=5 Q=1: exit status $status" >&2; failed=1; }
check_rows "p=5, Q=1, 0 errors, the same digest" 0 \
    "$(grep -v '^#' "$out" | awk 'NR == 1 { print $12 }')"

# A wrong run must be seen: exit status 1, 1 error, another digest.
run 5 -n 12 --skip-update 12345
if [ "$status" -ne 1 ]; then
    echo "FAIL: --skip-update: exit status $status, expected 1" >&2
    failed=1
fi
check_rows "--skip-update 12345 on p=5: 1 error each" 1 \
    "$(grep -v '^#' "$out" | awk 'NR == 1 { print $12 }')"
if grep -v '^#' "$out" | grep -q "$known"; then
    echo "FAIL: --skip-update: the digest of the right table" >&2
    failed=1
fi
exit $failed
