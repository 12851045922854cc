#!/bin/sh
# main.sh [--mpi openmpi|mpich] [-n RANKS] [benchmark options...]
# Install what is missing, build, and run the main job: the in-place
# all-to-all benchmark (bench/alltoall_bench), which compares the MPI
# library's out-of-place and in-place alltoall with our MPICH, LSA and HSA
# algorithms, printing time, bandwidth and peak extra memory per rank.
# Default: Open MPI, 2 ranks, 64 MiB per process.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
mpi=openmpi
np=2
while [ $# -gt 0 ]; do
    case "$1" in
    --mpi) mpi=$2; shift 2 ;;
    -n) np=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || set -- -s 64M -r 10

"$top/scripts/install-deps.sh"
"$top/scripts/build.sh" "$mpi"
exec "$top/build/$mpi/tests/mpirun.sh" "$np" "$top/build/$mpi/bench/alltoall_bench" "$@"
