#!/bin/sh
# gups_figures.sh [PART...] - the figures of bench/gups (HPCC RandomAccess:
# HPCC's reference algorithm against the hypercube one of Plimpton et al.)
# in bench/figures/.  Parts (default: all of them, in this order):
#
#   local    here, Open MPI, P = 1..8 (oversubscribed above 2 cores), a
#            table of 2^16 words a rank, best of 3 -> gups_local.dat
#   testbed  the namespace test bed (tests/testbed/netns_testbed.sh, root, Open MPI):
#            4 hosts x 2 ranks, TCP between hosts -> gups_testbed.dat
#   smpi     SimGrid SMPI (smpicc build in $BUILD), both platforms below:
#            GUPS against P (1, 2, 4, ..., 1024 for the hypercube, up to
#            REF_MAX for the reference, plus P = 200 and 300 as in the
#            paper's Table 2) -> gups_smpi_<platform>.dat and .png, the fit
#            of T_P = T_1 + T_C log2 P -> gups_smpi_fit.txt
#   smpi-q   the paper's Table 4 under SMPI: P = 32, Q = 1 .. 8192 (Q > 1024
#            outside the rules) -> gups_smpi_q_<platform>.dat
#   tables   rebuild the tables and the fit from the runs' raw output
#   plot     redraw the PNGs from the tables
#
# Environment: OPENMPI_BUILD [build/openmpi] (scripts/build.sh openmpi; the
# library alone with --without-fftw suffices), BUILD [build/smpi-gups],
# OUT [bench/figures/gups], REF_MAX [256], PLATFORMS [xt3 ib], GNUPLOT [gnuplot].
#
# The simulated runs, and why:
#   - 2^10 table words a rank (4096 updates: 4 batches of Q = 1024): the
#     simulation's cost grows with the messages, which the reference sends by
#     the million at large P;
#   - --stream-offset 25214903917: the ranks' shares start that far into the
#     stream.  By the rules they start at x^(4 r N/P), sparse polynomials
#     whose first thousands of values all index rank 0's words: in runs of 4
#     batches rank 0 would receive 2-9 Q datums a batch (see gups.c), which
#     HPCC's runs of 2^30 updates a rank never notice.  Marked "rules no";
#   - --model-ns 1,50,1 with smpi/simulate-computation:no: computation
#     charged by a model (ns per value generated, per table update, per datum
#     moved), not measured: an update costs a DRAM miss of a large table,
#     1024 updates about 52 us (the paper's T_1 on Red Storm: 56.9 us);
#   - --verify none: verification would cost as much simulation again; the
#     same code is verified at every P of tests/mpi/gups.sh and, with the same
#     options, at P = 8 here (the first run of each platform).
#   Platforms: xt3 = bench/smpi/xt3_1024.xml, like the paper's Red Storm (one
#   rank a node, 1.1 GB/s, ~7 us MPI latency: 2 us of CPU overhead per send
#   and per receive); ib = bench/smpi/cluster_64x8.xml made 128 nodes x 8
#   ranks, with bench/smpi_sweep.sh's settings (DDR InfiniBand, ~2 us latency,
#   0.5 us overheads; 8 ranks a node, so hypercube stages 0-2 stay in a node).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$top/bench/figures/gups}
OPENMPI_BUILD=${OPENMPI_BUILD:-$top/build/openmpi}
BUILD=${BUILD:-$top/build/smpi-gups}
REF_MAX=${REF_MAX:-256}
PLATFORMS=${PLATFORMS:-xt3 ib}
GNUPLOT=${GNUPLOT:-gnuplot}
OFFSET=25214903917
MODEL=1,50,1
mkdir -p "$OUT"
parts=${*:-local testbed smpi smpi-q plot}
case " $parts " in *" -h "*|*" --help "*) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;; esac

# rows FILE: the data rows (no '#') of gups --table output
rows() { grep -v '^#' "$1" | grep -E '^(reference|hypercube|bruck)' || true; }

# ---- here ---------------------------------------------------------------------
run_local() {
    dat=$OUT/gups_local.dat
    {
        echo "# bench/gups here: Open MPI, $(nproc) cores, P > $(nproc) oversubscribed;" \
             "2^16 words a rank, Q = 1024, best of 3, verified (alltoallv)"
        echo "# command: $OPENMPI_BUILD/tests/mpirun.sh P $OPENMPI_BUILD/bench/gups -l 16 -r 3 --table"
        for np in 1 2 3 4 5 6 7 8; do
            nice -n 10 "$OPENMPI_BUILD/tests/mpirun.sh" "$np" "$OPENMPI_BUILD/bench/gups" \
                -l 16 -r 3 --table > "$OUT/gups_local.tmp"
            [ "$np" = 1 ] && grep '^# algorithm' "$OUT/gups_local.tmp"
            rows "$OUT/gups_local.tmp"
        done
    } > "$dat"
    rm -f "$OUT/gups_local.tmp"
    cat "$dat"
}

# ---- the namespace test bed -----------------------------------------------------
run_testbed() {
    dat=$OUT/gups_testbed.dat
    set +e
    nice -n 10 "$top/tests/testbed/netns_testbed.sh" 2,2,2,2 -- "$OPENMPI_BUILD/bench/gups" \
        -l 16 -r 3 --table > "$dat.tmp" 2> "$OUT/gups_testbed.log"
    status=$?
    set -e
    if [ "$status" = 77 ]; then
        echo "gups_figures: test bed skipped: $(tail -n 1 "$OUT/gups_testbed.log")" >&2
        rm -f "$dat.tmp"
        return 0
    fi
    {
        echo "# bench/gups on the namespace test bed: 4 hosts x 2 ranks (block), TCP over veth"
        echo "# between hosts, shared memory within; 2^16 words a rank, Q = 1024, best of 3"
        echo "# command: tests/testbed/netns_testbed.sh 2,2,2,2 -- $OPENMPI_BUILD/bench/gups -l 16 -r 3 --table"
        echo "# exit status $status"
        cat "$dat.tmp"
    } > "$dat"
    rm -f "$dat.tmp"
    cat "$dat"
}

# ---- SMPI -----------------------------------------------------------------------
build_smpi() {
    "$top/bench/smpi/install_simgrid.sh"
    mkdir -p "$BUILD"
    flags="-O2 -g -std=gnu11 -Wall -Wextra -I$top/alltoall_inplace -I$top/bench"
    # shellcheck disable=SC2086 # flags is a list of words
    for src in bench/gups.c bench/bench_util.c common/exchange_data.c common/proc_memory.c \
               alltoall_inplace/call/parse_bytes.c; do
        smpicc $flags -c "$top/$src" -o "$BUILD/$(basename "$src" .c).o"
    done
    smpicc -o "$BUILD/gups" "$BUILD"/*.o
    sed -e 's/radical="0-63"/radical="0-127"/' -e 's/bb_bw="1024Gbps"/bb_bw="2048Gbps"/' \
        "$top/bench/smpi/cluster_64x8.xml" > "$BUILD/cluster_128x8.xml"
    awk 'BEGIN { for (h = 0; h < 128; h++) for (k = 0; k < 8; k++) print "node-" h }' \
        > "$BUILD/hosts_ib"
    awk 'BEGIN { for (h = 0; h < 1024; h++) print "node-" h }' > "$BUILD/hosts_xt3"
}

# smpi PLATFORM NP ARGS...: gups under smpirun, its output on stdout
smpi() {
    platform=$1 np=$2
    shift 2
    common="--cfg=smpi/host-speed:1Gf --cfg=network/model:SMPI --cfg=smpi/lat-factor:0:1
            --cfg=network/crosstraffic:0 --cfg=smpi/test:1e-7 --cfg=smpi/simulate-computation:no
            --log=root.thresh:warning"
    case $platform in
    xt3) xml=$top/bench/smpi/xt3_1024.xml
         cfg="--cfg=smpi/bw-factor:0:1 --cfg=smpi/os:0:2e-6:0 --cfg=smpi/ois:0:2e-6:0
              --cfg=smpi/or:0:2e-6:0" ;;
    ib)  xml=$BUILD/cluster_128x8.xml
         cfg="--cfg=smpi/bw-factor:0:0.85 --cfg=smpi/os:0:5e-7:1e-10;65536:1e-6:0
              --cfg=smpi/ois:0:5e-7:1e-10;65536:1e-6:0 --cfg=smpi/or:0:5e-7:1e-10;65536:1e-6:0" ;;
    esac
    # shellcheck disable=SC2086 # lists of words
    nice -n 10 smpirun -np "$np" -platform "$xml" -hostfile "$BUILD/hosts_$platform" \
        "$BUILD/gups" $common $cfg --table --stream-offset "$OFFSET" --model-ns "$MODEL" "$@"
}

run_smpi() {
    build_smpi
    for platform in $PLATFORMS; do
        raw=$OUT/gups_smpi_$platform.raw
        log=$OUT/gups_smpi_$platform.log
        : > "$raw"
        : > "$log"
        started=$(date +%s)
        # The same options, verified, on 8 ranks.
        smpi "$platform" 8 -l 10 -a reference,hypercube --verify alltoallv >> "$raw" 2>> "$log"
        for np in 1 2 4 16 32 64 128 200 256 300 512 1024; do
            algs=hypercube
            [ "$np" -le "$REF_MAX" ] && algs=reference,hypercube
            echo "gups_figures: smpi $platform P=$np $algs" >&2
            smpi "$platform" "$np" -l 10 -a "$algs" --verify none >> "$raw" 2>> "$log"
        done
        echo "# simulation: $(($(date +%s) - started)) s of real time on $(nproc) shared cores" >> "$raw"
    done
    tables
}

# The paper's Table 4: P = 32, Q from 1 to 8192.
run_smpi_q() {
    build_smpi
    for platform in $PLATFORMS; do
        log=$OUT/gups_smpi_q_$platform.log
        : > "$log"
        qdat=$OUT/gups_smpi_q_$platform.dat
        {
            echo "# bench/gups hypercube under SMPI, platform $platform, P = 32, 2^11 words a rank"
            echo "# (8192 updates a rank), --stream-offset $OFFSET --model-ns $MODEL; rules: Q <= 1024"
            echo "# Q   rules   GUPS   efficiency_%_of_32xP1   time_s   maxQ'"
        } > "$qdat"
        p1=$(smpi "$platform" 1 -l 11 -a hypercube --verify none 2>> "$log" | rows /dev/stdin |
             awk '{ print $8 }')
        for q in 1 4 16 64 256 1024 2048 4096 8192; do
            echo "gups_figures: smpi $platform P=32 Q=$q" >&2
            smpi "$platform" 32 -l 11 -q "$q" -a hypercube --verify none 2>> "$log" |
                rows /dev/stdin | awk -v p1="$p1" '{ printf "%-5d %-4s %10s %8.2f %12s %7s\n",
                    $5, ($5 > 1024 ? "no" : "yes"), $8, 100 * $8 / (32 * p1), $7, $11 }' >> "$qdat"
        done
        echo "# P = 1 (Q = 1024): $p1 GUPS" >> "$qdat"
        cat "$qdat"
    done
}

# The tables and the fit from the runs' output (gups_smpi_<platform>.raw).
tables() {
    fit=$OUT/gups_smpi_fit.txt
    : > "$fit"
    for platform in $PLATFORMS; do
        raw=$OUT/gups_smpi_$platform.raw
        [ -f "$raw" ] || continue
        # P, GUPS and time of both, the ratio, the hypercube's time per batch
        # (4 batches of 1024 updates a rank)
        dat=$OUT/gups_smpi_$platform.dat
        {
            echo "# bench/gups under SimGrid SMPI $(smpirun -version 2>/dev/null | head -n 1 |
                  sed 's/.*version //i'), platform $platform (see gups_figures.sh);"
            echo "# 2^10 words a rank (P = 200, 300: 655, 873), 4 x that updates in batches of Q = 1024,"
            echo "# --stream-offset $OFFSET --model-ns $MODEL (outside the rules: see gups.c);"
            echo "# non-powers of two (200, 300) run the Bruck-style variant; $(grep '^# simulation' "$raw" | sed 's/^# //')"
            echo "# P   ref_GUPS   hyp_GUPS   hyp/ref   ref_time_s   hyp_time_s   hyp_us_per_batch   maxQ'"
            grep -v '^#' "$raw" | awk '
                $1 == "reference" { rg[$2] = $8; rt[$2] = $7 }
                $1 ~ /^hypercube/ { hg[$2] = $8; ht[$2] = $7; mq[$2] = $11; ps[$2] = 1 }
                END { for (p in ps) print p }' | sort -n | while read -r p; do
                grep -v '^#' "$raw" | awk -v p="$p" '
                    $2 == p && $1 == "reference" { rg = $8; rt = $7 }
                    $2 == p && $1 ~ /^hypercube/ { hg = $8; ht = $7; mq = $11; n = $4 / 4 }
                    END { words = int((n + p - 1) / p); batches = int((4 * words + 1023) / 1024)
                          printf "%-5d %10s %10s %9s %12s %12s %18.2f %7s\n", p,
                          rg == "" ? "n/a" : rg, hg, rg == "" ? "n/a" : sprintf("%.2f", hg / rg),
                          rt == "" ? "n/a" : rt, ht, ht / batches * 1e6, mq }'
            done
        } > "$dat"
        # Least squares of the time per batch over the powers of two up to
        # 1024 and up to 128, then the model's GUPS: P x 1024 updates per T_P.
        for pmax in 1024 128; do
        awk -v platform="$platform" -v pmax="$pmax" '
            function pow2(p) { while (p > 1 && p % 2 == 0) p /= 2; return p == 1 }
            !/^#/ && pow2($1) && $1 <= pmax { n++; P[n] = $1; G[n] = $3; x = log($1) / log(2); y = $7
                                sx += x; sy += y; sxx += x * x; sxy += x * y }
            END { tc = (n * sxy - sx * sy) / (n * sxx - sx * sx); t1 = (sy - tc * sx) / n
                  printf "%s: T_P = T_1 + T_C log2 P (per batch of 1024 updates), least squares over the %d powers of two P <= %d:\n", platform, n, pmax
                  printf "%s:   T_1 = %.1f us, T_C = %.1f us (the paper, Red Storm: 56.9 us and 33 us)\n", platform, t1, tc
                  for (i = 1; i <= n; i++)
                      printf "%s:   P = %4d  hypercube %.4g GUPS, model %.4g GUPS\n", platform, P[i], G[i],
                             P[i] * 1024 / (t1 + tc * log(P[i]) / log(2)) / 1e3 }' "$dat" >> "$fit"
        done
        awk -v platform="$platform" '!/^#/ && $1 == 64 {
                printf "%s: hypercube / reference at P = 64: %s\n", platform, $4 }' "$dat" >> "$fit"

        cat "$dat"
    done
    cat "$fit"
}

# ---- Figures --------------------------------------------------------------------
plot() {
    command -v "$GNUPLOT" >/dev/null || { echo "gups_figures: no $GNUPLOT" >&2; return 0; }
    for platform in $PLATFORMS; do
        dat=$OUT/gups_smpi_$platform.dat
        [ -f "$dat" ] || continue
        "$GNUPLOT" <<EOF
set terminal pngcairo size 900,600 font ',11'
set output '$OUT/gups_smpi_$platform.png'
set title "HPCC RandomAccess under SMPI ($platform): GUPS against P, Q = 1024" noenhanced
set xlabel 'processes P'
set ylabel 'GUPS'
set logscale xy 2
set logscale y 10
set key top left
set grid
set datafile missing 'n/a'
plot '$dat' using 1:3 with linespoints title 'hypercube (Bruck for P = 200, 300)', \
     '$dat' using 1:2 with linespoints title 'reference (HPCC)', \
     '$dat' using 1:(\$1 * 1024 / \$7 / 1e3) with lines dashtype 2 title 'hypercube, each batch alone'
EOF
    done
    if [ -f "$OUT/gups_local.dat" ]; then
        "$GNUPLOT" <<EOF
set terminal pngcairo size 900,600 font ',11'
set output '$OUT/gups_local.png'
set title "HPCC RandomAccess here (Open MPI, 2 cores: P > 2 oversubscribed), 2^16 words a rank" noenhanced
set xlabel 'processes P'
set ylabel 'GUPS'
set logscale y 10
set key top right
set grid
plot '< grep ^reference $OUT/gups_local.dat' using 2:8 with linespoints title 'reference', \
     '< grep ^hypercube $OUT/gups_local.dat' using 2:8 with linespoints title 'hypercube (Bruck if P is no power of two)'
EOF
    fi
}

for part in $parts; do
    case $part in
    local) run_local ;;
    testbed) run_testbed ;;
    smpi) run_smpi ;;
    smpi-q) run_smpi_q ;;
    tables) tables ;;
    plot) plot ;;
    *) echo "gups_figures: unknown part $part (local testbed smpi tables plot)" >&2; exit 2 ;;
    esac
done
