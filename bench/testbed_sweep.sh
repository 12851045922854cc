#!/bin/sh
# testbed_sweep.sh - bench/alltoall_sweep on the namespace test bed
# (tests/testbed/netns_testbed.sh): HOSTS hosts of RANKS ranks, TCP over veths
# between hosts, shared memory within each, on this one machine; the table
# and its figure go to OUT (bench/figures/alltoall/testbed_HOSTSxRANKS.dat, .png).
#
# Environment (defaults in brackets): HOSTS [4], RANKS [2], MIN [8],
# MAX [1M], METHODS [mpi,hsa,sa,l,rd,mpi-oop,hsa-oop,sa-oop],
# SWEEP_ARGS [-i 100 -w 10 -I 10 -W 2], BUILD [build/openmpi] (an Open MPI
# build tree), OUT [bench/figures/alltoall].  Needs root, like the bed.
#
# Read it for what it is: all "hosts" share this machine's cores (2 here),
# so ranks wait for each other's time slices, and the "network" is the
# kernel's TCP stack over veths (tens of microseconds per message, no NIC
# offload).  What it shows is the number of messages each algorithm sends,
# which is what SA and L cut.  The bed is reached through
# bench/testbed_mpirun.sh, which tells the ranks to yield.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
HOSTS=${HOSTS:-4} RANKS=${RANKS:-2} MIN=${MIN:-8} MAX=${MAX:-1M}
METHODS=${METHODS:-mpi,hsa,sa,l,rd,mpi-oop,hsa-oop,sa-oop}
SWEEP_ARGS=${SWEEP_ARGS:--i 100 -w 10 -I 10 -W 2}
BUILD=${BUILD:-$top/build/openmpi} OUT=${OUT:-$top/bench/figures/alltoall}
export BUILD # bench/testbed_mpirun.sh finds the launcher there
make -s -C "$BUILD" bench/alltoall_sweep
name=testbed_${HOSTS}x${RANKS}
mkdir -p "$OUT"
echo "testbed_sweep: $HOSTS hosts x $RANKS ranks, methods $METHODS, $MIN..$MAX" >&2
# shellcheck disable=SC2086 # SWEEP_ARGS is a list of words
RANKS_PER_HOST=$RANKS "$top/bench/testbed_mpirun.sh" $((HOSTS * RANKS)) \
    "$BUILD/bench/alltoall_sweep" --min "$MIN" --max "$MAX" -m "$METHODS" --check $SWEEP_ARGS \
    > "$OUT/$name.dat"
"$top/bench/plot_sweep.sh" "$OUT/$name.dat" "$OUT/$name.png" \
    "MPI_Alltoall latency, namespace test bed: $HOSTS hosts x $RANKS ranks, TCP (slowest rank's average)"
echo "testbed_sweep: $OUT/$name.dat, $OUT/$name.png" >&2
