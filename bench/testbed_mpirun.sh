#!/bin/sh
# testbed_mpirun.sh NP PROGRAM [ARGS...] - tests/mpirun.sh's interface on the
# namespace test bed (tests/testbed/netns_testbed.sh): NP ranks in hosts of
# RANKS_PER_HOST [2] ranks (the last host takes what is left), block
# placement, TCP between the hosts, shared memory within each.  For the
# bench scripts that take a launcher as MPIRUN, e.g.
#
#   MPIRUN=bench/testbed_mpirun.sh bench/fftw_inplace.sh -n 8 -p estimate -P
#
# Environment: BUILD [build/openmpi] (an Open MPI build tree: its
# tests/mpirun.sh names Open MPI's launcher), RANKS_PER_HOST [2],
# AIP_TEST_TIMEOUT [1800] (the bed's limit, seconds).  Needs root, like the
# bed.  As bench/testbed_sweep.sh says: the hosts share this machine's cores,
# so the ranks are told to yield (Open MPI cannot see the cores are shared).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: testbed_mpirun.sh NP PROGRAM [ARGS...]" >&2; exit 2; }
np=$1
shift
per_host=${RANKS_PER_HOST:-2}
layout=$(awk -v n="$np" -v r="$per_host" 'BEGIN {
    for (left = n; left > 0; left -= r) printf "%s%d", (left < n ? "," : ""), (left < r ? left : r) }')
build=${BUILD:-$top/build/openmpi}
# shellcheck disable=SC2016 # the sed program matches a literal $limit
mpirun_ompi=$(sed -n 's/.*exec timeout "$limit" \([^ ]*\) --oversubscribe.*/\1/p' "$build/tests/mpirun.sh")
OMPI_MCA_mpi_yield_when_idle=1 MPIRUN_OMPI=$mpirun_ompi AIP_TEST_TIMEOUT=${AIP_TEST_TIMEOUT:-1800} \
    exec "$top/tests/testbed/netns_testbed.sh" "$layout" -- "$@"
