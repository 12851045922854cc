#!/bin/sh
# tuple_cycles.sh - the in-place permutations of tuples
# (transpose/tuple-cycles.c: HSA's local transposes, the pipelines'
# layouts) against references written from their definitions, without
# MPI (tests/fftw/tuple_cycles.c says which).  tuple-cycles.c is compiled
# here against the configured FFTW tree, for its internal headers and
# libfftw3's allocator, as bench/permute_tuples.sh does.
#
# Environment (from make check): FFTW_BUILD (FFTW's configured build
# tree), MPICC (FFTW's MPI headers include mpi.h).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tree=${FFTW_BUILD:?"FFTW_BUILD: the FFTW build tree (make check sets it)"}
tree=$(readlink -f "$tree")
src=$(dirname "$tree")/src
lib=$(ls "$tree"/.libs/libfftw3.so 2>/dev/null || ls "$tree"/.libs/libfftw3.a 2>/dev/null)
[ -f "$tree/config.h" ] && [ -n "$lib" ] || { echo "FAIL: no configured FFTW tree at $tree"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"${MPICC:-mpicc}" -O1 -g -std=gnu11 -Wall -I"$top/transpose" -I"$tree" -I"$src" -I"$src/api" \
    -I"$src/kernel" -I"$src/mpi" -I"$top/alltoall_inplace" "$here/tuple_cycles.c" \
    "$top/transpose/tuple-cycles.c" "$lib" -Wl,-rpath,"$(dirname "$lib")" -lm \
    -o "$work/tuple_cycles" || { echo "FAIL: tuple_cycles.c does not build"; exit 1; }
"$work/tuple_cycles"
