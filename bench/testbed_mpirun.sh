#!/bin/sh
# testbed_mpirun.sh NP PROGRAM [ARGS...] - tests/mpirun.sh's interface on the
# namespace test bed (tests/testbed/netns_testbed.sh): NP ranks in hosts of
# RANKS_PER_HOST [2] ranks (the last host takes what is left), or in the
# hosts TESTBED_HOSTS lists (ranks per host, e.g. 3,1,2; they must add up to
# NP); block placement, TCP between the hosts, shared memory within each.
# The bench scripts' one way onto the bed (testbed_sweep.sh,
# cpmd_figures.sh testbed), and a launcher for those that take MPIRUN:
#
#   MPIRUN=bench/testbed_mpirun.sh bench/fftw_inplace.sh -n 8 -p estimate -P
#
# Environment: BUILD [build/openmpi] (an Open MPI build tree: its
# tests/mpirun.sh names Open MPI's launcher, unless MPIRUN_OMPI does),
# AIP_TEST_TIMEOUT [1800] (the bed's limit, seconds).  Needs root, like the
# bed.  The hosts share this machine's cores, which Open MPI cannot see, so
# the ranks are told to yield (mpi_yield_when_idle): else a call takes tens
# of ms.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: testbed_mpirun.sh NP PROGRAM [ARGS...]" >&2; exit 2; }
np=$1
shift
layout=${TESTBED_HOSTS:-$(awk -v n="$np" -v r="${RANKS_PER_HOST:-2}" 'BEGIN {
    for (left = n; left > 0; left -= r) printf "%s%d", (left < n ? "," : ""), (left < r ? left : r) }')}
[ "$(echo "$layout" | awk -F, '{ for (i = 1; i <= NF; i++) n += $i; print n }')" = "$np" ] ||
    { echo "testbed_mpirun.sh: hosts $layout do not hold $np ranks" >&2; exit 2; }
build=${BUILD:-$top/build/openmpi}
# shellcheck disable=SC2016 # the sed program matches a literal $limit
mpirun_ompi=${MPIRUN_OMPI:-$(sed -n 's/.*exec timeout "$limit" \([^ ]*\) --oversubscribe.*/\1/p' \
                             "$build/tests/mpirun.sh")}
OMPI_MCA_mpi_yield_when_idle=1 MPIRUN_OMPI=$mpirun_ompi AIP_TEST_TIMEOUT=${AIP_TEST_TIMEOUT:-1800} \
    exec "$top/tests/testbed/netns_testbed.sh" "$layout" -- "$@"
