#!/bin/sh
# smpi_sweep.sh - bench/alltoall_sweep (or bench/bcast_sweep) on a simulated
# cluster (SimGrid SMPI): by default 64 nodes of 8 cores
# (bench/smpi/cluster_64x8.xml), the machine of Kumar, Mamidala & Panda
# (ICPP 2008), 512 ranks on this one machine.
#
# Environment (defaults in brackets):
#   SWEEP [alltoall]       alltoall, or bcast: bench/bcast_sweep (MPI_Bcast
#                          against AIP_Bcast_rma), whose table is
#                          smpi_bcast_NODESxCORES.dat; --mem-cap is not its option;
#                          or overlap: bench/overlap_bench once per algorithm
#                          of METHODS [hsa,lsa,mpich,sa,rd,hypercube,general]
#                          and number of tests of SLICES ["4 16 64"], SIZE
#                          [16M] per rank, into smpi_overlap_NODESxCORES.dat
#                          (a row per run, which is also the cache: a run
#                          with a row is not run again; no figure).  Its
#                          computation is charged, not run (overlap_bench.c).
#                          l needs its node's buffers in half the budget:
#                          METHODS=l SIZE=256K AIP_AUX_BYTES=16M
#   NODES [64], CORES [8]  the cluster; other sizes are derived from
#                          cluster_64x8.xml (NODES=8 CORES=4 for a quick trial)
#   METHODS                the sweep's --methods [mpi,hsa,sa,l,rd,mpi-oop,sa-oop]
#   MIN [8], MAX [1M]      message sizes per pair
#   SWEEP_ARGS             further options of the sweep [-i 3 -I 1 -w 1 -W 1
#                          --large 8K]: simulated times are deterministic but for
#                          the measured CPU bursts, so few calls suffice
#   MEM_CAP                --mem-cap [8G / ranks]: above it, buffers come from
#                          SMPI_SHARED_MALLOC (garbage data, no payload copies)
#   SMPI_CFG               extra --cfg=... options for smpirun
#   OUT [bench/figures/alltoall]    where smpi_NODESxCORES.dat, .log and .png go
#   BUILD [build/smpi]     where the smpicc build goes (one per concurrent run)
#   GNUPLOT [gnuplot]
# --plot-only redraws the figure from the table already there.
#
# Installs SimGrid (libsimgrid-dev: smpicc, smpirun) with apt-get if missing;
# the rest of the project does not need it.  Builds the library sources,
# the sweep and bench_util with smpicc into build/smpi/ (the library with
# AIP_BLOCKING_WAIT: SMPI charges every MPI_Test, tunables.h), writes a hostfile that puts
# CORES consecutive ranks on each host, runs smpirun, and plots.
#
# SMPI settings, and why:
#   smpi/host-speed:1Gf      = the hosts' speed: CPU bursts of the ranks (the
#                              library's local copies) take their measured time
#                              on this machine; smpi/simulate-computation stays
#                              on, so in-place permutations cost time
#   network/model:SMPI, smpi/bw-factor:0:0.85, smpi/lat-factor:0:1
#                              constant factors: the default piecewise ones are
#                              calibrated on TCP/Ethernet, not InfiniBand
#   network/crosstraffic:0     no TCP acknowledgement traffic on the reverse path
#   smpi/os, smpi/ois, smpi/or per-message CPU overhead of send, isend, recv:
#                              0.5 us + 0.1 ns/byte (eager copy) up to 64 KiB,
#                              1 us above (rendezvous), as on an IB NIC; with
#                              the 1.2 us of wire and switch, ~2 us small-message
#                              latency
#   smpi/coll-selector:mvapich2  MPI_Alltoall as MVAPICH2 chooses it (the paper's
#                              baseline is MVAPICH)
#   smpi/test:1e-7             the simulated sleep of a failed MPI_Test (default
#                              100 us would dominate microsecond latencies)
# SMPI's MPI_Alltoall(MPI_IN_PLACE) copies the buffer into a temporary outside
# the simulated time and then runs the out-of-place algorithm, so "mpi" is
# "mpi-oop" in time; the sweep skips it where that copy would not fit MEM_CAP.
#
# shellcheck disable=SC2016 # awk programs in single quotes
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
plot_only=0
case "${1:-}" in
--plot-only) plot_only=1 ;;
-h|--help) sed -n '2,/^# shellcheck/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "usage: [NODES=N CORES=C ...] smpi_sweep.sh [--plot-only]" >&2; exit 2 ;;
esac
NODES=${NODES:-64} CORES=${CORES:-8}
SWEEP=${SWEEP:-alltoall}
np=$((NODES * CORES))
MEM_CAP=${MEM_CAP:-$(((8 << 30) / np))}
OUT=${OUT:-$top/bench/figures/alltoall}
case $SWEEP in
alltoall)
    METHODS=${METHODS:-mpi,hsa,sa,l,rd,mpi-oop,sa-oop}
    MIN=${MIN:-8} MAX=${MAX:-1M}
    SWEEP_ARGS=${SWEEP_ARGS:--i 3 -I 1 -w 1 -W 1 --large 8K}
    sweep_args="--mem-cap $MEM_CAP"
    name="smpi_${NODES}x${CORES}"
    title="MPI_Alltoall latency"
    xlabel="bytes per pair" ;;
bcast)
    METHODS=${METHODS:-mpi,linear,binomial,binary,auto}
    MIN=${MIN:-16} MAX=${MAX:-32M}
    SWEEP_ARGS=${SWEEP_ARGS:--i 3 -I 1 -w 1 --large 1M}
    sweep_args=""
    name="smpi_bcast_${NODES}x${CORES}"
    title="MPI_Bcast latency"
    xlabel="message bytes" ;;
overlap)
    METHODS=${METHODS:-hsa,lsa,mpich,sa,rd,hypercube,general}
    SLICES=${SLICES:-4 16 64} SIZE=${SIZE:-16M}
    name="smpi_overlap_${NODES}x${CORES}" ;;
*) echo "smpi_sweep: SWEEP must be alltoall, bcast or overlap" >&2; exit 2 ;;
esac
build=${BUILD:-$top/build/smpi}
dat="$OUT/$name.dat"
mkdir -p "$OUT" "$build"

"$top/bench/smpi/install_simgrid.sh"

if [ "$plot_only" = 0 ]; then
    # ---- Build (smpicc; seconds) -------------------------------------------------
    flags="-O2 -g -std=gnu11 -Wall -Wextra -I$top/alltoall_inplace -I$top/bench"
    for src in "$top"/alltoall_inplace/*/*.c; do # file names are unique across layers
        smpicc $flags -DAIP_BLOCKING_WAIT=1 -c "$src" \
            -o "$build/$(basename "$src" .c).o"
    done
    rm -f "$build"/*_sweep.o "$build"/overlap_bench.o
    program=${SWEEP}_sweep
    [ "$SWEEP" = overlap ] && program=overlap_bench
    for src in bench/$program.c bench/bench_util.c common/exchange_data.c \
               common/proc_memory.c; do
        smpicc $flags -c "$top/$src" -o "$build/$(basename "$src" .c).o"
    done
    smpicc -o "$build/$program" "$build"/*.o

    # ---- Platform and hostfile -------------------------------------------------
    platform="$build/cluster_${NODES}x${CORES}.xml"
    sed -e "s/radical=\"0-63\"/radical=\"0-$((NODES - 1))\"/" \
        -e "s/core=\"8\"/core=\"$CORES\"/" \
        -e "s/bb_bw=\"1024Gbps\"/bb_bw=\"$((NODES * 16))Gbps\"/" \
        "$top/bench/smpi/cluster_64x8.xml" > "$platform"
    hostfile="$build/hosts_${NODES}x${CORES}"
    awk -v n="$NODES" -v c="$CORES" \
        'BEGIN { for (h = 0; h < n; h++) for (k = 0; k < c; k++) print "node-" h }' > "$hostfile"

    # ---- Run ---------------------------------------------------------------------
    cfg="--cfg=smpi/host-speed:1Gf --cfg=network/model:SMPI --cfg=smpi/bw-factor:0:0.85
         --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0
         --cfg=smpi/os:0:5e-7:1e-10;65536:1e-6:0 --cfg=smpi/ois:0:5e-7:1e-10;65536:1e-6:0
         --cfg=smpi/or:0:5e-7:1e-10;65536:1e-6:0 --cfg=smpi/coll-selector:mvapich2
         --cfg=smpi/test:1e-7 --cfg=smpi/display-timing:1 ${SMPI_CFG:-}"
    if [ "$SWEEP" = overlap ]; then
        # The computation is charged: simulated times are exact, so 3 reps suffice.
        [ -f "$dat" ] || echo "# algorithm size slices exchange_ms compute_ms serial_ms" \
                              "overlap_ms hidden check real_s (medians; $NODES x $CORES," \
                              "bench/smpi/cluster_64x8.xml derived)" > "$dat"
        for algorithm in $(echo "$METHODS" | tr ',' ' '); do
            for slices in $SLICES; do
                if awk -v a="$algorithm" -v s="$SIZE" -v k="$slices" \
                       '$1 == a && $2 == s && $3 == k { found = 1 } END { exit !found }' "$dat"; then
                    continue
                fi
                echo "smpi_sweep: $(date +%H:%M) overlap, $algorithm, $SIZE, $slices tests" >&2
                started=$(date +%s)
                # shellcheck disable=SC2086 # cfg is a list of words
                smpirun -np "$np" -platform "$platform" -hostfile "$hostfile" \
                    "$build/overlap_bench" $cfg --cfg=smpi/simulate-computation:no \
                    --log=root.thresh:warning -a "$algorithm" -s "$SIZE" -k "$slices" -r 3 \
                    > "$build/overlap.out" 2>> "$OUT/$name.log" ||
                    { tail -n 20 "$OUT/$name.log" >&2; exit 1; }
                awk -v a="$algorithm" -v s="$SIZE" -v k="$slices" -v t=$(($(date +%s) - started)) '
                    /^(exchange|compute|serial|overlap) / { median[$1] = $3 }
                    /^hidden/ { hidden = $2; check = $4; sub(/\)/, "", check) }
                    END { print a, s, k, median["exchange"], median["compute"], median["serial"],
                                median["overlap"], hidden, check, t }' \
                    "$build/overlap.out" >> "$dat"
            done
        done
        column -t "$dat" >&2
        exit 0
    fi
    echo "smpi_sweep: $np ranks ($NODES x $CORES), methods $METHODS, $MIN..$MAX" >&2
    started=$(date +%s)
    # shellcheck disable=SC2086 # cfg and SWEEP_ARGS are lists of words
    smpirun -np "$np" -platform "$platform" -hostfile "$hostfile" \
        "$build/${SWEEP}_sweep" $cfg --log=root.thresh:warning --log=smpi_utils.thresh:info \
        --min "$MIN" --max "$MAX" -m "$METHODS" $sweep_args $SWEEP_ARGS \
        > "$dat.tmp" 2> "$OUT/$name.log" ||
        { tail -n 20 "$OUT/$name.log" >&2; echo "smpi_sweep: smpirun failed (log: $OUT/$name.log)" >&2
          mv "$dat.tmp" "$dat"; exit 1; }
    {
        cat "$dat.tmp"
        echo "# platform         $NODES x $CORES (bench/smpi/cluster_64x8.xml, derived);" \
             "SimGrid $(smpirun -version 2>/dev/null | head -n 1 | sed 's/.*version //i')"
        echo "# extra settings   SMPI_CFG=${SMPI_CFG:-}; SWEEP_ARGS=$SWEEP_ARGS"
        echo "# run time         $(($(date +%s) - started)) s of real time on $(nproc) cores"
    } > "$dat"
    rm -f "$dat.tmp"
    grep -i "simulat" "$OUT/$name.log" | sed 's/^/# /' >> "$dat" || true
fi

# ---- Figure ----------------------------------------------------------------------
XLABEL=$xlabel "$top/bench/plot_sweep.sh" "$dat" "$OUT/$name.png" \
    "$title, SMPI: $NODES nodes x $CORES cores (slowest rank's average)"
echo "smpi_sweep: $dat, $OUT/$name.png" >&2
