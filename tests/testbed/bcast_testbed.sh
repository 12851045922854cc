#!/bin/sh
# AIP_Bcast_rma across real hosts: bcast_test on the namespace test bed
# (tests/testbed/netns_testbed.sh), 2 to 4 hosts of 1 to 3 ranks, so that the puts
# between hosts (MPI_Win_create over TCP) and the shared-memory windows
# within them both run, as MPI_COMM_TYPE_SHARED finds the hosts; the
# library's debug output must show one node per host.  SKIP (77) where the
# bed cannot run (see testbed.sh).
#
# Debian's Open MPI 4.1 has no one-sided communication over its TCP
# transport (osc rdma needs RDMA hardware, osc pt2pt is disabled and needs
# MPI_THREAD_MULTIPLE); over UCX's TCP transport it has (osc ucx), which is
# what these runs select.  A last run with the bed's defaults shows the
# fallback: MPI cannot make the windows (or, hosts holding two ranks, the
# library declines osc/rdma first), the calls run MPI_Bcast, say so once,
# and the results are still right.
set -e
if [ "$MPI_FLAVOR" != openmpi ]; then
    echo "bcast_testbed.sh: SKIP: this tree is built with '$MPI_FLAVOR'; the bed needs Open MPI" >&2
    exit 77
fi
bed="$(dirname "$0")/netns_testbed.sh"
MPIRUN_OMPI=${MPIRUN_OMPI:-${MPIEXEC_PATH:-mpirun}}
export MPIRUN_OMPI
seed=${AIP_TEST_SEED:-$(date +%s)}
rma="OMPI_MCA_pml=ucx OMPI_MCA_osc=ucx,sm OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any"
rma="$rma UCX_TLS=tcp,sm,self UCX_WARN_UNUSED_ENV_VARS=n"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# UCX must be usable on the bed (Debian's libopenmpi3 brings osc and pml ucx);
# where Open MPI cannot select it (the first run says so), only the fallback
# below is tested.
# Each line: placement, ranks per host, the nodes the debug output must name,
# and whether every root runs every tree (0: roots 0 and p-1, for time).
first=1
while read -r map layout nodes every_root; do
    echo "== bcast_test on hosts $layout, --map-by $map"
    status=0
    quick=1
    [ "$every_root" = 1 ] && quick=0
    env $rma AIP_DEBUG=1 "$bed" --map-by "$map" "$layout" -- "$TESTBIN/mpi/bcast_test" \
        --seed "$seed" --quick $quick > "$out" 2>&1 || status=$?
    grep -v '^alltoall_inplace: ' "$out" | tail -3
    if [ "$status" -ne 0 ] && [ "$first" = 1 ] &&
        grep -qi "ucx cannot be selected\|no components were able\|ucx.*not available" "$out"; then
        echo "bcast_testbed.sh: Open MPI cannot use UCX here; testing only the fallback" >&2
        break
    fi
    first=0
    if [ "$status" -ne 0 ] || ! grep -q "ranks, $nodes nodes: " "$out"; then
        grep -E '^FAIL|rror' "$out" | head -20
        echo "FAIL: bcast_test on hosts $layout (exit $status; '$nodes nodes' expected)"
        exit 1
    fi
done <<'LAYOUTS'
slot 1,1 2 1
slot 1,2,3 3 0
node 2,2,2,2 4 0
LAYOUTS

echo "== bcast_test on hosts 2,2 with the bed's defaults (no one-sided transport)"
status=0
"$bed" 2,2 -- "$TESTBIN/mpi/bcast_test" --seed "$seed" --quick 1 > "$out" 2>&1 || status=$?
grep -v '^alltoall_inplace: ' "$out" | tail -3
# (Hosts of two ranks: Open MPI 4's osc/rdma is declined before MPI is asked,
# bcast_windows.c; either reason is the fallback.)
if [ "$status" -ne 0 ] ||
    ! grep -q "MPI_Bcast, as \(MPI cannot make the windows\|Open MPI < 5's osc/rdma\)" "$out"; then
    grep -E '^FAIL|rror' "$out" | head -20
    echo "FAIL: the fallback to MPI_Bcast (exit $status)"
    exit 1
fi
