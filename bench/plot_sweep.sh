#!/bin/sh
# plot_sweep.sh DAT PNG TITLE - plot a table of bench/alltoall_sweep: one
# line per method, its slowest rank's average latency (column NAME; the
# NAME.avg and NAME.min columns are left out), log-log over bytes per pair.
# GNUPLOT [gnuplot] names the program, XLABEL ['bytes per pair'] the x axis
# (bench/bcast_sweep's tables: 'message bytes').
set -eu
dat=$1 png=$2 title=$3
GNUPLOT=${GNUPLOT:-gnuplot}
command -v "$GNUPLOT" >/dev/null ||
    { echo "plot_sweep: $GNUPLOT not found (apt-get install gnuplot-nox)" >&2; exit 2; }
# shellcheck disable=SC2016 # an awk program
header=$(grep '^# *bytes ' "$dat" | head -n 1 | sed 's/^#//')
plots=$(echo "$header" | awk '{ for (i = 2; i <= NF; i++) if ($i !~ /\./)
        printf "%s\"%s\" using 1:%d with linespoints title \"%s\"", (n++ ? ", " : ""), F, i, $i }' \
        F="$dat")
terminal="set terminal pngcairo size 900,600 font ',11'"
"$GNUPLOT" -e "$terminal" >/dev/null 2>&1 || terminal="set terminal png size 900,600"
{
    printf '%s\n' "$terminal"
    printf '%s\n' "set output '$png'"
    printf '%s\n' "set title \"$title\" noenhanced"
    printf '%s\n' "set xlabel '${XLABEL:-bytes per pair}'" "set ylabel 'latency (us)'"
    printf '%s\n' "set logscale xy 2" "set format x '%.0b%BB'" "set logscale y 10" "set format y '%g'"
    printf '%s\n' "set key top left" "set grid" "set datafile missing 'n/a'"
    printf '%s\n' "plot $plots"
} | "$GNUPLOT"
