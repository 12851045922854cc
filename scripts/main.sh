#!/bin/sh
# main.sh [--mpi openmpi|mpich] [-n RANKS] [-s N|N0xN1xN2] [-p measure|estimate|patient]
# Install what is missing, build liballtoall_inplace and the patched FFTW,
# and run the main job (bench/fftw_inplace.sh): mpi-bench on an in-place 3D
# real forward transform, stock FFTW in-place vs our HSA and LSA transposes
# (our general one where the ranks do not divide the transposed dimensions)
# vs stock out-of-place (preserving and destroying its input), with time per
# transform, peak resident memory per rank and the plan's transposes.
# Default: Open MPI, ir256x256x256 on 2 ranks, FFTW_MEASURE; the paper's
# case is -s 512.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mpi=openmpi
case "${1:-}" in --mpi) mpi=$2; shift 2 ;; esac

"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" "$mpi"
export AIP_TEST_TIMEOUT="${AIP_TEST_TIMEOUT:-3600}" # 512^3 plans for minutes
MPIRUN="$top/build/$mpi/tests/mpirun.sh" MPIBENCH="$top/build/$mpi/fftw/bin/mpi-bench" \
    exec "$top/bench/fftw_inplace.sh" "$@"
