/*
 * The MPICH algorithm (Hofmann & Ruenger 2013, Fig. 1): the in-place
 * MPI_Alltoall of MPICH, kept as the baseline the other schedules must beat.
 *
 *   for i = 0 to p-1:  for j = i to p-1:
 *       if i == rank: exchange with j   else if j == rank: exchange with i
 *
 * Every process walks the same double loop, so the pair (i, j) is reached
 * after i + j earlier iterations of the busiest process: the exchange of
 * (i, j) happens at step i + j, 2p - 1 steps in all, with many processes idle
 * at the beginning and the end.  Rank r is busy at steps r .. r + p - 1 and
 * meets rank s - r at step s; we compute that directly instead of running
 * the O(p^2) loop, and skip the exchange of a process with itself (step 2r),
 * which MPICH performs and which moves no data in place.
 */
#include "schedule.h"

static int mpich_nsteps(int p)
{
    return p > 0 ? 2 * p - 1 : 0;
}

static void mpich_fill(int rank, int p, int *peer)
{
    int nsteps = mpich_nsteps(p);

    for (int s = 0; s < nsteps; s++) {
        int j = s - rank;
        peer[s] = (j >= 0 && j < p && j != rank) ? j : AIP_IDLE;
    }
}

const aip_schedule aip_schedule_mpich = { "mpich", mpich_nsteps, mpich_fill };
