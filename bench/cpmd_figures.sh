#!/bin/sh
# cpmd_figures.sh [PART...] - the CPMD-style FFT workload:
# bench/cpmd_fft (batches of in-place 3D complex FFTs, forward to the
# transposed layout, a pointwise multiply, backward) with stock FFTW's
# transposes and ours, here and simulated, in bench/figures/.  Parts
# (default: local smpi):
#
#   local  here (Open MPI build, oversubscribed past the cores): 2, 4 and 8
#          ranks -> cpmd_local.dat, cpmd_local.png (time per band-FFT against
#          ranks, one line per variant)
#   testbed  the namespace test bed (tests/testbed/netns_testbed.sh; root): hosts of
#          2 ranks, TCP between them, Open MPI -> cpmd_testbed.dat (a table)
#   smpi   SimGrid SMPI on the 64 nodes x 8 cores of bench/smpi/cluster_64x8.xml
#          (and smaller clusters derived from it, as bench/smpi_sweep.sh does),
#          the real FFTW plans built with smpicc -> cpmd_smpi.dat, cpmd_smpi.png
#   plot   redraw the PNGs and print the tables (Markdown) from the .dat files
#
# Variants (cpmd_fft -a; FFTW_MPI_INPLACE_ALGORITHM set before planning):
# stock (stock FFTW in place, its pairwise transpose), hsa, sa (ours,
# forced), auto (ours, FFTW's choice among them), oop (stock FFTW out of
# place: a second array, FFTW_DESTROY_INPUT).  FFTW_ESTIMATE throughout.
# Not in the default list: ALGORITHM-pipelined (two batches in flight, each
# one's exchanges behind the other's FFTs, bench/cpmd_pipeline.c) and its
# twin ALGORITHM-sequential (the same pieces, every exchange waited for at
# once); their pieces are timed and cached like the sub-plans below.
#
# How compute is charged under SMPI.  Every MPI call of FFTW's plans and
# of liballtoall_inplace is simulated (SMPI's network model of the
# cluster); nothing local is simulated from flops
# (smpi/simulate-computation:no).  Instead cpmd_fft --model charges it as
# bench/fftw_smpi.sh does (bench/smpi/sim_charge.h): rank 0 of each task
# group runs every serial sub-plan of its plans (the local FFTs and the
# local transposes of the transposes) and the pointwise multiply on real
# arrays on this machine, best of 2 from memory, and every rank of
# the group is charged those times at each execution, instead of running
# them; every memcpy/memmove inside the exchange (stock FFTW's copies of
# each block through its buffer, our library's copies through its ring) is
# charged at this machine's copy bandwidth (2 bytes of traffic per byte).
# The hosts of cluster_64x8.xml are this machine's cores (speed 1 Gflop/s =
# smpi/host-speed, no core_copy_bandwidth property), so the charges are
# this machine's times, unscaled.  The measurements go to a calibration file
# kept with the figures ($OUT/cpmd_smpi.calibration) and are reused, so that
# every variant of a case is charged the same local work and the variants
# differ by their exchanges only, whenever they ran; a new machine must
# rerun every row (docs/results.md says why).  The other ranks' arrays are
# folded (SMPI_SHARED_MALLOC), so
# nothing is checked there; the same source, built with mpicc, checks every
# variant's result here (part local).  Network settings are
# bench/smpi_sweep.sh's (DDR InfiniBand figures: 1.7 GB/s per node link
# for MPI payloads, ~2 us small-message latency, per-message software
# overhead 0.5 us + 0.1 ns/byte), the nodes' 8 ranks sharing their link.
#
# Sizes.  A slab decomposition needs N >= P (ranks per FFT), so on 512
# ranks CPMD-like runs use task groups (cpmd_fft -g): G groups of
# P = 512 / G consecutive ranks (whole nodes) transform their bands at the
# same time.  A full-grid transpose moves 16 N^3 B / P^2 bytes per pair and
# transform (B bands per batch): 1 KiB at 64^3 on 64 ranks, 2 KiB at 128^3
# on 128, 4 KiB at 256^3 on 256, per band.  (A plane-wave code's sphere,
# about pi N^3 / P^2, is 1/5 of that; FFTW transforms the full grid.)
#
# Environment (defaults in brackets):
#   BUILD [build/openmpi]  an Open MPI build tree (fftw/ stage, tests/mpirun.sh);
#                          its bench/cpmd_fft (made here if missing)
#   RANKS ["2 4 8"]        local ranks
#   TESTBED_HOSTS [2,2,2,2]  ranks per host of the test bed
#   TESTBED_ARGS ["-n 32 -b 64 -B 1 -r 5;-n 64 -b 32 -B 4 -r 3"]  cpmd_fft's
#                          options there, one run per ';'-separated set (8 KiB
#                          and 256 KiB per pair on 8 ranks)
#   LOCAL_ARGS [-n 64 -b 32 -B 4 -r 5]   cpmd_fft's options here
#   SMPI_BUILD [build/smpi-fftw]  FFTW built with smpicc by bench/fftw_smpi.sh
#                          --build (run first if missing); cpmd_fft goes to
#                          SMPI_BUILD/cpmd/
#   SMPI_CASES ["8x8:128:1:1 16x8:128:1:1 64x8:128:4:1 16x8:128:1:1:1M 64x8:64:8:1 8x8:64:1:1"]
#                          NODESxCORES:N:GROUPS:BATCH[:AUX]; each case
#                          simulates one batch per group (the simulation is
#                          deterministic, so one step is the figure)
#   SMPI_AUX [16K]         our budget (AIP_AUX_BYTES) in the simulations where
#                          the case gives none.  Not the library's 1 MiB: with
#                          2 KiB blocks that puts every exchange of a transpose
#                          in flight at once (exchange.c's ring), 65k flows at
#                          512 ranks, which SimGrid's max-min solver did not
#                          settle in 8 minutes; 16 KiB keeps 8 in flight per
#                          rank.  The 16x8:...:1M case shows what 1 MiB changes.
#   VARIANTS [stock,hsa,sa,auto,oop]
#   PIPELINE_BATCHES [4]   batches per group for the variants ALGORITHM-pipelined
#                          and -sequential (even; the pipeline's fill and drain count)
#   PIPELINE_PIECES [16]   their pieces per computation, each followed by a test
#                          (cpmd_fft -t).  The calibration file holds the passes
#                          of 16 pieces; another count's are timed on the machine
#                          at hand, which is another machine's scale: compare
#                          counts on one calibration only (docs/results.md, "How
#                          many pieces")
#   PRECISION [1e-7]       SimGrid's surf/precision (its default 1e-9): the
#                          solver ignores smaller rate changes and rounds times
#                          to it.  At the default every piece and test of a
#                          pipelined variant, among a thousand flows in flight,
#                          was a fresh solve: 16x8 hsa-pipelined took 3362 s of
#                          real time, 335 s at 1e-7, 57 s at 1e-6.  Not 1e-6, as
#                          bench/fftw_smpi.sh uses for its MiB messages: a 2 KiB
#                          message takes a few us, and stock's 127 rounds moved
#                          4% (docs/results.md has each variant at each precision)
#   TIME_LIMIT [600]       real seconds per smpirun (one variant of one case);
#                          past it the run is recorded as "timeout"
#   FORCE [0]              1: simulate again the cases that cpmd_smpi.dat has
#                          (a case with a row there is not run again, so that an
#                          interrupted sweep resumes and new variants add rows)
#   OUT [bench/figures/cpmd]
#
# shellcheck disable=SC2016 # awk programs in single quotes
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$top/build/openmpi}
SMPI_BUILD=${SMPI_BUILD:-$top/build/smpi-fftw}
RANKS=${RANKS:-2 4 8}
LOCAL_ARGS=${LOCAL_ARGS:--n 64 -b 32 -B 4 -r 5}
TESTBED_HOSTS=${TESTBED_HOSTS:-2,2,2,2}
TESTBED_ARGS=${TESTBED_ARGS:--n 32 -b 64 -B 1 -r 5;-n 64 -b 32 -B 4 -r 3}
SMPI_CASES=${SMPI_CASES:-8x8:128:1:1 16x8:128:1:1 64x8:128:4:1 16x8:128:1:1:1M 64x8:64:8:1 8x8:64:1:1}
SMPI_AUX=${SMPI_AUX:-16K}
VARIANTS=${VARIANTS:-stock,hsa,sa,auto,oop}
TIME_LIMIT=${TIME_LIMIT:-600}
PIPELINE_BATCHES=${PIPELINE_BATCHES:-4}
PIPELINE_PIECES=${PIPELINE_PIECES:-16}
FORCE=${FORCE:-0}
PRECISION=${PRECISION:-1e-7}
OUT=${OUT:-$top/bench/figures/cpmd}
GNUPLOT=${GNUPLOT:-gnuplot}
mkdir -p "$OUT"
commands="$OUT/commands.txt"

# ---- Here -----------------------------------------------------------------------
local_program() {
    [ -x "$BUILD/bench/cpmd_fft" ] || make -C "$BUILD" bench/cpmd_fft >&2
    echo "$BUILD/bench/cpmd_fft"
}

local_part() {
    program=$(local_program)
    dat=$OUT/cpmd_local.dat
    {
        echo "# cpmd_local: bench/cpmd_fft $LOCAL_ARGS -a $VARIANTS on this machine" \
             "($(nproc) cores; oversubscribed past them), $(date -u +%Y-%m-%d)"
        headers=yes
        for p in $RANKS; do
            # shellcheck disable=SC2086 # LOCAL_ARGS is a list of words
            "$BUILD/tests/mpirun.sh" "$p" "$program" $LOCAL_ARGS -a "$VARIANTS" > "$dat.part"
            if [ $headers = yes ]; then cat "$dat.part"; else grep -v '^#' "$dat.part"; fi
            headers=no
        done
    } > "$dat.tmp"
    rm -f "$dat.part"
    mv "$dat.tmp" "$dat"
    echo "RANKS='$RANKS' LOCAL_ARGS='$LOCAL_ARGS' bench/cpmd_figures.sh local   # cpmd_local.dat/.png" \
        >> "$commands"
}

# ---- The namespace test bed ---------------------------------------------------------
testbed_part() {
    program=$(local_program)
    dat=$OUT/cpmd_testbed.dat
    np=$(echo "$TESTBED_HOSTS" | awk -F, '{ for (i = 1; i <= NF; i++) n += $i; print n }')
    {
        echo "# cpmd_testbed: tests/testbed/netns_testbed.sh $TESTBED_HOSTS -- bench/cpmd_fft" \
             "ARGS -a $VARIANTS, ARGS each of '$TESTBED_ARGS' (Open MPI, TCP between the" \
             "hosts, all on this machine's $(nproc) cores), $(date -u +%Y-%m-%d)"
        headers=yes
        echo "$TESTBED_ARGS" | tr ';' '\n' | while read -r args; do
            # shellcheck disable=SC2086 # args is a list of words
            BUILD=$BUILD TESTBED_HOSTS=$TESTBED_HOSTS "$top/bench/testbed_mpirun.sh" "$np" \
                "$program" $args -a "$VARIANTS" > "$dat.part"
            if [ $headers = yes ]; then cat "$dat.part"; else grep -v '^#' "$dat.part"; fi
            headers=no
        done
    } > "$dat.tmp" 2> "$OUT/cpmd_testbed.log"
    rm -f "$dat.part"
    mv "$dat.tmp" "$dat"
    echo "TESTBED_HOSTS='$TESTBED_HOSTS' TESTBED_ARGS='$TESTBED_ARGS' bench/cpmd_figures.sh" \
         "testbed   # cpmd_testbed.dat (log: cpmd_testbed.log)" >> "$commands"
}

# ---- Simulated --------------------------------------------------------------------
smpi_program() {
    [ -f "$SMPI_BUILD/sim_charge.o" ] || BUILD=$SMPI_BUILD "$top/bench/fftw_smpi.sh" --build
    tree=$(readlink -f "$SMPI_BUILD/fftw/build")
    src=$(dirname "$tree")/src
    dir=$SMPI_BUILD/cpmd
    mkdir -p "$dir"
    flags="-O2 -g -std=gnu11 -Wall -Wextra -I$top/alltoall_inplace -I$top/bench"
    # shellcheck disable=SC2086 # flags is a list of words
    for file in bench/bench_util.c common/exchange_data.c common/proc_memory.c; do
        smpicc $flags -c "$top/$file" -o "$dir/$(basename "$file" .c).o" >&2
    done
    for file in cpmd_fft cpmd_pipeline; do
        # shellcheck disable=SC2086
        smpicc $flags -DCPMD_FFT_SMPI -I"$src/api" -I"$src/mpi" -I"$top/bench/smpi" \
            -c "$top/bench/$file.c" -o "$dir/$file.o" >&2
    done
    # as bench/fftw_smpi.sh builds it (FFTW's api.h, not the library's)
    smpicc -O2 -g -std=gnu11 -Wall -Wextra -I"$tree" -I"$src" -I"$src/api" -I"$src/mpi" \
        -I"$top/bench/smpi" -I"$top/tests" -c "$top/bench/smpi/sim_charge.c" \
        -o "$dir/sim_charge.o" >&2
    # linked under another name and moved into place, as bench/fftw_smpi.sh
    # does: a sweep running meanwhile from this build must not load half a program
    smpicc -o "$dir/cpmd_fft.$$" "$dir/cpmd_fft.o" "$dir/cpmd_pipeline.o" "$dir/bench_util.o" \
        "$dir/exchange_data.o" "$dir/proc_memory.o" "$dir/sim_charge.o" \
        "$tree/mpi/.libs/libfftw3_mpi.a" \
        "$SMPI_BUILD/liballtoall_inplace.a" "$tree/.libs/libfftw3.a" -lm \
        @"$top/bench/smpi/sim_charge.ldflags" >&2
    mv "$dir/cpmd_fft.$$" "$dir/cpmd_fft"
    echo "$dir/cpmd_fft"
}

# batches_of VARIANT: the batches a group transforms in its simulation
batches_of() {
    case $1 in *-pipelined|*-sequential) echo "$PIPELINE_BATCHES" ;; *) echo 1 ;; esac
}

# pieces_of VARIANT: its pieces per computation, for its row ("-": not in pieces)
pieces_of() {
    case $1 in *-pipelined|*-sequential) echo "$PIPELINE_PIECES" ;; *) echo - ;; esac
}

# simulate PROGRAM NODES CORES N GROUPS BATCH VARIANT AUX: cpmd_fft's row,
# prefixed with the cluster (and ":aux=AUX" where AUX is not SMPI_AUX); a
# "timeout" or "failed" row where it did not end
simulate() {
    program=$1 nodes=$2 cores=$3 n=$4 groups=$5 batch=$6 variant=$7 aux=$8
    label=${nodes}x$cores
    [ "$aux" = "$SMPI_AUX" ] || label=$label:aux=$aux
    dir=$(dirname "$program")
    platform=$dir/cluster_${nodes}x$cores.xml
    sed -e "s/radical=\"0-63\"/radical=\"0-$((nodes - 1))\"/" -e "s/core=\"8\"/core=\"$cores\"/" \
        -e "s/bb_bw=\"1024Gbps\"/bb_bw=\"$((nodes * 16))Gbps\"/" \
        "$top/bench/smpi/cluster_64x8.xml" > "$platform"
    hostfile=$dir/hosts_${nodes}x$cores
    awk -v n="$nodes" -v c="$cores" \
        'BEGIN { for (h = 0; h < n; h++) for (k = 0; k < c; k++) print "node-" h }' > "$hostfile"
    np=$((nodes * cores))
    echo "=== $label, ${n}^3, $groups groups, batch $batch, $variant" >> "$OUT/cpmd_smpi.log"
    started=$(date +%s)
    status=0
    # shellcheck disable=SC2086 # cfg is a list of words
    AIP_AUX_BYTES=$aux TMPDIR=$dir timeout "$TIME_LIMIT" smpirun -np "$np" -platform "$platform" \
        -hostfile "$hostfile" "$program" \
        --cfg=smpi/host-speed:1Gf --cfg=smpi/simulate-computation:no \
        --cfg=network/model:SMPI --cfg=smpi/bw-factor:0:0.85 --cfg=smpi/lat-factor:0:1 \
        --cfg=network/crosstraffic:0 --cfg='smpi/os:0:5e-7:1e-10;65536:1e-6:0' \
        --cfg='smpi/ois:0:5e-7:1e-10;65536:1e-6:0' --cfg='smpi/or:0:5e-7:1e-10;65536:1e-6:0' \
        --cfg=smpi/coll-selector:mvapich2 --cfg=smpi/test:1e-7 \
        --cfg=smpi/shared-malloc-blocksize:$((64 << 20)) --cfg=surf/precision:"$PRECISION" \
        --log=root.thresh:warning --log=smpi_utils.thresh:info \
        -n "$n" -g "$groups" -B "$batch" -b "$((batch * $(batches_of "$variant")))" -r 1 \
        -t "$PIPELINE_PIECES" -a "$variant" --model \
        --calibration "$OUT/cpmd_smpi.calibration" \
        > "$dir/rows.$$" 2>> "$OUT/cpmd_smpi.log" || status=$?
    # the variant's row only: a failing smpirun prints its command line and
    # more (the file is this sweep's: another one may share the build)
    awk -v v="$variant" '$1 == v' "$dir/rows.$$" |
        sed "s/^/$label /;s/\$/ $(($(date +%s) - started)) $PRECISION $(pieces_of "$variant")/"
    if [ "$status" != 0 ]; then
        echo "$label $variant $np $groups $((np / groups)) $n $batch" \
             "$([ "$status" = 124 ] && echo "timeout after $TIME_LIMIT s" || echo failed)" \
             "at precision $PRECISION"
    fi
    rm -f "$dir/rows.$$"
}

smpi_part() {
    program=$(smpi_program)
    dat=$OUT/cpmd_smpi.dat
    if [ ! -s "$dat" ]; then
        {
            echo "# cpmd_smpi: bench/cpmd_fft --model under SimGrid SMPI $(smpirun -version \
                  2>/dev/null | head -n 1 | sed 's/.*version //i'), bench/smpi/cluster_64x8.xml" \
                 "and clusters derived from it; one batch per group (pipelined, sequential:" \
                 "PIPELINE_BATCHES); $(date -u +%Y-%m-%d)"
            echo "# columns: cluster variant ranks groups p n batch bands pair_bytes min_us" \
                 "median_us exchange_us peak_mib growth_mib arrays_mib error calibration_s" \
                 "transposes real_s precision pieces"
        } > "$dat"
    fi
    for case in $SMPI_CASES; do
        IFS=: read -r shape n groups batch aux <<EOF
$case
EOF
        aux=${aux:-$SMPI_AUX}
        label=$shape
        [ "$aux" = "$SMPI_AUX" ] || label=$label:aux=$aux
        np=$((${shape%x*} * ${shape#*x}))
        for variant in $(echo "$VARIANTS" | tr , ' '); do
            # the case's row (a timeout's too) is the cache, unless FORCE
            key="\$1 == \"$label\" && \$2 == \"$variant\" && \$3 == $np && \$4 == $groups &&
                 \$6 == $n && \$7 == $batch"
            if [ "$FORCE" != 1 ] && awk "$key { found = 1 } END { exit !found }" "$dat"; then
                continue
            fi
            echo "cpmd_smpi: $label, ${n}^3, $groups groups, batch $batch, $variant" >&2
            row=$(simulate "$program" "${shape%x*}" "${shape#*x}" "$n" "$groups" "$batch" \
                "$variant" "$aux")
            awk "!($key)" "$dat" > "$dat.tmp"
            echo "$row" >> "$dat.tmp"
            mv "$dat.tmp" "$dat"
        done
    done
    echo "SMPI_CASES='$SMPI_CASES' bench/cpmd_figures.sh smpi   # cpmd_smpi.dat/.png (log: cpmd_smpi.log)" \
        >> "$commands"
}

# ---- Figures and tables -------------------------------------------------------------
# time per band-FFT against ranks, one line per variant; $1: table, $2: png,
# $3: title, $4: awk filter on the rows, $5: column of the variant (1-based)
plot_lines() {
    dat=$1 png=$2 title=$3 filter=$4 col=$5
    plots=""
    # shellcheck disable=SC1003 # tr deletes backslashes: the filter unescaped, for awk here
    rows=$(printf '%s' "$filter" | tr -d '\\')
    # shellcheck disable=SC2013 # variants are single words
    for v in $(awk -v c="$col" "!/^#/ && ($rows) && !seen[\$c]++ { print \$c }" "$dat"); do
        plots="$plots${plots:+, }'< awk \"!/^#/ && \\\$$col == \\\"$v\\\" && $filter\" $dat'"
        plots="$plots using $((col + 1)):$((col + 9)) with linespoints title '$v'"
    done
    {
        echo "set terminal pngcairo size 900,600 font ',11'"
        echo "set output '$png'"
        echo "set title \"$title\" noenhanced"
        echo "set xlabel 'ranks'; set ylabel 'time per band-FFT (us, median)'"
        echo "set logscale x 2; set logscale y 10; set grid; set key top right"
        echo "plot $plots"
    } | "$GNUPLOT"
}

table() { # $1: table, $2: first column of the variant
    awk -v c="$2" '
        !/^#/ && NF > c {
            key = (c > 1 ? $1 " " : "") $(c + 1) " " $(c + 4) " " $(c + 2) " " $(c + 5)
            if ($c == "stock") stock[key] = $(c + 9)
            row[++n] = $0; keys[n] = key
        }
        END {
            print "| " (c > 1 ? "cluster | " : "") "ranks | N | groups | batch | pair bytes | variant |" \
                  " us per band-FFT (median) | exchange us | vs stock | peak MiB | beyond arrays MiB | transposes |"
            print "|" (c > 1 ? "---|" : "") "---|---|---|---|---|---|---|---|---|---|---|---|"
            for (i = 1; i <= n; i++) {
                m = split(row[i], f, " ")
                if (f[c + 9] !~ /^[0-9.]+$/) { # a run that did not end: "timeout after 600 s"
                    note = ""
                    for (j = c + 6; j <= m; j++) note = note " " f[j]
                    printf "| %s%s | %s | %s | %s | - | %s |%s | | | | | |\n",
                        (c > 1 ? f[1] " | " : ""), f[c + 1], f[c + 4], f[c + 2], f[c + 5], f[c], note
                    continue
                }
                printf "| %s%s | %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s |\n",
                    (c > 1 ? f[1] " | " : ""), f[c + 1], f[c + 4], f[c + 2], f[c + 5], f[c + 7],
                    f[c], f[c + 9], f[c + 10] < 0 ? "-" : sprintf("%.1f", f[c + 10]),
                    keys[i] in stock ? sprintf("%.2f", f[c + 9] / stock[keys[i]]) : "-",
                    f[c + 11] < 0 ? "-" : f[c + 11],
                    f[c + 12] < 0 ? "-" : sprintf("%.1f", f[c + 12] - f[c + 13]), f[c + 16]
            }
        }' "$1"
}

plot_part() {
    if [ -f "$OUT/cpmd_local.dat" ]; then
        plot_lines "$OUT/cpmd_local.dat" "$OUT/cpmd_local.png" \
            "CPMD-style FFT here: $(sed -n 's/.*cpmd_fft \(-n[^-]*-b[^-]*-B[^-]*\).*/\1/p' \
            "$OUT/cpmd_local.dat" | head -n 1)(Open MPI, 2 cores)" 1 1
        table "$OUT/cpmd_local.dat" 1
    fi
    [ -f "$OUT/cpmd_testbed.dat" ] && table "$OUT/cpmd_testbed.dat" 1
    if [ -f "$OUT/cpmd_smpi.dat" ]; then
        # the figure: N = 128 at every cluster size (P = min(ranks, 128) per group)
        plot_lines "$OUT/cpmd_smpi.dat" "$OUT/cpmd_smpi.png" \
            "CPMD-style FFT, SMPI (cluster_64x8 and derived): 128^3, batch 1, budget $SMPI_AUX" \
            '\$6 == 128 && \$1 !~ /aux/' 2
        table "$OUT/cpmd_smpi.dat" 2
    fi
}

[ $# -gt 0 ] || set -- local smpi
for part in "$@"; do
    case $part in
    local) local_part; plot_part ;;
    smpi) smpi_part; plot_part ;;
    testbed) testbed_part; plot_part ;;
    plot) plot_part ;;
    -h|--help) sed -n '2,/^# shellcheck/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "usage: cpmd_figures.sh [local|testbed|smpi|plot]..." >&2; exit 2 ;;
    esac
done
