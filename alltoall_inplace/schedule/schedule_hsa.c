/*
 * The Hierarchical Sets Algorithm (Hofmann & Ruenger 2013, Fig. 4).
 *
 * The set [low, high) of processes is split at mid = floor((low + high) / 2)
 * into a lower half of m = mid - low and an upper half of n = high - mid >= m
 * processes.  First every lower process exchanges with every upper one, in n
 * steps of a linear shift: at step i, lower process low + a meets
 * mid + (a + i) mod n.  Then both halves recurse independently and at the
 * same time.  Exchanges stay within ever smaller sets of neighbouring ranks,
 * which gives better locality on hierarchical machines (nodes, torus
 * partitions) than LSA's rank-wide shift.
 *
 * The paper gives each upper process its list of partners (lines 12-17);
 * here the upper process u = mid + d takes the step of each partner from the
 * lower side's formula, so both partners agree on the step and the upper
 * process is idle where no lower process maps to it (once per level when
 * n = m + 1).  The order of partners is exactly the paper's.  Steps:
 * T(p) = ceil(p/2) + T(ceil(p/2)), T(1) = 0; that is p - 1 for a power of
 * two and at most p + ceil(log2 p) - 2 otherwise.
 */
#include "schedule.h"

static int hsa_nsteps(int p)
{
    int steps = 0;
    for (int size = p; size > 1; size -= size / 2)
        steps += size - size / 2;
    return steps;
}

static void hsa_fill(int rank, int p, int *peer)
{
    int low = 0, high = p, step = 0, nsteps = hsa_nsteps(p);

    for (int s = 0; s < nsteps; s++)
        peer[s] = AIP_IDLE;

    while (high - low > 1) {
        int mid = low + (high - low) / 2;
        int m = mid - low, n = high - mid;

        if (rank < mid) {
            /* step i: partner mid + (a + i) mod n, a = rank - low */
            for (int i = 0, b = rank - low; i < n; i++, b = b + 1 < n ? b + 1 : 0)
                peer[step + i] = mid + b;
        } else {
            /* step i: lower partner low + a with a = (d - i) mod n, d = rank - mid */
            for (int i = 0, a = rank - mid; i < n; i++, a = a > 0 ? a - 1 : n - 1)
                peer[step + i] = a < m ? low + a : AIP_IDLE;
        }
        step += n;
        if (rank < mid)
            high = mid;
        else
            low = mid;
    }
}

const aip_schedule aip_schedule_hsa = { "hsa", hsa_nsteps, hsa_fill };
