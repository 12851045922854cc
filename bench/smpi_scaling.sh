#!/bin/sh
# smpi_scaling.sh - alltoall time of one message size on growing simulated
# clusters: Fig. 9 of Kumar, Mamidala & Panda (512 B per pair on 8 to 64
# nodes of 8 cores), whose claim is that SA's gain grows with the system.
#
# Environment (defaults in brackets):
#   NODES_LIST [8 16 32 64], CORES [8]   the clusters
#   SIZE [512]                 bytes per pair
#   METHODS [mpi-oop,hsa,sa]   the paper's pair and our direct exchange (l runs
#                              sa from 16 nodes on, where the leaders' q * p
#                              blocks outgrow the budget; rd takes sa's time in
#                              SMPI, which models no PIO)
#   HSA_MAX_NODES [32]         hsa is left out above this many nodes: with its
#                              p - 1 messages per rank in flight, 32 x 8 takes 8
#                              minutes of real time here, 64 x 8 would take hours
#   SMPI_CFG [--cfg=smpi/simulate-computation:no --cfg=maxmin/concurrency-limit:64]
#                              see below
#   OUT [bench/figures/alltoall]  smpi_scaling_SIZE.{dat,png}; each cluster's sweep
#                              goes to build/smpi-scaling/
# Each point is one bench/smpi_sweep.sh run (its platform and settings), with
# one warm-up and one timed call: with computation off SMPI's times are
# deterministic.  --plot-only redraws the figure from the table already there.
#
# Why computation is off here: SMPI runs its own MPI_Alltoall, copies
# included, outside simulated time, while the CPU bursts of our calls (the
# gathers into the aux buffer) are measured on this machine and charged.
# With hundreds of ranks in one process on 2 busy cores those measurements
# are mostly cache and timer effects: on 16 x 8 at 512 B, SA takes 584 us
# with computation on and 334 us off, for some 128 KiB of memcpy per rank.
# Off, both sides move bytes for free and pay for messages alike.  Give
# SMPI_CFG="" for the charged variant (and several times the real time: the
# bursts are events for SimGrid's solver).
#
# Why at most 64 flows share a link at once (the rest queue): SimGrid's
# max-min solver takes nearly all the real time, and it grows with the flows
# in flight, which for SA are thousands (every rank's n - 1 messages).  A
# saturated link delivers the same bytes per second whether 64 or 500 flows
# share it; what changes is only the order in which they finish.  Checked
# against the unlimited model at 512 B: on 8 x 8 sa 166.3 against 168.6 us,
# on 16 x 8 sa 328.8 against 333.6, mpi-oop 761.1 against 760.9, in 2 s of
# real time instead of 23; 64 x 8 then takes about 5 minutes.  Not for large
# messages: at 1 MiB on 16 x 8 the limit makes hsa 46% slower (866 against
# 594 ms), so the 1 MiB comparisons (smpi_sweep.sh) run without it.
#
# shellcheck disable=SC2016 # awk programs in single quotes
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
plot_only=0
case "${1:-}" in
--plot-only) plot_only=1 ;;
-h|--help) sed -n '2,/^# shellcheck/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "usage: [NODES_LIST=... SIZE=... ...] smpi_scaling.sh [--plot-only]" >&2; exit 2 ;;
esac
NODES_LIST=${NODES_LIST:-8 16 32 64} CORES=${CORES:-8} SIZE=${SIZE:-512}
METHODS=${METHODS:-mpi-oop,hsa,sa}
SMPI_CFG=${SMPI_CFG---cfg=smpi/simulate-computation:no --cfg=maxmin/concurrency-limit:64}
OUT=${OUT:-$top/bench/figures/alltoall}
dat="$OUT/smpi_scaling_$SIZE.dat" runs="$top/build/smpi-scaling"
mkdir -p "$runs" "$OUT"

if [ "$plot_only" = 0 ]; then
    {
        echo "# smpi_scaling: MPI_Alltoall time at $SIZE bytes per pair, nodes x $CORES cores"
        echo "# (SMPI, bench/smpi/cluster_64x8.xml derived; slowest rank's average, simulated us)"
        echo "# SMPI_CFG: ${SMPI_CFG:-none}"
        printf '# %5s %6s' nodes ranks
        echo "$METHODS" | tr ',' '\n' | awk '{ printf " %10s", $1 } END { print "" }'
    } > "$dat"
    for n in $NODES_LIST; do
        started=$(date +%s)
        methods=$METHODS
        [ "$n" -gt "${HSA_MAX_NODES:-32}" ] &&
            methods=$(echo "$METHODS" | tr ',' '\n' | grep -vx hsa | paste -sd, -)
        NODES=$n CORES=$CORES MIN=$SIZE MAX=$SIZE METHODS=$methods OUT=$runs SMPI_CFG=$SMPI_CFG \
            SWEEP_ARGS="-i 1 -I 1 -w 1 -W 1 --large 8K" "$top/bench/smpi_sweep.sh" \
            >/dev/null 2> "$runs/smpi_${n}x$CORES.out" ||
            { cat "$runs/smpi_${n}x$CORES.out" >&2; exit 1; }
        # the row of SIZE, slowest-rank columns only, in METHODS order
        awk -v size="$SIZE" -v n="$n" -v ranks="$((n * CORES))" -v methods="$METHODS" '
            /^# *bytes / { for (i = 3; i <= NF; i++) column[$i] = i - 1 }
            !/^#/ && $1 == size {
                printf "  %5d %6d", n, ranks
                k = split(methods, m, ",")
                for (i = 1; i <= k; i++) printf " %10s", m[i] in column ? $(column[m[i]]) : "n/a"
                print ""
            }' "$runs/smpi_${n}x$CORES.dat" >> "$dat"
        echo "smpi_scaling: $n x $CORES done in $(($(date +%s) - started)) s" >&2
    done
fi

GNUPLOT=${GNUPLOT:-gnuplot}
plots=$(echo "$METHODS" | tr ',' '\n' | awk '{ printf "%s\"%s\" using 1:%d with linespoints title \"%s\"",
        (NR > 1 ? ", " : ""), F, NR + 2, $1 }' F="$dat")
{
    echo "set terminal pngcairo size 900,600 font ',11'"
    echo "set output '$OUT/smpi_scaling_$SIZE.png'"
    echo "set title \"MPI_Alltoall, $SIZE B per pair, SMPI: nodes x $CORES cores\" noenhanced"
    printf '%s\n' "set xlabel 'nodes'" "set ylabel 'latency (us)'" "set logscale x 2" \
        "set key top left" "set grid" "set datafile missing 'n/a'"
    echo "plot $plots"
} | "$GNUPLOT"
echo "smpi_scaling: $dat, $OUT/smpi_scaling_$SIZE.png" >&2
