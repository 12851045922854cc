#!/bin/sh
# fftw_smpi.sh - the FFT experiment of Hofmann & Ruenger (EuroMPI 2013,
# Sect. 4.4, Fig. 6 right) at its scales, simulated with SimGrid SMPI: an
# in-place 3D real forward transform of 512^3 on 2, 1024^3 on 16, 2048^3 on
# 128 and 4096^3 on 1024 processes (512 MiB per process), on models of
# JuRoPA (fat tree, 8-core nodes) and Juqueen (5D torus, 16-core nodes),
# bench/smpi/platforms.cpp.
#
# Each run is the real code: FFTW's MPI plans (FFTW_ESTIMATE) with their
# real transposes, stock FFTW's (what its ESTIMATE planner picks:
# mpi-transpose-pairwise, in place and for dor alike) or ours through
# liballtoall_inplace, built with smpicc.  Only the local work is charged instead of done
# (bench/smpi/sim_charge.h): rank 0 runs each serial sub-plan of its plan
# (the local FFTs and transposes) on its real 512 MiB and times it, and
# every rank is charged that time scaled to the simulated core by memory
# bandwidth (where N does not divide by the ranks, the first rank of each
# kind of block times its own); every memcpy/memmove of the exchange is
# charged at the core's copy bandwidth.  Rank 0's measurements are kept in $OUT/fftw_smpi.calibration
# and reused: every variant and platform of one case is charged the same
# local work, so that they differ by their exchanges, not by this machine's
# noise.  The file is kept with the figures, since their rows were charged
# with it.  A sub-plan it lacks is measured on the machine at hand and
# multiplied by the file's time of FFTW's own local FFTs of the case over
# their time here (fftw_sim's put_on_file_scale), because the file holds
# scaled times: it was rebuilt when the machine that measured the first
# rows was gone (docs/design.md, "How the simulated figures are made").  A
# new case's first run stores those references at this machine's scale.  The
# other ranks' arrays are folded onto shared pages (SMPI_SHARED_MALLOC), so
# 1024 ranks x 512 MiB fit here.
#
# Variants (FFTW_MPI_INPLACE_ALGORITHM, as in mpi-bench -o inplace=...):
#   stock   stock FFTW in place (off)       mpich, lsa, hsa, sa   ours, forced
#   auto    ours, the planner's choice (under ESTIMATE it is hsa)
#   dor     stock FFTW out of place, destroying its input
#   hsa-pipelined  the pipelined transform (transpose/rank-geq2-pipelined.c:
#           chunks' exchanges behind the next chunks' FFTs), HSA's
#           exchanges, forced; not in the default VARIANTS.  Its local work
#           is charged per row and piece, and the network moves its messages
#           meanwhile, as SMPI overlaps a charged computation with flows
#
# Environment (defaults in brackets):
#   PLATFORMS [juropa juqueen]; also juropa-spread: JuRoPA with the job on
#          16 of each leaf switch's 18 nodes (packed on 128 nodes, flows
#          collide on the fat tree's D-mod-K routes: fftw_smpi.sh --routes)
#   CASES ["2:512 16:1024 64:1600 128:2048 256:2560 1024:4096"]  ranks:N for N^3
#   VARIANTS [stock mpich lsa hsa sa auto dor]
#   TRANSPOSED [0]  1: FFTW_MPI_TRANSPOSED_OUT (mpi-bench's ir]), one
#          exchange, the output distributed along N1; its rows are cached
#          like the others', so give it an OUT of its own
#   SAMPLE [16], SAMPLE_FROM [1024]  cases of SAMPLE_FROM ranks or more are
#          sampled: each exchange runs its first and last SAMPLE steps and
#          one step in each SAMPLE between them, and the ranks' mean time of
#          that middle part is scaled to all of its steps (sim_charge.c).  A whole run at
#          1024 ranks takes hours (SimGrid's max-min solver re-solves the
#          sharing of about a thousand flows at each of 2 x 1024^2 messages);
#          sampled, minutes.  --check-sampling measures the error.
#   SAMPLE_WHOLE []  variants never sampled.  MPICH's schedule, a wave (rank r
#          meets s - r at step s), samples worst: its front runs ragged in a
#          whole run but starts flat at each sampled step (+30% at 64 ranks
#          on Juqueen, within 1.4% from 256 on: docs/results.md); whole, it
#          takes hours at 1024 ranks
#   PRECISION [1e-6]  SimGrid's surf/precision (its default is 1e-9): the
#          solver ignores smaller rate changes; --check-precision measures it
#   TIME_LIMIT [1800]  seconds of real time per run; a run past it is
#                      recorded as "timeout", never as a figure
#   FORCE [0]  1: run cases again that the .dat file already has
#   SMPI_CFG   more smpirun options (--cfg=...) for every run
#   AIP_SIM_CFLAGS  more flags for the library's simulation build, which
#          every run rebuilds (so give them to every run, with their own
#          BUILD): e.g. -DAIP_CHUNK_BYTES_MAX=524288, the 1 MiB budget as
#          two chunks in flight instead of four, simulates HSA at 256 ranks
#          at 1.2-1.9x stock's cost instead of 3.2-3.6x (JuRoPA), its
#          exchange 0.9% slower there and 3.1% at 128 ranks: another model,
#          which erred against ours wherever measured (docs/results.md)
#   OUT [bench/figures/fftw]  fftw_smpi.dat (one row per case, which is also the
#                      cache: a case with a row is not run again, so an
#                      interrupted sweep resumes), fftw_smpi.png,
#                      fftw_smpi.log (smpirun's output)
#   BUILD [build/smpi-fftw]  the smpicc builds (FFTW's takes 2-5 minutes once)
# Progress goes to stderr, one line per case run.
# --build only builds; --plot-only redraws the figure and prints docs/results.md's
# table from fftw_smpi.dat; --validate runs the
# charged model against SMPI's own measurement of the same transforms
# (256^3 on VALIDATE_RANKS [2 4] ranks, VALIDATE_VARIANTS [stock hsa],
# everything executed; see docs/results.md);
# --check-sampling runs the SAMPLE_CHECK cases ["64:1600 128:2048 256:2560"]
# whole and sampled (fftw_smpi_sampling.{dat,txt}); --check-precision runs
# the PRECISION_CHECK cases ["128:2048 256:2560"] at PRECISION and at 1e-9
# (fftw_smpi_precision.{dat,txt}); --routes counts the flows of each
# schedule on both models' links as SimGrid routes them, JuRoPA's job packed
# and spread, at 16 to 1024 ranks (bench/smpi/route_load.c; route_load.txt).
#
# SMPI settings, and why:
#   smpi/host-speed:1Gf, hosts of 1 Gflop/s   one simulated flop is a
#       nanosecond: charges are seconds
#   smpi/simulate-computation:no   the real CPU time of 1024 ranks on this
#       machine is not the simulated machine's; everything local is charged
#   smpi/bw-factor:0:1, smpi/lat-factor:0:1   the links carry the machines'
#       MPI figures already (SMPI's defaults are calibrated on TCP)
#   smpi/os, smpi/or, smpi/ois   per-message CPU overhead: 0.5 us on JuRoPA's
#       QDR, 1 us on Blue Gene/Q's messaging unit (about 1.5 and 2.5 us of
#       small-message latency with the wires)
#   smpi/test, smpi/grow-injected-times:no   a failed MPI_Test (each request
#       of a Testall) costs the same overhead; SMPI's default sleeps 100 us,
#       more after every failure in a row, which charged the pipelined
#       transforms' tests more than their exchanges (docs/results.md)
#   smpi/coll-selector:mpich   both machines ran MPICH-based MPIs (dor's
#       MPI_Alltoall)
#   smpi/shared-malloc-blocksize:64M   a folded array is mapped block by
#       block: 1 MiB blocks would need 512 mappings per rank, past Linux's
#       65530 at 1024 ranks
#   surf/precision:$PRECISION   1e-6 cut ours' simulation 2.5x at 256 ranks and
#       changes no exchange by more than the --check-precision table says
#
# Built for simulation, the library waits in MPI_Waitall (AIP_BLOCKING_WAIT)
# and asks the harness which steps to run (AIP_SAMPLED_SIMULATION), and
# FFTW's transpose-pairwise likewise (bench/smpi/fftw-sampled-rounds.patch);
# unsampled runs run every step.
#
# shellcheck disable=SC2016 # awk programs in single quotes
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mode=run
case "${1:-}" in
--plot-only) mode=plot ;;
--validate) mode=validate ;;
--check-sampling) mode=check-sampling ;;
--check-precision) mode=check-precision ;;
--routes) mode=routes ;;
--build) mode=build ;;
-h|--help) sed -n '2,/^# shellcheck/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "usage: [PLATFORMS=... CASES=... VARIANTS=...] fftw_smpi.sh [--build | --plot-only | --validate | --check-sampling | --check-precision | --routes]" >&2
   exit 2 ;;
esac
PLATFORMS=${PLATFORMS:-juropa juqueen}
CASES=${CASES:-2:512 16:1024 64:1600 128:2048 256:2560 1024:4096}
VARIANTS_ORDER="stock mpich lsa hsa hsa-pipelined sa auto dor"
VARIANTS=${VARIANTS:-stock mpich lsa hsa sa auto dor}
PRECISION=${PRECISION:-1e-6}
transposed=""
[ "${TRANSPOSED:-0}" = 1 ] && transposed=--transposed
SAMPLE=${SAMPLE:-16}
SAMPLE_FROM=${SAMPLE_FROM:-1024}
SAMPLE_WHOLE=${SAMPLE_WHOLE-}
SAMPLE_CHECK=${SAMPLE_CHECK:-64:1600 128:2048 256:2560}
PRECISION_CHECK=${PRECISION_CHECK:-128:2048 256:2560}
TIME_LIMIT=${TIME_LIMIT:-1800}
OUT=${OUT:-$top/bench/figures/fftw}
build=${BUILD:-$top/build/smpi-fftw}
dat=$OUT/fftw_smpi.dat
mkdir -p "$OUT" "$build"

# ---- Build (smpicc): the library, the patched FFTW, the harness, the platforms --
build_all() {
    "$top/scripts/install-deps.sh" >&2    # autotools and patch for FFTW, gnuplot
    "$top/bench/smpi/install_simgrid.sh"
    flags="-O2 -g -std=gnu11 -Wall -Wextra"
    mkdir -p "$build/lib"
    for src in "$top"/alltoall_inplace/*/*.c; do # file names are unique across layers
        # shellcheck disable=SC2086 # AIP_SIM_CFLAGS is a word list
        smpicc $flags -DAIP_BLOCKING_WAIT=1 -DAIP_SAMPLED_SIMULATION=1 ${AIP_SIM_CFLAGS:-} \
            -I"$top/alltoall_inplace" -c "$src" \
            -o "$build/lib/$(basename "$src" .c).o"
    done
    rm -f "$build/liballtoall_inplace.a"
    ar rcs "$build/liballtoall_inplace.a" "$build"/lib/*.o

    # FFTW static (SMPI privatizes the program's globals, not a shared
    # library's), position-independent (smpicc links the program as a shared
    # object), its MPI part with smpicc, libraries only (the harness below is
    # the program), and configure cannot run an SMPI program to size MPI_Fint.
    # The simulation-only patch lets the harness pick transpose-pairwise's rounds.
    CC="gcc -fPIC" FFTW_SOURCE=debian FFTW_CACHE="$top/build/fftw-cache" FFTW_LIBRARIES_ONLY=yes \
    FFTW_EXTRA_PATCHES="$top/bench/smpi/fftw-sampled-rounds.patch" \
    FFTW_CONFIGURE_FLAGS="--disable-shared --enable-static --disable-fortran \
--disable-threads --enable-sse2 --enable-avx ac_cv_sizeof_MPI_Fint=4" \
    FFTW_STAGE="$build/fftw" MPICC=smpicc PREFIX="$build/install" BINDIR="$build/install/bin" \
    AIP_CFLAGS="-I$top/alltoall_inplace" AIP_LIBS=-lm TOP_SRCDIR="$top" \
        "$top/scripts/build-fftw.sh" build >&2
    tree=$(readlink -f "$build/fftw/build")
    src=$(dirname "$tree")/src
    smpicc $flags -I"$tree" -I"$src" -I"$src/api" -I"$src/mpi" -I"$top/bench/smpi" \
        -I"$top/tests" -c "$top/bench/smpi/sim_charge.c" -o "$build/sim_charge.o"
    smpicc $flags -I"$src/api" -I"$src/mpi" -I"$top/bench/smpi" -I"$top/tests" \
        -c "$top/bench/smpi/fftw_sim.c" -o "$build/fftw_sim.o"
    smpicc $flags -c "$top/tests/plane_waves.c" -o "$build/plane_waves.o"
    # Linked under another name and moved into place: every run rebuilds,
    # and a run starting meanwhile from the same BUILD must not load half
    # a program (SMPI copies it for each rank as it starts).
    smpicc -o "$build/fftw_sim.$$" "$build/fftw_sim.o" "$build/sim_charge.o" \
        "$build/plane_waves.o" "$tree/mpi/.libs/libfftw3_mpi.a" \
        "$build/liballtoall_inplace.a" "$tree/.libs/libfftw3.a" -lm \
        @"$top/bench/smpi/sim_charge.ldflags"
    mv "$build/fftw_sim.$$" "$build/fftw_sim"
    g++ -O2 -std=c++17 -shared -fPIC "$top/bench/smpi/platforms.cpp" \
        -o "$build/platforms.so.$$" -lsimgrid
    mv "$build/platforms.so.$$" "$build/platforms.so"
}

# ---- One run -----------------------------------------------------------------
# simulate PLATFORM RANKS N VARIANT STRIDE [fftw_sim options]: prints fftw_sim's
# row, then the real seconds it took and the sampling stride (1: every step)
simulate() {
    platform=$1 np=$2 n=$3 variant=$4 stride=$5
    shift 5
    # rank r runs on the job's node r / cores; the job fills `used` of each
    # `leaf` consecutive nodes of the machine (a leaf switch's)
    case "$platform" in
    juropa) cores=8 overhead=5e-7 leaf=18 used=18 ;;
    juropa-spread) cores=8 overhead=5e-7 leaf=18 used=16 ;;
    juqueen) cores=16 overhead=1e-6 leaf=1 used=1 ;;
    esac
    algorithm=$variant oop=""
    case "$variant" in
    stock) algorithm=off ;;
    dor) algorithm=off oop=--oop ;;
    esac
    hostfile=$build/hosts_${platform}_$np
    awk -v np="$np" -v c="$cores" -v leaf="$leaf" -v used="$used" 'BEGIN {
            for (r = 0; r < np; r++) {
                node = int(r / c)
                print "node-" int(node / used) * leaf + node % used
            }
        }' > "$hostfile"
    nodes=$(($(tail -n 1 "$hostfile" | cut -d- -f2) + 1))
    echo "=== $platform, $np ranks, ${n}^3, $variant, sampled 1/$stride" >> "$OUT/fftw_smpi.log"
    started=$(date +%s)
    # shellcheck disable=SC2086 # oop, transposed and SMPI_CFG are word lists
    rowfile=$build/row.$$.${platform}_${np}_$variant
    if FFTW_SMPI_PLATFORM=${platform%-spread} FFTW_SMPI_NODES=$nodes FFTW_MPI_INPLACE_ALGORITHM=$algorithm \
        TMPDIR=$build timeout "$TIME_LIMIT" smpirun -np "$np" -platform "$build/platforms.so" \
            -hostfile "$hostfile" "$build/fftw_sim" \
            --cfg=smpi/host-speed:1Gf --cfg=smpi/simulate-computation:"${COMPUTE:-no}" \
            --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 \
            --cfg=smpi/os:0:$overhead:0 --cfg=smpi/or:0:$overhead:0 --cfg=smpi/ois:0:$overhead:0 \
            --cfg=smpi/test:$overhead --cfg=smpi/grow-injected-times:no \
            --cfg=smpi/coll-selector:mpich --cfg=smpi/shared-malloc-blocksize:$((64 << 20)) \
            --cfg=surf/precision:"$PRECISION" \
            --cfg=smpi/display-timing:1 --log=root.thresh:warning --log=smpi_utils.thresh:info \
            ${SMPI_CFG:-} -s "${n}x${n}x${n}" $oop $transposed --label "$variant" --sample "$stride" "$@" \
            > "$rowfile" 2>> "$OUT/fftw_smpi.log"; then
        row=$(grep -v '^#' "$rowfile" | tail -n 1)
    else
        status=$?
        row="$variant $np $n $([ "$status" -eq 124 ] && echo timeout || echo failed)"
    fi
    rm -f "$rowfile"
    echo "$platform $row $(($(date +%s) - started)) $stride"
}

# The stride of RANKS ranks of VARIANT: SAMPLE from SAMPLE_FROM ranks on,
# except for the variants of SAMPLE_WHOLE.
stride_for() {
    case " $SAMPLE_WHOLE " in *" $2 "*) echo 1; return ;; esac
    if [ "$1" -ge "$SAMPLE_FROM" ]; then echo "$SAMPLE"; else echo 1; fi
}

# cached_row PLATFORM VARIANT RANKS STRIDE DAT: the case's row in DAT with a
# figure, if any.
cached_row() {
    [ -f "$5" ] || return 0
    awk -v p="$1" -v v="$2" -v np="$3" -v k="$4" \
        '!/^#/ && $1 == p && $2 == v && $3 == np && ($15 == "" ? 1 : $15) == k &&
         $5 ~ /^[0-9.]+$/ { row = $0 } END { if (row != "") print row }' "$5"
}

# Puts ROW into DAT in place of the row of the same case, in the order
# platform, ranks, stride, variant (VARIANTS_ORDER).
store_row() {
    row=$1 file=$2
    { grep '^#' "$file" 2>/dev/null || header
      { grep -v '^#' "$file" 2>/dev/null || true; echo "$row"; } |
          awk -v variants="$VARIANTS_ORDER" '
              BEGIN { n = split(variants, v, " "); for (i = 1; i <= n; i++) rank[v[i]] = i }
              { k = ($15 == "" ? 1 : $15); key = $1 " " $3 " " k " " $2; last[key] = $0
                order[key] = sprintf("%s %08d %08d %03d", $1, $3, k, ($2 in rank) ? rank[$2] : 99) }
              END { for (key in last) print order[key] "\t" last[key] }' |
          sort | cut -f2-; } > "$file.new.$$"
    mv "$file.new.$$" "$file"
}

# run_case PLATFORM RANKS N VARIANT STRIDE DAT: the case's row, from DAT if it
# is there (FORCE=1: run again), else simulated and stored in DAT at once.
run_case() {
    cached=$(cached_row "$1" "$4" "$2" "$5" "$6")
    if [ -n "$cached" ] && [ "${FORCE:-0}" != 1 ]; then
        echo "$cached"
        return
    fi
    echo "fftw_smpi: $(date +%H:%M) $1, $2 ranks, $3^3, $4, sampled 1/$5 ..." >&2
    row=$(simulate "$1" "$2" "$3" "$4" "$5" --model --fold --calibration "$OUT/fftw_smpi.calibration")
    echo "$row"
    store_row "$row" "$6"
}

header() {
    echo "# fftw_smpi: in-place ir${transposed:+]} transforms (dor: out of place), simulated seconds, slowest rank"
    echo "# columns: platform variant ranks n total exchange local_fft local_transpose copies" \
         "calibration_s slowdown error transposes real_s sampled"
    echo "# sampled k: each exchange ran its first and last k steps and one in each k between," \
         "the ranks' mean time of the rest scaled (fftw_sim --sample; validated in fftw_smpi_sampling.txt)"
}

# ---- Figure --------------------------------------------------------------------
# Fig. 6 (right) of the paper: the distributed transposes and the whole
# transform of each variant relative to stock in place, over the number of
# processes, one panel per platform.  "Transposes" is the exchange with the
# local transposes around it: ours do the local transposition inside the
# transpose (transpose-cycles, charged as copies), stock FFTW in sub-plans
# (charged as local transposes), so only their sum compares.
plot() {
    GNUPLOT=${GNUPLOT:-gnuplot}
    rel=$build/fftw_smpi_relative.dat
    awk '!/^#/ && $5 ~ /^[0-9.]+$/ {
            key = $1 " " $3
            if ($2 == "stock") { total[key] = $5; transposes[key] = $6 + $8 }
            row[NR] = $0
        }
        END {
            for (i in row) {
                split(row[i], f, " ")
                key = f[1] " " f[3]
                if (key in total && f[2] != "stock")
                    printf "%s %s %d %.4f %.4f\n", f[1], f[2], f[3], f[5] / total[key],
                           (f[6] + f[8]) / transposes[key]
            }
        }' "$dat" | sort -k1,1 -k2,2 -k3,3n > "$rel"
    # a panel per platform simulated (gnuplot fails on an empty one)
    platforms=$(cut -d' ' -f1 "$rel" | sort -u)
    panels=$(echo "$platforms" | wc -l)
    [ -n "$platforms" ] || return 0
    {
        echo "set terminal pngcairo size $((600 * panels)),520 font ',10'"
        echo "set output '$OUT/fftw_smpi.png'"
        echo "set multiplot layout 1,$panels title 'In-place 3D r2c FFT, 512 MiB per process (SMPI): time relative to stock FFTW in place'"
        echo "set logscale x 2; set xtics (2, 16, 64, 128, 256, 1024); set grid; set key top left"
        echo "set xlabel 'processes'; set ylabel 'relative runtime'"
        for platform in $platforms; do
            echo "set title '$platform'"
            plots=""
            for v in mpich hsa lsa sa dor; do
                plots="$plots${plots:+, }'< grep \"^$platform $v \" $rel' using 3:5 with linespoints title '$v transposes'"
                plots="$plots, '< grep \"^$platform $v \" $rel' using 3:4 with linespoints dt 2 title '$v FFT'"
            done
            # the pipeline has no transposes of its own: its whole transform only
            plots="$plots, '< grep \"^$platform hsa-pipelined \" $rel' using 3:4 with linespoints dt 2 title 'hsa-pipelined FFT'"
            echo "plot $plots"
        done
        echo "unset multiplot"
    } | "$GNUPLOT"
    echo "fftw_smpi: $dat, $OUT/fftw_smpi.png" >&2
}

# ---- Table -----------------------------------------------------------------------
# The figure's numbers as a Markdown table (docs/results.md's): per platform and p,
# stock in place's simulated seconds, then each variant's transposes / whole
# transform relative to it.
table() {
    awk -v variants="mpich lsa hsa hsa-pipelined sa auto dor" '
        !/^#/ && $5 ~ /^[0-9.]+$/ {
            key = $1 " " $3
            total[key, $2] = $5; transposes[key, $2] = $6 + $8
            size[key] = $4
            if (!(key in seen)) { seen[key] = 1; order[++n] = key }
        }
        END {
            nv = split(variants, v, " ")
            printf "| platform | p | N^3 | stock: transposes, whole (s) |"
            for (i = 1; i <= nv; i++) printf " %s |", v[i]
            printf "\n|---|---|---|---|"
            for (i = 1; i <= nv; i++) printf "---|"
            printf "\n"
            for (k = 1; k <= n; k++) {
                key = order[k]
                if (!((key, "stock") in total)) continue
                split(key, f, " ")
                printf "| %s | %d | %d | %.3f, %.2f |", f[1], f[2], size[key],
                       transposes[key, "stock"], total[key, "stock"]
                for (i = 1; i <= nv; i++)
                    if ((key, v[i]) in total && transposes[key, v[i]] == 0) # pipelined
                        printf " - / %.2f |", total[key, v[i]] / total[key, "stock"]
                    else if ((key, v[i]) in total)
                        printf " %.2f / %.2f |", transposes[key, v[i]] / transposes[key, "stock"],
                               total[key, v[i]] / total[key, "stock"]
                    else printf " not run |"
                printf "\n"
            }
        }' "$dat"
}

# ---- Checks of the sampling and of the solver's precision ----------------------------
# Each variant of each SAMPLE_CHECK case, whole (the figure's row) and
# sampled 1/SAMPLE: the sampled estimate's error on the exchange and on the
# transform, and what each run cost here.
check_sampling() {
    checked=$OUT/fftw_smpi_sampling.dat
    for platform in $PLATFORMS; do
        for case in $SAMPLE_CHECK; do
            for variant in $VARIANTS; do
                run_case "$platform" "${case%%:*}" "${case#*:}" "$variant" 1 "$dat" >/dev/null
                run_case "$platform" "${case%%:*}" "${case#*:}" "$variant" "$SAMPLE" "$checked" \
                    >/dev/null
            done
        done
    done
    compare "$dat" 1 "$checked" "$SAMPLE" "whole, sampled 1/$SAMPLE"
}

# Each variant of each PRECISION_CHECK case at PRECISION (the figure's row)
# and at SimGrid's default, 1e-9: what the coarser solver changes, and saves.
check_precision() {
    checked=$OUT/fftw_smpi_precision.dat chosen=$PRECISION
    for platform in $PLATFORMS; do
        for case in $PRECISION_CHECK; do
            for variant in $VARIANTS; do
                PRECISION=$chosen
                run_case "$platform" "${case%%:*}" "${case#*:}" "$variant" 1 "$dat" >/dev/null
                PRECISION=1e-9
                run_case "$platform" "${case%%:*}" "${case#*:}" "$variant" 1 "$checked" >/dev/null
            done
        done
    done
    PRECISION=$chosen
    compare "$checked" 1 "$dat" 1 "precision 1e-9 (default), $PRECISION"
}

# compare DAT_A STRIDE_A DAT_B STRIDE_B TITLE: a Markdown table of the cases
# run in both, B against A (its error in percent), with each run's real time.
# B's transform is A's with B's exchange in place of A's: what the runs
# compare is their exchanges, and the local work of two runs of one case is
# the same only while they share a calibration file (a new machine measures
# it afresh).  Runs whose plans differ (made by different code) are not
# compared.
compare() {
    echo "| platform | p | variant | exchange: $5 (s) | error | transform (s) | error | real time (s) |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -v ka="$2" -v kb="$4" '
        FNR == 1 { file++ }
        /^#/ || $5 !~ /^[0-9.]+$/ { next }
        { key = $1 SUBSEP $3 SUBSEP $2; k = ($15 == "" ? 1 : $15) }
        file == 1 && k == ka { a[key] = $0 }
        file == 2 && k == kb { b[key] = $0; if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
        END {
            for (i = 1; i <= n; i++) {
                if (!(order[i] in a)) continue
                split(a[order[i]], x, " "); split(b[order[i]], y, " ")
                if (x[13] != y[13]) {
                    printf "| %s | %d | %s | plans differ: %s, %s | | | | %d, %d |\n",
                           x[1], x[3], x[2], x[13], y[13], x[14], y[14]
                    continue
                }
                transform = x[5] + y[6] - x[6]
                printf "| %s | %d | %s | %.4f, %.4f | %+.2f%% | %.3f, %.3f | %+.2f%% | %d, %d |\n",
                       x[1], x[3], x[2], x[6], y[6], 100 * (y[6] / x[6] - 1),
                       x[5], transform, 100 * (transform / x[5] - 1), x[14], y[14]
            }
        }' "$1" "$3"
}

case "$mode" in
plot) plot; table; exit 0 ;;
routes)
    mkdir -p "$build"
    cc -O2 -std=gnu11 -Wall -Wextra -I"$top/alltoall_inplace" -I"$top/bench/smpi" "$top/bench/smpi/route_load.c" \
        "$top"/alltoall_inplace/schedule/schedule_*.c -o "$build/route_load"
    cases="16:1024 64:2048 128:2048 256:2560 1024:4096"
    # shellcheck disable=SC2086 # the cases are a word list
    { "$build/route_load" juropa $cases
      "$build/route_load" juropa --spread 16 1024:4096 | tail -n +3
      "$build/route_load" juqueen $cases | tail -n +3; } | tee "$OUT/route_load.txt"
    exit 0 ;;
build) build_all; exit 0 ;;
check-sampling)
    build_all
    check_sampling | tee "$OUT/fftw_smpi_sampling.txt"
    exit 0 ;;
check-precision)
    build_all
    check_precision | tee "$OUT/fftw_smpi_precision.txt"
    exit 0 ;;
validate)
    build_all
    header
    for np in ${VALIDATE_RANKS:-2 4}; do
        for variant in ${VALIDATE_VARIANTS:-stock hsa}; do
            COMPUTE=yes simulate juropa "$np" 256 "$variant" 1
            simulate juropa "$np" 256 "$variant" 1 --model-here
        done
    done
    exit 0 ;;
esac

build_all
for platform in $PLATFORMS; do
    for case in $CASES; do
        for variant in $VARIANTS; do
            run_case "$platform" "${case%%:*}" "${case#*:}" "$variant" \
                "$(stride_for "${case%%:*}" "$variant")" "$dat"
        done
    done
done
plot
table
