#!/bin/sh
# peers.sh - our in-place FFTs side by side with what users pick instead:
# stock FFTW (in place, out of place, out of place destroying its input),
# heFFTe, fftMPI and PFFT, on the same 3D transforms, in one run.
#
# Every variant runs the same forward transform of an N^3 array on P ranks
# that starts and ends in the same distributed layout, planned with
# FFTW_ESTIMATE (heFFTe and fftMPI fix it; the others are told), under the
# same launcher (tests/mpirun.sh of build/$MPI) and GNU time, which gives
# each rank's peak resident memory.  The variants run interleaved: ROUNDS
# rounds, each running every case and variant once, so that the machine's
# drift falls on all alike.  Each run times REPEATS transforms; the table
# gives, per case and variant, the smallest time of all rounds, the median
# of the rounds' medians, and the largest peak of any rank (MPI runtime
# included, about 13 MiB with Open MPI) in MiB and as a multiple of the
# largest rank's local array (c2c: ceil(N/P) N^2 complex numbers; r2c:
# FFTW's padded slab, ceil(N/P) N 2(N/2+1) reals).
#
# Variants (VARIANTS; those that cannot do a case are left out of it):
#   ours           mpi-bench -o inplace (FFTW_MPI_INPLACE_ALLTOALL): our
#                  transposes, HSA where blocks are equal or symmetric, general elsewhere
#   stock          mpi-bench in place, FFTW's own transposes
#   or, dor        mpi-bench out of place, and destroying its input (FFTW's
#                  fastest path: MPI_Alltoall between two arrays)
#   VARIANT-measure  any of the above but heFFTe's and fftMPI's (which fix
#                  FFTW_ESTIMATE) planned with FFTW_MEASURE, the planning not
#                  timed: FFTW's own c2c plans under ESTIMATE are far from
#                  its best (docs/results.md)
#   heffte-slabs, heffte-pencils  bench/peers/heffte_fft3d, heFFTe's public
#                  API: c2c in place (plus heFFTe's workspace), r2c out of
#                  place (heFFTe has no in-place r2c)
#   heffte-speed3d heFFTe's own benchmark (speed3d_c2c -slabs, speed3d_r2c):
#                  its "Time per run" is the mean time of a transform over
#                  its forward-backward pairs; min and median are that mean
#   fftmpi         fftMPI's test3d on a 1 x 1 x P grid, c2c in place, forward
#                  only (-m 2): min and median are its mean
#   pfft-debian    bench/peers/pfft_fft3d (slabs) on Debian's FFTW (Open MPI only)
#   pfft-stock, pfft-ours  the same on the patched FFTW of build/$MPI, with
#                  FFTW_MPI_INPLACE_ALGORITHM=off and =auto: PFFT's transposes
#                  are FFTW's fftw_mpi_plan_many_transpose
#   pfft-*-pencils any PFFT variant on PFFT's 2D process grid (MPI_Dims_create:
#                  2 x 2 on 4 ranks), whose transposes have locally transposed
#                  sides
# mpi-bench and our drivers time the forward transform alone, the slowest
# rank's; the peers' own programs their own way (above).  Correctness is
# bench/peers/check.sh's (and mpi-bench's --verify in tests/), not this
# script's: it runs the timed transforms only.
#
# Environment (defaults in brackets):
#   MPI [openmpi]  openmpi or mpich: build/$MPI (scripts/build.sh) and the
#                  peers that VARIANTS run, built for it (bench/peers/build.sh,
#                  run first here for those missing; see there for HEFFTE_SRC,
#                  FFTMPI_SRC, PFFT_SRC)
#   CASES ["c2c:256:2 r2c:256:2 c2c:256:3 r2c:256:3 c2c:256:4 r2c:256:4"]
#                  KIND:N:P, KIND c2c or r2c; 3 ranks make every shape uneven
#   VARIANTS [all above]   ROUNDS [3]   REPEATS [5]
#   REFERENCE [ours]  the variant the times are relative to
#   OUT [bench/figures/peers], NAME [peers_$MPI]  $NAME.dat (one row per
#                  run), $NAME.txt (the table, also printed), $NAME.png (time
#                  relative to REFERENCE against memory as a multiple of the local
#                  array, one point per variant and case)
# --report-only makes the table and the figure again from $NAME.dat.
# More ranks than cores mean little for time: on 2 cores, compare at P = 2.
set -eu
case "${1:-}" in
"") report_only=no ;;
--report-only) report_only=yes ;;
*) echo "usage: [MPI=... CASES=... VARIANTS=... ROUNDS=... REPEATS=...] peers.sh [--report-only]" >&2
   exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
MPI=${MPI:-openmpi}
CASES=${CASES:-"c2c:256:2 r2c:256:2 c2c:256:3 r2c:256:3 c2c:256:4 r2c:256:4"}
VARIANTS=${VARIANTS:-"ours stock or dor heffte-slabs heffte-pencils heffte-speed3d fftmpi
pfft-debian pfft-stock pfft-ours ours-measure stock-measure dor-measure pfft-ours-measure"}
ROUNDS=${ROUNDS:-3}
REPEATS=${REPEATS:-5}
REFERENCE=${REFERENCE:-ours}
OUT=${OUT:-$top/bench/figures/peers}
build=$top/build/$MPI
peers=$top/build/peers/$MPI
mpirun=$build/tests/mpirun.sh
mpibench=$build/fftw/bin/mpi-bench
NAME=${NAME:-peers_$MPI}
dat=$OUT/$NAME.dat

[ "$report_only" = yes ] || [ -x "$mpibench" ] || { echo "peers.sh: no $mpibench: run scripts/build.sh $MPI first" >&2; exit 1; }
# The peers that VARIANTS run, built where missing: ours against FFTW's own
# paths needs none, nor their sources.
missing=""
for variant in $VARIANTS; do
    case "$variant" in
    heffte-*) peer=heffte ;;
    fftmpi*) peer=fftmpi ;;
    pfft-*) peer=pfft ;;
    *) continue ;;
    esac
    case " $missing " in *" $peer "*) continue ;; esac
    [ -d "$peers/$peer/bin" ] || missing="$missing $peer"
done
# shellcheck disable=SC2086 # a list of peers
[ "$report_only" = yes ] || [ -z "$missing" ] || MPI=$MPI "$top/bench/peers/build.sh" $missing >&2
mkdir -p "$OUT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# variant_command VARIANT KIND N P: sets run_env (assignments for env) and
# run_cmd (the program and its arguments); fails where the variant cannot
# run the case
variant_command() {
    base=${1%-measure} kind=$2 n=$3 np=$4 decomposition=slabs
    case "$base" in pfft-*-pencils) base=${base%-pencils} decomposition=pencils ;; esac
    cube=${n}x${n}x${n}
    case "$kind" in c2c) letter=c ;; r2c) letter=r ;; esac
    planner="-o estimate" pfft_planner="-p estimate"
    if [ "$base" != "$1" ]; then    # FFTW_MEASURE, mpi-bench's default
        planner="" pfft_planner="-p measure"
        case "$base" in heffte-* | fftmpi) return 1 ;; esac  # FFTW_ESTIMATE fixed
    fi
    bench="$mpibench $planner --time-repeat $REPEATS -v2"
    driver="-s $n -r $REPEATS -k $kind"
    run_env=FFTW_MPI_INPLACE_ALGORITHM=off
    case "$base" in
    ours) run_env=FFTW_MPI_INPLACE_ALGORITHM= run_cmd="$bench -o inplace -s i$letter$cube" ;;
    stock) run_cmd="$bench -s i$letter$cube" ;;
    or) run_cmd="$bench -s o$letter$cube" ;;
    dor) run_cmd="$bench -s do$letter$cube" ;;
    heffte-slabs) run_cmd="$peers/heffte/bin/heffte_fft3d $driver -d slabs" ;;
    heffte-pencils) run_cmd="$peers/heffte/bin/heffte_fft3d $driver -d pencils" ;;
    heffte-speed3d) run_cmd="$peers/heffte/bin/speed3d_$kind fftw double $n $n $n -slabs -n$REPEATS" ;;
    fftmpi)
        [ "$kind" = c2c ] || return 1
        run_cmd="$peers/fftmpi/bin/test3d -g $n $n $n -pin 1 1 $np -pout 1 1 $np -n $REPEATS -m 2" ;;
    pfft-debian)
        [ "$MPI" = openmpi ] && [ -x "$peers/pfft-debian/bin/pfft_fft3d" ] || return 1
        run_cmd="$peers/pfft-debian/bin/pfft_fft3d $driver -d $decomposition $pfft_planner" ;;
    pfft-stock) run_cmd="$peers/pfft/bin/pfft_fft3d $driver -d $decomposition $pfft_planner" ;;
    pfft-ours)
        run_env=FFTW_MPI_INPLACE_ALGORITHM=auto
        run_cmd="$peers/pfft/bin/pfft_fft3d $driver -d $decomposition $pfft_planner" ;;
    *) echo "peers.sh: unknown variant '$1'" >&2; exit 2 ;;
    esac
}

# seconds TEXT UNIT: mpi-bench's "45.66 ms" in seconds
seconds() { awk -v t="$1" -v u="$2" 'BEGIN {
    f = u == "s" ? 1 : u == "ms" ? 1e-3 : u == "us" ? 1e-6 : u == "ns" ? 1e-9 : -1
    printf "%.6g", f < 0 ? -1 : t * f }'; }

# parse_times VARIANT: "min_s median_s" from the run's output in $tmp/out
parse_times() {
    case "$1" in
    ours* | stock* | or* | dor*)
        line=$(grep '^Time: min' "$tmp/out") || return 1
        # shellcheck disable=SC2086 # the words of mpi-bench's line
        set -- $line    # Time: min T U, max T U, avg T U, median T U
        echo "$(seconds "$3" "${4%,}") $(seconds "${12}" "${13}")" ;;
    heffte-slabs | heffte-pencils | pfft-*)
        grep -v '^#' "$tmp/out" | awk 'NF >= 2 { print $1, $2; found = 1 } END { exit !found }' ;;
    heffte-speed3d)  # "Time per run: T (s)"
        awk '/Time per run/ { printf "%.6g %.6g\n", $(NF-1), $(NF-1); found = 1 }
             END { exit !found }' "$tmp/out" ;;
    fftmpi)
        awk '/time\/fft3d/ { for (i = 1; i <= NF; i++) if ($i == "=") t = $(i+1)
                             printf "%.6g %.6g\n", t, t; found = 1 }
             END { exit !found }' "$tmp/out" ;;
    esac
}

# local_bytes KIND N P: the largest rank's local array
local_bytes() {
    awk -v kind="$1" -v n="$2" -v np="$3" 'BEGIN {
        rows = int((n + np - 1) / np)
        printf "%.0f", kind == "c2c" ? rows * n * n * 16 : rows * n * 2 * int(n / 2 + 1) * 8 }'
}

if [ "$report_only" = no ]; then
echo "# peers.sh: $MPI, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, ROUNDS=$ROUNDS REPEATS=$REPEATS" > "$dat"
echo "# round kind n ranks variant min_s median_s peak_kib local_bytes" >> "$dat"
for round in $(seq "$ROUNDS"); do
    for case in $CASES; do
        kind=${case%%:*} rest=${case#*:}
        n=${rest%%:*} np=${rest#*:}
        for variant in $VARIANTS; do
            variant_command "$variant" "$kind" "$n" "$np" || continue
            echo "peers.sh: round $round, $kind ${n}^3 on $np ranks, $variant" >&2
            rm -f "$tmp/rss"
            # shellcheck disable=SC2086 # run_cmd is a word list
            if env "$run_env" "$mpirun" "$np" /usr/bin/time -a -o "$tmp/rss" -f %M $run_cmd \
                   > "$tmp/out" 2>&1 && result=$(parse_times "$variant"); then
                peak=$(awk '$1 + 0 > p { p = $1 + 0 } END { print p + 0 }' "$tmp/rss")
                echo "$round $kind $n $np $variant $result $peak $(local_bytes "$kind" "$n" "$np")" >> "$dat"
            else
                echo "peers.sh: $variant failed on $kind ${n}^3, $np ranks:" >&2
                tail -n 5 "$tmp/out" >&2
                echo "$round $kind $n $np $variant failed - - -" >> "$dat"
            fi
        done
    done
done
fi

# Per case and variant over the rounds, in the order they ran: "kind n ranks
# variant min_s median_s peak_kib local_bytes" (min and peak "-" if every
# run failed).  The table and the figure both read it.
awk '
    /^#/ { next }
    {
        key = $2 " " $3 " " $4 " " $5
        if (!(key in runs)) order[++n] = key
        runs[key]++
        if ($6 == "failed") next
        if (!(key in lo) || $6 < lo[key]) lo[key] = $6
        med[key, ++nm[key]] = $7
        if ($8 > peak[key]) peak[key] = $8
        local[key] = $9
    }
    function median(key,    n, i, j, t, a) {
        n = nm[key]
        for (i = 1; i <= n; i++) a[i] = med[key, i]
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j] < a[j-1]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
        for (i = 1; i <= n; i++)
            if (order[i] in lo)
                print order[i], lo[order[i]], median(order[i]), peak[order[i]], local[order[i]]
            else
                print order[i], "- - - -"
    }' "$dat" > "$tmp/summary"

# The table
awk -v ref="$REFERENCE" '
    $4 == ref && $5 != "-" { base[$1, $2, $3] = $5 }
    { row[NR] = $0 }
    END {
        print "| transform | variant | min time (s) | median (s) | x " ref " (min) | peak MiB/rank | x local array |"
        print "|---|---|---|---|---|---|---|"
        for (i = 1; i <= NR; i++) {
            split(row[i], f, " ")
            if (f[5] == "-") {
                printf "| %s %d^3, %d ranks | %s | failed | | | | |\n", f[1], f[2], f[3], f[4]
                continue
            }
            b = base[f[1], f[2], f[3]]
            printf "| %s %d^3, %d ranks | %s | %.3f | %.3f | %s | %.0f | %.2f |\n",
                   f[1], f[2], f[3], f[4], f[5], f[6], (b > 0 ? sprintf("%.2f", f[5] / b) : "-"),
                   f[7] / 1024, f[7] * 1024 / f[8]
        }
    }' "$tmp/summary" | tee "$OUT/$NAME.txt"

# The figure: each point a variant on a case, time relative to REFERENCE
# against memory relative to the local array; one block of points per variant
awk -v ref="$REFERENCE" -v names="$tmp/names" '
    $5 == "-" { next }
    { row[NR] = $0; if (!($4 in seen)) { seen[$4]; vs[++nv] = $4 } }
    $4 == ref { base[$1, $2, $3] = $5 }
    END {
        for (i = 1; i <= nv; i++) {
            print vs[i] > names
            for (r = 1; r <= NR; r++) {
                if (!(r in row)) continue
                split(row[r], f, " ")
                if (f[4] == vs[i] && (f[1], f[2], f[3]) in base)
                    printf "%.4f %.4f\n", f[5] / base[f[1], f[2], f[3]], f[7] * 1024 / f[8]
            }
            print ""; print ""
        }
    }' "$tmp/summary" > "$tmp/points"
names=
if command -v gnuplot > /dev/null 2>&1; then
    names=$(tr '\n' ' ' < "$tmp/names")
    gnuplot <<EOF
set terminal pngcairo size 900,600
set output "$OUT/$NAME.png"
set termoption noenhanced
set title "FFT of N^3 on P ranks, $MPI: $(awk '{ k = $1 ":" $2 ":" $3; if (!(k in s)) { s[k]; printf "%s ", k } }' "$tmp/summary")"
set xlabel "time / $REFERENCE's time (min of the rounds)"
set ylabel "peak memory per rank / local array"
set logscale y
set key outside right
set grid
names = "$names"
plot for [i=1:words(names)] "$tmp/points" index i-1 using 1:2 with points pointsize 1.6 \
     title word(names, i)
EOF
fi
echo "peers.sh: $dat, $OUT/$NAME.txt${names:+, $OUT/$NAME.png}" >&2
