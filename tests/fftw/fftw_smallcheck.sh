#!/bin/sh
# fftw_smallcheck.sh - FFTW's own MPI checks (make -C mpi smallcheck:
# tests/check.pl --mpi over random transforms on 1-4 ranks and on 3 ranks
# with 2 threads, each verified against FFTW's reference) with each of our
# algorithms (tests/unit/algorithms: the library's table) forced through
# FFTW_MPI_INPLACE_ALGORITHM.  Forcing a symmetric one, the random in-place
# problems that are uneven go to the general one; forcing general, all do.  The
# node-aware ones run on nodes of 2 consecutive ranks (AIP_RANKS_PER_NODE=2):
# 2 x 2 on 4 ranks, hsa where the nodes are unequal (3 ranks) or one (1, 2
# ranks); l where its leaders' space fits the budget, else sa.  Last,
# hsa-pipelined: the pipelined transforms of rank >= 2 wherever they take
# a random problem (fftw_pipelined.sh says where).
#
# The table's first algorithm (hsa) runs FFTW's whole smallcheck; the others its
# random checks on 2, 3 and 4 ranks only, since 1 rank exchanges nothing
# and the threads (3 ranks x 2) change no exchange, only the local work
# between them.  Under MPICH, whose busy polling makes oversubscribed FFTW
# runs 20-40x slower here (2.5 minutes an algorithm), only hsa runs, and
# with it the general algorithm on the uneven problems, on 2 and 3 ranks:
# what differs between the symmetric algorithms is their schedule, which
# alltoall.sh checks byte for byte under both MPIs, and fftw_sa.sh runs sa
# through FFTW under both.
#
# Environment (from make check): MPIRUN, FFTW_BUILD, MPI_FLAVOR, TESTBIN.
set -u
export AIP_RANKS_PER_NODE=2
algorithms="$("$TESTBIN/unit/algorithms") hsa-pipelined"
counts="2 3 4"
whole=$("$TESTBIN/unit/algorithms" | head -n 1)
[ "${MPI_FLAVOR:-}" = mpich ] && algorithms=hsa counts="2 3" whole=none

# check_pl NP: FFTW's random checks on NP ranks, as its smallcheck runs them.
check_pl() {
    perl -w "$FFTW_BUILD/../src/tests/check.pl" --verbose --random --maxsize=10000 -c=2 \
        --mpi "$MPIRUN -np $1 $FFTW_BUILD/mpi/mpi-bench"
}

for algorithm in $algorithms; do
    echo "== FFTW smallcheck, FFTW_MPI_INPLACE_ALGORITHM=$algorithm"
    export FFTW_MPI_INPLACE_ALGORITHM="$algorithm"
    if [ "$algorithm" = "$whole" ]; then
        make -s -C "$FFTW_BUILD/mpi" smallcheck MPIRUN="$MPIRUN" ||
            { echo "FAIL: FFTW smallcheck with $algorithm"; exit 1; }
    else
        for np in $counts; do
            check_pl "$np" ||
                { echo "FAIL: FFTW's random checks on $np ranks with $algorithm"; exit 1; }
        done
    fi
done
