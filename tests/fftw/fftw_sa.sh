#!/bin/sh
# fftw_sa.sh - mpi-bench --verify with the sa solver forced
# (FFTW_MPI_INPLACE_ALGORITHM=sa) on nodes of 2 consecutive ranks
# (AIP_RANKS_PER_NODE=2): on 4 and 6 ranks, 2 x 2 and 3 x 2 nodes, the even
# transforms must plan mpi-transpose-inplace/sa, the library must run the
# two-level exchange (its debug output names the nodes), and every transform
# must verify; the uneven ones go to the general exchange.
#
# Environment (from make check): MPIRUN, MPIBENCH.
set -u
failures=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
ranks="4 6"
# MPICH polls busily while it waits, so its oversubscribed runs cost 3-10x
# Open MPI's here: under MPICH fewer counts (what depends on the MPI is the
# same at every count; Open MPI's runs cover them all).
[ "${MPI_FLAVOR:-}" = mpich ] && ranks=4
for np in $ranks; do
    # ir24x24x24, ibr24x24x24 (c2r) and icf48x48x4 divide by 4 and 6;
    # ir17x19x23 by neither
    FFTW_MPI_INPLACE_ALGORITHM=sa AIP_RANKS_PER_NODE=2 AIP_DEBUG=1 \
        $MPIRUN "$np" "$MPIBENCH" -o estimate -v2 --verify ir24x24x24 \
        --verify icf48x48x4 --verify ibr24x24x24 --verify ir17x19x23 > "$out" 2>&1
    status=$?
    nodes=$((np / 2))
    if [ "$status" -ne 0 ] ||
       ! grep -q 'mpi-transpose-inplace/sa' "$out" ||
       ! grep -q "$nodes nodes of 2 ranks: sa," "$out" ||
       ! grep -q 'mpi-transpose-inplace/general' "$out" ||
       grep -q 'mpi-transpose-\(pairwise\|recurse\|alltoall\)' "$out" ||
       [ "$(grep -cE '^i[a-z]+[]\[]?[0-9x]+ [0-9.e+-]+ ' "$out")" -ne 4 ]; then
        echo "FAIL on $np ranks (mpi-bench exit $status):"
        cat "$out"
        failures=$((failures + 1))
    else
        echo "ok   $np ranks: sa on $nodes nodes of 2, all 4 transforms verified"
    fi
done
[ "$failures" -eq 0 ]
