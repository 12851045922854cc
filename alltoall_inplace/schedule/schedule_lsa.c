/*
 * The Linear Shift Algorithm (Hofmann & Ruenger 2013, Fig. 3).
 *
 *   for i = 0 to p-1:  j = (i - rank + p) mod p;  if j != rank: exchange with j
 *
 * Every process walks the ranks in order, shifted by its own rank, so at each
 * step all processes are paired (the pairing is an involution: j's partner at
 * step i is i - j = rank).  p steps, each process idle in exactly one of them
 * (when 2 rank = i mod p), instead of the 2p - 1 steps of the MPICH
 * algorithm.
 */
#include "schedule.h"

static int lsa_nsteps(int p)
{
    return p;
}

static void lsa_fill(int rank, int p, int *peer)
{
    for (int i = 0, j = p - rank; i < p; i++) { /* j = (i - rank + p) mod p */
        if (j == p)
            j = 0;
        peer[i] = j != rank ? j : AIP_IDLE;
        j++;
    }
}

const aip_schedule aip_schedule_lsa = { "lsa", lsa_nsteps, lsa_fill };
