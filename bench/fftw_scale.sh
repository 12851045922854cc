#!/bin/sh
# fftw_scale.sh [--mpi openmpi|mpich] [-l MARGIN_MIB] - the paper's real
# scales that fit this machine (Hofmann & Ruenger, EuroMPI 2013, Sect. 4.4:
# 512^3 on 2 processes, 1024^3 on 16), run for real with FFTW_ESTIMATE:
#
#   1. ir1024x1024x1024 on 2 ranks (4 GiB per rank): every variant of the
#      main job (bench/fftw_inplace.sh), time and peak RSS; 3 timed runs;
#   2. the same with each rank limited to its local array + MARGIN MiB of
#      private memory (default 64): which variants complete, and their peak;
#   3. ir512x512x512 on 2 ranks, limited alike: what ours holds beyond the
#      local array and the MPI runtime must not grow with N;
#   4. ir1024x1024x1024 on 16 ranks (512 MiB each), oversubscribed:
#      tests/fftw/fftw_memory_test, stock FFTW and ours (hsa), every output
#      coefficient checked against the plane waves' transform, and the peak
#      RSS per rank; its times mean nothing on 2 cores.
#
# Needs about 21 GiB of memory (stock out of place at 1024^3 holds 2.5 local
# arrays per rank) and 10-25 minutes.  Builds first (scripts/build.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mpi=openmpi margin=64
while [ $# -gt 0 ]; do
    case "$1" in
    --mpi) mpi=$2; shift 2 ;;
    -l) margin=$2; shift 2 ;;
    *) echo "usage: fftw_scale.sh [--mpi openmpi|mpich] [-l MARGIN_MIB]" >&2; exit 2 ;;
    esac
done
"$top/scripts/build.sh" "$mpi" > /dev/null
make -C "$top/build/$mpi" tests/fftw/fftw_memory_test > /dev/null
export MPIRUN="$top/build/$mpi/tests/mpirun.sh" MPIBENCH="$top/build/$mpi/fftw/bin/mpi-bench"
export AIP_TEST_TIMEOUT=3600
main_job() { "$top/bench/fftw_inplace.sh" -n 2 -p estimate -r 3 "$@"; }

echo "== 1. 1024^3 on 2 ranks ($mpi)"
main_job -s 1024
echo
echo "== 2. 1024^3 on 2 ranks, each under local array + $margin MiB"
main_job -s 1024 -l "$margin"
echo
echo "== 3. 512^3 on 2 ranks, each under local array + $margin MiB"
main_job -s 512 -l "$margin"
echo
echo "== 4. 1024^3 on 16 ranks, oversubscribed: correctness and memory (times mean nothing on 2 cores)"
for algorithm in off hsa; do
    FFTW_MPI_INPLACE_ALGORITHM=$algorithm "$MPIRUN" 16 "$top/build/$mpi/tests/fftw_memory_test" \
        -s 1024x1024x1024
done
