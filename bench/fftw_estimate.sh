#!/bin/bash
# fftw_estimate.sh [-r ROUNDS] [-b BUILD] [-R LIBDIR] [PROBLEM ...]
# How fast FFTW_ESTIMATE's serial plans run with fftw-patches/0007, which
# charges the estimate for the cache misses of loops of strided transforms,
# against a library without it, in one interleaved run.  FFTW's own bench
# program (tests/bench of the patched build) times each PROBLEM (its syntax:
# icf256x256 an in-place forward c2c, o out of place, r r2c, k r2r;
# n:is:os a dimension with strides, * a vector) three ways:
#
#   reference  FFTW_ESTIMATE, on the library in LIBDIR (-R; default Debian's
#              libfftw3, which has not the patch)
#   patched    FFTW_ESTIMATE, on the patched libfftw3 of the build
#   measure    FFTW_MEASURE, on the patched libfftw3: what the estimate
#              would find if it timed
#
# The same binary runs all three, the library chosen by LD_LIBRARY_PATH.
# Each round runs every problem's three in turn; the table gives each one's
# least time over the rounds (bench's own min of its repeats), the ratios
# patched / reference and patched / measure, and how the two ESTIMATE plans
# differ: "same", "gathers" (the patched plan buffers, with dft-buffered or
# rdft-buffered, and the reference's does not), "more buffers" or
# "differs".  Debian's build differs from ours in its SIMD codelets too
# (--enable-avx2), so against it even "same" problems differ a little; -R
# with a build of this project before the patch isolates the patch.
#
# The default problems: the local FFTs of a 256^3 c2c on 2 ranks (each
# rank's 2D planes, then its first dimension 512 KiB apart), 2D and 3D
# transforms in place and out of place, r2c, an r2r and a 1D one.
#
#   -r ROUNDS  default 3
#   -b BUILD   build/$MPI of this project (default build/openmpi)
#   -R LIBDIR  the reference library's directory (default Debian's)
#
# Run it on a quiet machine; with the defaults it takes about four minutes (the
# MEASURE plans of the large problems take seconds each).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
rounds=3
build=$top/build/openmpi
reference=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
while getopts r:b:R: opt; do
    case $opt in
    r) rounds=$OPTARG ;;
    b) build=$OPTARG ;;
    R) reference=$OPTARG ;;
    *) sed -n '2,35p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
problems=("$@")
[ ${#problems[@]} -gt 0 ] || problems=(
    "icf256x256*128" "icf256:32768:32768*32768:1:1"
    icf256x256 icf512x512 icf1024x1024 icf2048x2048 icf384x384 icf1000x1000
    icf640x480 ocf512x512 icf64x64x64 icf128x128x128 icf256x256x256
    irf512x512 irf1024x1024 irf256x256x256 "ik256:512:512f*512:1:1"
    icf1048576)

bench=$build/fftw/build/tests/.libs/bench
patched=$build/fftw/lib
[ -x "$bench" ] || { echo "fftw_estimate.sh: no $bench (scripts/build.sh first)" >&2; exit 1; }
[ -e "$reference/libfftw3.so.3" ] ||
    { echo "fftw_estimate.sh: no libfftw3.so.3 in $reference" >&2; exit 1; }
for lib in "$patched" "$reference"; do
    ls "$lib"/libfftw3_threads.so.3 > /dev/null ||
        { echo "fftw_estimate.sh: $lib has no libfftw3_threads.so.3, which bench needs" >&2; exit 1; }
done

# run VARIANT PROBLEM: prints bench's least time in seconds
run() {
    local lib=$patched planner=(-o estimate)
    case $1 in
    reference) lib=$reference ;;
    measure) planner=() ;; # bench's default
    esac
    LD_LIBRARY_PATH=$lib "$bench" --report-benchmark "${planner[@]}" -s "$2" | awk '{print $2}'
}

# plans PROBLEM: how the patched ESTIMATE plan differs from the
# reference's: "same", "gathers" (it buffers and the reference's does not),
# "more buffers" (a, b: the buffered solvers in each) or "differs"
plans() {
    local mine theirs a b
    mine=$(LD_LIBRARY_PATH=$patched "$bench" -v2 -o estimate -s "$1" | grep '^ *(')
    theirs=$(LD_LIBRARY_PATH=$reference "$bench" -v2 -o estimate -s "$1" | grep '^ *(')
    a=$(grep -c buffered <<< "$theirs" || true)
    b=$(grep -c buffered <<< "$mine" || true)
    if [ "$mine" = "$theirs" ]; then echo same
    elif [ "$a" -eq 0 ] && [ "$b" -gt 0 ]; then echo gathers
    elif [ "$b" -gt "$a" ]; then echo "more buffers ($a, $b)"
    else echo differs; fi
}

declare -A best
variants="reference patched measure"
for ((round = 1; round <= rounds; round++)); do
    for p in "${problems[@]}"; do
        for v in $variants; do
            t=$(run "$v" "$p")
            key="$p|$v"
            if [ -z "${best[$key]:-}" ] || awk "BEGIN{exit !($t < ${best[$key]})}"; then
                best[$key]=$t
            fi
        done
    done
    echo "round $round of $rounds done" >&2
done

echo "# FFTW_ESTIMATE with and without fftw-patches/0007; least time of $rounds rounds"
echo "# reference: $reference/libfftw3.so.3; patched: $patched"
printf '%-30s %12s %12s %12s %9s %9s  %s\n' problem reference patched measure \
    patched/ref patched/meas plans
for p in "${problems[@]}"; do
    r=${best[$p|reference]} e=${best[$p|patched]} m=${best[$p|measure]}
    awk -v p="$p" -v r="$r" -v e="$e" -v m="$m" -v g="$(plans "$p")" 'BEGIN {
        printf "%-30s %10.3f ms %9.3f ms %9.3f ms %9.2f %9.2f  %s\n",
               p, r * 1e3, e * 1e3, m * 1e3, e / r, e / m, g }'
done
