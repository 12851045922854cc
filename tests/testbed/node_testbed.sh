#!/bin/sh
# The node-aware exchanges across real hosts: node_test on the namespace test
# bed (tests/testbed/netns_testbed.sh), where MPI_COMM_TYPE_SHARED finds one node per
# host, on 2, 3 and 4 hosts of 2..4 ranks, block and cyclic placement, equal
# and unequal hosts (those run hsa: one layout, since which nodes run what
# is the node tables', which node.sh checks on many shapes); then mpi-bench --verify with the sa
# solver forced on 2 x 2 (block) and 4 x 2 (cyclic): the library's debug
# output must show sa on the hosts' nodes, and the transforms must verify.
# SKIP (77) where the bed cannot run (see testbed.sh).
set -e
if [ "$MPI_FLAVOR" != openmpi ]; then
    echo "node_testbed.sh: SKIP: this tree is built with '$MPI_FLAVOR'; the bed needs Open MPI" >&2
    exit 77
fi
bed="$(dirname "$0")/netns_testbed.sh"
MPIRUN_OMPI=${MPIRUN_OMPI:-${MPIEXEC_PATH:-mpirun}}
export MPIRUN_OMPI
seed=${AIP_TEST_SEED:-$(date +%s)}
# Each line: placement, then ranks per host.
while read -r map layout; do
    echo "== node_test on hosts $layout, --map-by $map"
    "$bed" --map-by "$map" "$layout" -- "$TESTBIN/mpi/node_test" --seed "$seed" --default-nodes
done <<'LAYOUTS'
slot 2,2
node 4,4
slot 3,1,2
node 2,2,2,2
LAYOUTS

[ -x "${MPIBENCH:-}" ] || exit 0 # built without FFTW
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for case in "slot 2,2 2" "node 2,2,2,2 4"; do
    set -- $case
    echo "== mpi-bench --verify, sa forced, hosts $2, --map-by $1"
    status=0
    FFTW_MPI_INPLACE_ALGORITHM=sa AIP_DEBUG=1 "$bed" --map-by "$1" "$2" -- "$MPIBENCH" \
        -o estimate -v2 --verify ir24x24x24 --verify icf48x48x4 > "$out" 2>&1 || status=$?
    if [ "$status" -ne 0 ] || ! grep -q 'mpi-transpose-inplace/sa' "$out" ||
       ! grep -q "$3 nodes of 2 ranks: sa," "$out" ||
       [ "$(grep -cE '^i[a-z]+[0-9x]+ [0-9.e+-]+ ' "$out")" -ne 2 ]; then
        cat "$out"
        echo "FAIL: sa on hosts $2 (exit $status)"
        exit 1
    fi
    echo "ok: sa on $3 nodes of 2 ranks, 2 transforms verified"
done
