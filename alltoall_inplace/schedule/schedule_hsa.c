/*
 * The Hierarchical Sets Algorithm (Hofmann & Ruenger 2013, Fig. 4).
 *
 * The set [low, high) of processes is split at mid = floor((low + high) / 2)
 * into a lower half of m = mid - low and an upper half of n = high - mid >= m
 * processes.  First every lower process exchanges with every upper one, in n
 * steps; then both halves recurse independently and at the same time.
 * Exchanges stay within ever smaller sets of neighbouring ranks, which gives
 * better locality on hierarchical machines (nodes, torus partitions) than
 * LSA's rank-wide shift.  Steps: T(p) = ceil(p/2) + T(ceil(p/2)), T(1) = 0;
 * that is p - 1 for a power of two and at most p + ceil(log2 p) - 2
 * otherwise.
 *
 * One change from the paper, in the order of partners within a level: at
 * step i, lower process low + a meets mid + b with a + b = i (mod n), the
 * pairing LSA uses across all ranks, where the paper shifts (b = a + i).
 * Same sets, same steps, same idle slots (an upper process is idle once per
 * level when n = m + 1: where its a would be m).  Why: with ranks filling
 * nodes in order, a shift moves every node's flows by the same offset; on a
 * torus ring an offset of half the ring sends two nodes' flows over each
 * link of one direction, and the other direction idles.  Pairs that sum to
 * a constant go both ways round.  On the Juqueen model at 1024 ranks the
 * busiest link carries 19.8 flows a step under the shift, 16.0 under the
 * sum, and the lockstep estimate of an exchange drops from 5.90 s to
 * 4.78 s (stock FFTW: 4.96 s), and the simulated transposes from 1.03x to
 * 0.93x stock's.  On JuRoPA's fat tree, and at up to 256 ranks on both, the
 * two orders load the links alike; simulated, JuRoPA's exchanges come out
 * the same and Juqueen's 2-2.5% slower at 64-256 ranks, the price taken
 * (bench/smpi/route_load.c, docs/results.md).  For n <= 2 the two orders
 * are the same.
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
            /* step i: partner mid + b, b = (i - a) mod n, a = rank - low */
            for (int i = 0, b = (n - (rank - low)) % n; i < n; i++, b = b + 1 < n ? b + 1 : 0)
                peer[step + i] = mid + b;
        } else {
            /* step i: lower partner low + a, a = (i - b) mod n, b = rank - mid */
            for (int i = 0, a = (n - (rank - mid)) % n; i < n; i++, a = a + 1 < n ? a + 1 : 0)
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
