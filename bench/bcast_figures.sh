#!/bin/sh
# bcast_figures.sh [PART...] - the figures of AIP_Bcast_rma against
# MPI_Bcast (bench/bcast_sweep, 16 B .. 32 MiB as in the RMA paper) in
# bench/figures/.  Parts (default: local testbed smpi):
#
#   local    here, Open MPI: 2, 4 and 8 ranks, every rank a node of its own
#            (--ranks-per-node 1: the paper's flat trees of puts), and 8
#            ranks as one node (shared memory) -> bcast_local_<p>x1.dat,
#            bcast_local_1x8.dat
#   testbed  the namespace test bed (tests/testbed/netns_testbed.sh, root, Open MPI
#            over UCX's TCP transport: Debian's Open MPI has no one-sided
#            communication over its own TCP one), 4 hosts x 2 ranks and 4 x 1
#            -> bcast_testbed_4x2.dat, bcast_testbed_4x1.dat (the one-sided
#            calls stall in some runs, README; bcast_testbed_4x1.dat and
#            _stalled.dat are two runs with SWEEP_ARGS='--max 4M -i 30 -I 5')
#   smpi     SimGrid SMPI (bench/smpi_sweep.sh SWEEP=bcast, CPU time not
#            charged): 8, 16 and 64 nodes of one rank and 8 nodes of 8 ->
#            smpi_bcast_<nodes>x<cores>.dat
#   plot     redraw the PNGs from the tables
#
# Environment: BUILD [build/openmpi] (an Open MPI build tree, for local and
# testbed), SWEEP_ARGS [-i 100 -I 10] (local, testbed), OUT [bench/figures/bcast],
# LOCAL_OSC [sm,pt2pt] (local's Open MPI osc components for nodes of one
# rank; the tables in docs/results.md were measured with osc/rdma, which the library
# now declines there).
# The machine should be otherwise idle; with more ranks than cores, read the
# differences, not the values.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build/openmpi}
OUT=${OUT:-$top/bench/figures/bcast}
SWEEP_ARGS=${SWEEP_ARGS:--i 100 -I 10}
sweep="$BUILD/bench/bcast_sweep"
mkdir -p "$OUT"

plot() { # table, title
    XLABEL="message bytes" "$top/bench/plot_sweep.sh" "$OUT/$1.dat" "$OUT/$1.png" "$2"
}

local_part() {
    # Nodes of one rank on one host: Open MPI 4's osc/rdma would be declined
    # (bcast_windows.c); LOCAL_OSC picks the component the trees run on.
    for p in 2 4 8; do
        # shellcheck disable=SC2086 # SWEEP_ARGS is a list of words
        OMPI_MCA_osc=${LOCAL_OSC:-sm,pt2pt} "$BUILD/tests/mpirun.sh" "$p" "$sweep" \
            --ranks-per-node 1 $SWEEP_ARGS > "$OUT/bcast_local_${p}x1.dat"
    done
    # shellcheck disable=SC2086
    "$BUILD/tests/mpirun.sh" 8 "$sweep" --ranks-per-node 0 $SWEEP_ARGS > "$OUT/bcast_local_1x8.dat"
}

testbed_part() {
    mpirun_ompi=$(sed -n 's/.*exec timeout "$limit" \([^ ]*\) --oversubscribe.*/\1/p' \
                  "$BUILD/tests/mpirun.sh")
    # A stalling run (docs/results.md) can take many minutes: a longer limit than the bed's.
    for layout in 2,2,2,2 1,1,1,1; do
        # shellcheck disable=SC2086
        AIP_TEST_TIMEOUT=${AIP_TEST_TIMEOUT:-1800} MPIRUN_OMPI=$mpirun_ompi OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_pml=ucx \
        OMPI_MCA_osc=ucx,sm OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any \
        UCX_TLS=tcp,sm,self UCX_WARN_UNUSED_ENV_VARS=n \
            "$top/tests/testbed/netns_testbed.sh" "$layout" -- "$sweep" $SWEEP_ARGS \
            > "$OUT/bcast_testbed_$([ $layout = 1,1,1,1 ] && echo 4x1 || echo 4x2).dat"
    done
}

# SimGrid 3.32 lacks MPI_Win_sync and warns at each run with several ranks a
# node; harmless with every simulated rank in one process (the results are
# checked), so the warning is kept out of the logs.
smpi_part() {
    for shape in "8 1" "16 1" "64 1" "8 8"; do
        set -- $shape
        SWEEP=bcast NODES=$1 CORES=$2 OUT=$OUT BUILD=$top/build/smpi-bcast \
            SMPI_CFG="--cfg=smpi/simulate-computation:no --log=smpi_mpi.thresh:error" \
            "$top/bench/smpi_sweep.sh"
    done
}

plot_part() {
    for p in 2 4 8; do
        [ -f "$OUT/bcast_local_${p}x1.dat" ] &&
            plot "bcast_local_${p}x1" "Broadcast latency here: $p ranks, each a node (RMA puts)"
    done
    [ -f "$OUT/bcast_local_1x8.dat" ] &&
        plot bcast_local_1x8 "Broadcast latency here: 8 ranks, one node (shared memory)"
    for shape in 4x2 4x1; do
        [ -f "$OUT/bcast_testbed_$shape.dat" ] &&
            plot "bcast_testbed_$shape" "Broadcast latency, namespace test bed $shape, UCX over TCP"
    done
    return 0
}

[ $# -gt 0 ] || set -- local testbed smpi
for part in "$@"; do
    case $part in
    local) local_part; plot_part ;;
    testbed) testbed_part; plot_part ;;
    smpi) smpi_part ;;
    plot) plot_part ;;
    *) echo "usage: bcast_figures.sh [local|testbed|smpi|plot]..." >&2; exit 2 ;;
    esac
done
