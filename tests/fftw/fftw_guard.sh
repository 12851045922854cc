#!/bin/sh
# fftw_guard.sh - no in-place transform of the patched FFTW reads or writes
# outside the array that fftw_mpi_local_size_* sized, on any rank, in
# planning, executing or destroying, and each gives FFTW's serial result:
# fftw_guard_test (its opening comment says how) on p = 2..7 ranks split
# into two emulated nodes, with every algorithm of the library's table
# forced in turn, auto, hsa-pipelined (the pipelined transforms) and the
# default (unset: MEASURE lets everything compete, the pipelined transforms
# among them since the ranks span two nodes), each on random shapes of
# every kind, layout and planner, and all but the symmetric ones also on
# the shapes of the overflow once found (first dimension smaller than p,
# MEASURE).  One seed per run, printed; AIP_TEST_SEED=<seed> replays it.
#
# MPICH's busy polling makes oversubscribed FFTW planning slow here (3 ranks
# take minutes where 2 take seconds), so it runs 2 and 3 ranks: ranks with
# rows and without, which is what the layouts depend on.
# FFTW_GUARD_RANKS replaces the list of rank counts.
#
# Environment (from make check): MPIRUN, TESTBIN, MPI_FLAVOR.
set -u
seed=${AIP_TEST_SEED:-$(date +%s)}
echo "seed $seed"
algorithms="$("$TESTBIN/unit/algorithms" | tr '\n' ' ')auto hsa-pipelined default"
ranks="2 3 4 5 6 7" random=4
[ "${MPI_FLAVOR:-}" = mpich ] && ranks="2 3" random=2
status=0
for np in ${FFTW_GUARD_RANKS:-$ranks}; do
    "$MPIRUN" "$np" "$TESTBIN/fftw/fftw_guard_test" --seed "$seed" --random "$random" \
        --algorithms "$algorithms" || status=1
done
exit $status
