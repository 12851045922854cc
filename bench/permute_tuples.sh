#!/bin/bash
# permute_tuples.sh [-r REPEATS] [-k ROUNDS] [REV ...]
# The in-place permutations of tuples (transpose/tuple-cycles.c) against a
# memcpy of their bytes, on the pipelines' shapes (bench/permute_tuples.c),
# for each revision named (git revisions of this repository; "." or none:
# the working tree), built side by side and run interleaved ROUNDS times
# (default 3), the order rotating each round: this machine is noisy, and
# only runs made together compare.  Prints each shape's median ratio
# (permutation / memcpy) over the rounds, one column per revision.
#
# Environment: FFTW_TREE (a configured FFTW build tree with our solvers, for
# its headers and libfftw3; default build/openmpi/fftw/build), MPICC
# (default mpicc: the FFTW headers include mpi.h).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
repeats=5 rounds=3
while getopts r:k: opt; do
    case "$opt" in
    r) repeats=$OPTARG ;;
    k) rounds=$OPTARG ;;
    *) echo "usage: permute_tuples.sh [-r REPEATS] [-k ROUNDS] [REV ...]" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- .
tree=$(readlink -f "${FFTW_TREE:-$top/build/openmpi/fftw/build}")
src=$(dirname "$tree")/src
if [ ! -f "$tree/config.h" ] || [ ! -d "$src/mpi" ]; then
    echo "permute_tuples: no configured FFTW tree at $tree (scripts/build.sh openmpi)" >&2
    exit 1
fi
lib=$(ls "$tree"/.libs/libfftw3.so 2>/dev/null || ls "$tree"/.libs/libfftw3.a)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

names=()
for rev in "$@"; do
    dir=$work/${#names[@]}
    mkdir -p "$dir"
    for f in tuple-cycles.c tuple-cycles.h; do
        if [ "$rev" = . ]; then cp "$top/transpose/$f" "$dir/"
        else git -C "$top" show "$rev:transpose/$f" > "$dir/$f"; fi
    done
    "${MPICC:-mpicc}" -O3 -std=gnu11 -I"$dir" -I"$tree" -I"$src" -I"$src/api" -I"$src/kernel" \
        -I"$src/mpi" -I"$top/alltoall_inplace" "$top/bench/permute_tuples.c" "$dir/tuple-cycles.c" \
        "$lib" -Wl,-rpath,"$(dirname "$lib")" -lm -o "$dir/permute_tuples"
    names+=("$rev")
done

for ((round = 0; round < rounds; round++)); do
    for ((i = 0; i < ${#names[@]}; i++)); do
        b=$(( (i + round) % ${#names[@]} ))
        "$work/$b/permute_tuples" "$repeats" | grep -v '^#' | sed "s/^/$b /" >> "$work/rows"
    done
done

echo "# median over $rounds rounds of the best of $repeats: permutation / memcpy of its bytes"
printf '# %-22s %8s %7s' shape MB "tuple B"
for rev in "${names[@]}"; do printf ' %12s' "$rev"; done
echo
# rows: build, shape, MB, tuple, cycles, memcpy, permute, ratio
awk -v builds=${#names[@]} '
    { shape = $2; if (!(shape in seen)) { seen[shape] = 1; order[++n] = shape }
      mb[shape] = $3; tuple[shape] = $4; r[shape, $1, ++count[shape, $1]] = $8 }
    function median(shape, b,   k, m, v, i, j, t) {
        m = count[shape, b]
        for (k = 1; k <= m; k++) v[k] = r[shape, b, k]
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        return m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2 }
    END { for (k = 1; k <= n; k++) {
              printf "  %-22s %8.1f %7d", order[k], mb[order[k]], tuple[order[k]]
              for (b = 0; b < builds; b++) printf " %12.2f", median(order[k], b)
              printf "\n" } }' "$work/rows"
