#!/bin/sh
# alltoallv_figures.sh [-n RANKS] [-s SIZE] [-r REPS] [-o DIR] [--sizes LIST] [--plot-only]
#
# Reproduces the figures of Hofmann & Ruenger, EuroMPI 2010, Sect. 4, for
# AIP_Alltoallv_general on this machine, with bench/alltoallv_bench:
#
#   buffers.png  time versus the number b of aux buffers of the static
#                strategy, 1 MiB budget (paper Fig. 2 left), both request
#                exchanges; the pool strategy, MPI_Alltoallv out of place and
#                the naive scheme as horizontal lines
#   budget.png   time versus the budget, 0.1% .. 100% of the data (Fig. 2
#                right): static (b = max(1, p/8)) and pool, p2p and alltoall
#                requests, and the naive scheme; out of place as a line
#   size.png     time versus the bytes each process sends, 1% budget (Fig. 3
#                left): out of place, in place (the default pool/p2p and the
#                paper's static/alltoall) and naive
#   sparse.png   time versus the number of processes each one sends to,
#                k = 1..3 random others and dense (Fig. 4 left), 1% budget
#
# Out of place (MPI_Alltoallv with a second buffer) is in every figure, as in
# Fig. 4 right.  Each point is the median over REPS repetitions of the slowest
# rank's time; error bars span min..max.  The raw tables (bench output, '#'
# comments) go to DIR/*.dat next to the PNGs, the commands to DIR/commands.txt,
# and a summary with the ratios the project targets (in place / out of place and
# naive / in place at a 1% budget) to DIR/summary.txt and stdout.
#
# Defaults: 4 ranks, 16M per rank, 10 repetitions, DIR = bench/figures/alltoallv of the
# source tree, sizes 1M,4M,16M,64M.  --plot-only redraws the figures and the
# summary from the tables already in DIR.  On a 2-core machine 4 ranks are
# oversubscribed (every exchange waits for its partner to get a core), which
# the figure titles say; the whole sweep takes some minutes there.
#
# Environment: MPIRUN (tests/mpirun.sh of a build; default build/openmpi's),
# BENCH (its bench/alltoallv_bench), GNUPLOT (default gnuplot).  Budgets,
# strategies and request exchanges are set on the command line of each run,
# so AIP_AUX_* and AIP_REQUESTS in the environment change nothing but b=0.
#
# shellcheck disable=SC2016 # awk programs and conditions in single quotes
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
np=4 size=16M reps=10 outdir="$top/bench/figures/alltoallv" sizes=1M,4M,16M,64M plot_only=0
usage="usage: alltoallv_figures.sh [-n RANKS] [-s SIZE] [-r REPS] [-o DIR] [--sizes LIST] [--plot-only]"
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -s) size=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -o) outdir=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --plot-only) plot_only=1; shift ;;
    -h|--help) echo "$usage"; exit 0 ;;
    *) echo "$usage" >&2; exit 2 ;;
    esac
done
MPIRUN=${MPIRUN:-$top/build/openmpi/tests/mpirun.sh}
BENCH=${BENCH:-$top/build/openmpi/bench/alltoallv_bench}
GNUPLOT=${GNUPLOT:-gnuplot}
for f in "$MPIRUN" "$BENCH"; do
    [ "$plot_only" = 1 ] || [ -x "$f" ] || { echo "alltoallv_figures: $f is missing: build first (scripts/build.sh)," \
                          "or set MPIRUN and BENCH" >&2; exit 2; }
done
command -v "$GNUPLOT" >/dev/null ||
    { echo "alltoallv_figures: $GNUPLOT not found (apt-get install gnuplot-nox)" >&2; exit 2; }
mkdir -p "$outdir"
started=$(date +%s)

# b = 1, 2, 4, ... up to p, and p itself; k = 1 .. min(3, p - 1).
buffers=$(awk -v p="$np" 'BEGIN { for (b = 1; b < p; b *= 2) printf "%d,", b; print p }')
sparse_ks=$(awk -v p="$np" 'BEGIN { for (k = 1; k <= 3 && k < p; k++) printf "%d ", k }')

# bench FILE ARGS...: one run of the benchmark on np ranks, appended to FILE.
bench() {
    file=$1
    shift
    # as run, with paths relative to the top of the source tree
    echo "$MPIRUN $np $BENCH -r $reps $*" | sed "s|$top/||g" >> "$outdir/commands.txt"
    echo "alltoallv_figures: $(basename "$file" .dat): $*" >&2
    if ! "$MPIRUN" "$np" "$BENCH" -r "$reps" "$@" > "$outdir/run.out" 2>&1; then
        cat "$outdir/run.out" >&2
        echo "alltoallv_figures: the benchmark failed (above); stopping" >&2
        exit 1
    fi
    cat "$outdir/run.out" >> "$file"
    rm -f "$outdir/run.out"
}

if [ "$plot_only" = 0 ]; then
    : > "$outdir/commands.txt"
    for f in buffers budget size sparse; do : > "$outdir/$f.dat"; done
    bench "$outdir/buffers.dat" -s "$size" --budget 1M --strategy static,pool -b "$buffers" \
        --requests p2p,alltoall
    bench "$outdir/budget.dat" -s "$size" --budget 0.1%,1%,10%,100% --strategy static,pool \
        --requests p2p,alltoall
    for s in $(echo "$sizes" | tr , ' '); do
        bench "$outdir/size.dat" -s "$s" --budget 1% --strategy static,pool --requests p2p,alltoall
    done
    for k in $sparse_ks 0; do
        bench "$outdir/sparse.dat" -s "$size" -k "$k" --budget 1% --strategy static,pool \
            --requests p2p,alltoall
    done
fi

# ---- Figures --------------------------------------------------------------
# Columns of a data row: 1 variant, 2 strategy, 3 b, 4 requests, 5 budget,
# 6 budget%, 7 p, 8 bytes, 9 k, 10 min_ms, 11 median_ms, 12 max_ms, 13 vs_oop,
# 14 extra_mib, 15 check.  Each line of a figure is the rows of a .dat file
# that an awk condition selects, in a file of its own for gnuplot.
# What the runs were, from the header of budget.dat (for --plot-only).
header() { sed -n "s/^# $1/\\1/p" "$outdir/budget.dat" | head -n 1; }
mpi=$(header 'MPI library *\([^,]*\).*')
np=$(header 'processes *\([0-9]*\).*')
size=$(header 'data *[0-9]* bytes (\([^)]*\)).*')
reps=$(header 'repetitions *\([0-9]*\).*')
sparse_ks=$(awk -v p="$np" 'BEGIN { for (k = 1; k <= 3 && k < p; k++) printf "%d ", k }')
cores=$(nproc 2>/dev/null || echo 0)
oversub=""
[ "$np" -gt "$cores" ] && oversub=", oversubscribed"
where="p = $np on $cores cores$oversub, $mpi"
rowdir=$(mktemp -d)
trap 'rm -rf "$rowdir"' EXIT
# rows NAME FILE COND: the rows of FILE for which COND holds, into $rowdir/NAME
rows() { awk "!/^#/ && NF && ($3)" "$2" > "$rowdir/$1"; }
# median FILE COND: the median of the first row of FILE for which COND holds
median() { awk "!/^#/ && NF && ($2) { print \$11; exit }" "$1"; }

terminal="set terminal pngcairo size 900,600 font ',11'"
"$GNUPLOT" -e "$terminal" >/dev/null 2>&1 || terminal="set terminal png size 900,600"
common="$terminal
set key below
set grid
set ylabel 'time (ms): median, bars min..max'"
static_p2p='$2 == "static" && $4 == "p2p"'
static_a2a='$2 == "static" && $4 == "alltoall"'
pool_p2p='$2 == "pool" && $4 == "p2p"'
pool_a2a='$2 == "pool" && $4 == "alltoall"'
# the same colour and point for a line in every figure (${s% pt *}: the
# colour alone, for the horizontal lines)
s_oop="lw 2 lc rgb 'black' pt 7"
s_naive="lw 2 lc rgb '#e41a1c' pt 5"
s_static_p2p="lc rgb '#4daf4a' pt 4"
s_static_a2a="lc rgb '#ff7f00' pt 6"
s_pool_p2p="lc rgb '#377eb8' pt 8"
s_pool_a2a="lc rgb '#984ea3' pt 10"
oop_title="'MPI_Alltoallv out of place' noenhanced"

# gnuplot reads its commands from stdin; say writes them as they are (dash's
# echo would turn the \n of the titles into newlines).
say() { printf '%s\n' "$*"; }
rows b_static_p2p "$outdir/buffers.dat" "$static_p2p"
rows b_static_a2a "$outdir/buffers.dat" "$static_a2a"
{
    say "$common"
    say "set output '$outdir/buffers.png'"
    say "set title \"in-place general Alltoallv: aux buffers of the static strategy, 1 MiB budget, $size per rank\\n$where\" noenhanced"
    say "set xlabel 'number of aux buffers b (static strategy)'"
    say "set logscale x 2"
    say "set xrange [0.8:$np * 1.25]"
    say "set yrange [0:*]"
    say "plot '$rowdir/b_static_p2p' using 3:11:10:12 with yerrorlines $s_static_p2p title 'static, p2p requests',\\"
    say "  '$rowdir/b_static_a2a' using 3:11:10:12 with yerrorlines $s_static_a2a title 'static, alltoall requests',\\"
    say "  $(median "$outdir/buffers.dat" "$pool_p2p") with lines dt 2 ${s_pool_p2p% pt *} title 'pool, p2p',\\"
    say "  $(median "$outdir/buffers.dat" "$pool_a2a") with lines dt 2 ${s_pool_a2a% pt *} title 'pool, alltoall',\\"
    say "  $(median "$outdir/buffers.dat" '$1 == "naive"') with lines ${s_naive% pt *} title 'naive',\\"
    say "  $(median "$outdir/buffers.dat" '$1 == "mpi-oop"') with lines ${s_oop% pt *} title $oop_title"
} | "$GNUPLOT"

rows g_static_p2p "$outdir/budget.dat" "$static_p2p"
rows g_static_a2a "$outdir/budget.dat" "$static_a2a"
rows g_pool_p2p "$outdir/budget.dat" "$pool_p2p"
rows g_pool_a2a "$outdir/budget.dat" "$pool_a2a"
rows g_naive "$outdir/budget.dat" '$1 == "naive"'
{
    say "$common"
    say "set output '$outdir/budget.png'"
    say "set title \"in-place general Alltoallv: aux budget, $size per rank\\n$where\" noenhanced"
    say "set xlabel 'aux budget (% of the bytes a process sends)'"
    say "set logscale x"
    say "set xrange [0.07:150]"
    say "set yrange [0:*]"
    say "plot '$rowdir/g_static_p2p' using 6:11:10:12 with yerrorlines $s_static_p2p title 'static, p2p',\\"
    say "  '$rowdir/g_static_a2a' using 6:11:10:12 with yerrorlines $s_static_a2a title 'static, alltoall',\\"
    say "  '$rowdir/g_pool_p2p' using 6:11:10:12 with yerrorlines $s_pool_p2p title 'pool, p2p',\\"
    say "  '$rowdir/g_pool_a2a' using 6:11:10:12 with yerrorlines $s_pool_a2a title 'pool, alltoall',\\"
    say "  '$rowdir/g_naive' using 6:11:10:12 with yerrorlines $s_naive title 'naive',\\"
    say "  $(median "$outdir/budget.dat" '$1 == "mpi-oop"') with lines ${s_oop% pt *} title $oop_title"
} | "$GNUPLOT"

# The size and sparse figures have the same lines, over another x column.
# lines FIG X: their plot command
lines() {
    rows "$1_oop" "$outdir/$1.dat" '$1 == "mpi-oop"'
    rows "$1_pool_p2p" "$outdir/$1.dat" "$pool_p2p"
    rows "$1_static_a2a" "$outdir/$1.dat" "$static_a2a"
    rows "$1_naive" "$outdir/$1.dat" '$1 == "naive"'
    say "plot '$rowdir/$1_oop' using $2:11:10:12 with yerrorlines $s_oop title $oop_title,\\"
    say "  '$rowdir/$1_pool_p2p' using $2:11:10:12 with yerrorlines $s_pool_p2p title 'in place, pool, p2p',\\"
    say "  '$rowdir/$1_static_a2a' using $2:11:10:12 with yerrorlines $s_static_a2a title 'in place, static, alltoall (paper)',\\"
    say "  '$rowdir/$1_naive' using $2:11:10:12 with yerrorlines $s_naive title 'naive'"
}
{
    say "$common"
    say "set output '$outdir/size.png'"
    say "set title \"in-place general Alltoallv: message size, 1% budget\\n$where\" noenhanced"
    say "set xlabel 'bytes each process sends (MiB)'"
    say "set logscale xy"
    lines size '($8/1048576)'
} | "$GNUPLOT"
{
    say "$common"
    say "set output '$outdir/sparse.png'"
    say "set title \"in-place general Alltoallv: sparse and dense, 1% budget, $size per rank\\n$where\" noenhanced"
    say "set xlabel 'processes each process sends to: k random others, or all (dense, itself included)'"
    say "set xtics ($(for k in $sparse_ks; do printf '"%s" %s, ' "$k" "$k"; done)\"$np (dense)\" $np)"
    say "set xrange [0.7:$np + 0.3]"
    say "set yrange [0:*]"
    lines sparse 9
} | "$GNUPLOT"

# ---- Summary ----------------------------------------------------------------
# At a 1% budget (budget.dat): each in-place row against out of place and the
# naive scheme; then the checks of all runs.
{
    if [ "$plot_only" = 0 ]; then took="$(($(date +%s) - started)) s in all"
    else took="redrawn from the tables"; fi
    echo "alltoallv_figures: $where, $size per rank, $reps repetitions, $took"
    echo "1% budget (budget.dat), medians of the slowest rank's time;" \
         "the targets: in place / out of place <= 3, naive / in place > 1"
    awk '!/^#/ && NF && $1 == "mpi-oop" { oop = $11; oop_mib = $14 }
         !/^#/ && NF && $6 == 1 && $1 == "naive" { naive = $11; naive_mib = $14 }
         !/^#/ && NF && $6 == 1 && $1 == "inplace" {
             n++; name[n] = "in place, " $2 ($3 == "-" ? "" : " b=" $3) ", " $4
             t[n] = $11; mib[n] = $14
         }
         END {
             f = "%-34s %10s %14s %16s %10s\n"
             printf f, "variant", "median ms", "/ out of place", "naive / this", "extra MiB"
             printf f, "MPI_Alltoallv out of place", sprintf("%.2f", oop), "1.00",
                    sprintf("%.2f", naive / oop), oop_mib
             for (i = 1; i <= n; i++)
                 printf f, name[i], sprintf("%.2f", t[i]), sprintf("%.2f", t[i] / oop),
                        sprintf("%.2f", naive / t[i]), mib[i]
             printf f, "naive", sprintf("%.2f", naive), sprintf("%.2f", naive / oop), "1.00", naive_mib
         }' "$outdir/budget.dat"
    echo "checks: $(cat "$outdir"/*.dat | awk '!/^#/ && NF && $15 == "ok"' | wc -l) rows ok," \
         "$(cat "$outdir"/*.dat | awk '!/^#/ && NF && $15 != "ok"' | wc -l) failed"
    echo "figures: buffers.png budget.png size.png sparse.png in $outdir"
} | tee "$outdir/summary.txt"
