/*
 * The hypercube all-to-all (Plimpton, Brightwell, Vaughan, Underwood &
 * Davis, "A Simple Synchronous Distributed-Memory Algorithm for the HPCC
 * RandomAccess Benchmark", Cluster 2006, Sect. 2 and Fig. 2), in place.
 *
 * A pairwise exchange sends p - 1 messages per rank; routing every block
 * dimension by dimension sends ceil(log2 p), each carrying about half the
 * buffer.  Volume grows by log2(p) / 2, start-ups shrink from p - 1 to
 * log2 p: the trade for blocks so small that start-up costs dominate.
 *
 * Write (s, t) for the block rank s has for rank t.  In place, the blocks a
 * rank receives at a stage take the positions of those it sends, which
 * needs equal blocks and equal counts each way; the proofs below show where
 * every block is, so that the received ones land where the sent ones were.
 *
 * p = 2^n: the paper's dimension exchange.  Stage k pairs x with x ^ 2^k.
 *   Invariant before stage k: rank x holds the blocks (s, t) with t equal to
 *   x on bits < k and s equal to x on bits >= k, block (s, t) at the
 *   position made of t's bits >= k and s's bits < k.  (Stage 0: rank s holds
 *   (s, t) at position t.)  Stage k: x sends the blocks whose t differs
 *   from x in bit k, i.e. those at the positions whose bit k differs from
 *   x's, in increasing order.  They reach x ^ 2^k, which agrees with t on
 *   bit k; their position there has bit k replaced by s's, which is x's:
 *   position ^ 2^k.  The positions x ^ 2^k sent from are those whose bit k
 *   differs from its own, i.e. equals x's: exactly position ^ 2^k of ours,
 *   in the same order.  Kept blocks have t's bit k = x's = s's: they stay.
 *   After stage n - 1, rank t holds (s, t) at position s: home, no
 *   permutation.  The paper's keep-list/send-list split is the split of
 *   positions by bit k; its "append" is the replacement in place.
 *
 * Other p: the index algorithm of Bruck, Ho, Kipnis & Weathersby (SPAA
 * 1994, the paper's reference [2], which it suggests for this case), with
 * positions rotated so that no initial rotation is needed.  Let
 * j = (t - s) mod p be a block's distance; stage k sends every block whose
 * distance has bit k set to x + 2^k and receives from x - 2^k (mod p).
 *   Invariant before stage k: block (s, t) is on rank s + (j mod 2^k), at
 *   position (that rank + j) mod p.  (Stage 0: rank s, position t.)  Stage
 *   k: x sends its positions x + j with bit k of j set, in increasing j; on
 *   x + 2^k the same j gives position x + 2^k + j, which is the invariant
 *   for k + 1, and those are the positions x + 2^k sent from, with the same
 *   list of j in the same order.  After ceil(log2 p) stages j mod 2^K = j:
 *   rank t holds (s, t) at position 2t - s mod p.  The home permutation
 *   s <-> 2t - s is an involution: one pass of pairwise swaps.
 * Why not the paper's odd partitions: they load-balance by sending unequal
 * parts to two partners, so a rank would receive more than it sent at some
 * stage, which breaks the in-place replacement; they also take two
 * messages per stage where this takes one each way, in ceil(log2 p) stages
 * like the paper's recursive halving.  The price is the final pass of
 * local copies, small next to the messages where this algorithm is chosen.
 *
 * Volume per stage: p / 2 blocks for a power of two, #{j < p : bit k of j}
 * <= p / 2 otherwise, equal on every rank.
 */
#include "hypercube.h"

static int power_of_two(int p)
{
    return (p & (p - 1)) == 0;
}

int aip_hypercube_nstages(int p)
{
    int stages = 0;
    while ((1LL << stages) < p)
        stages++;
    return stages;
}

aip_hypercube_stage aip_hypercube_stage_of(int rank, int p, int k, int *positions)
{
    int bit = 1 << k, count = 0;

    if (power_of_two(p)) {
        for (int position = 0; position < p; position++)
            if ((position & bit) != (rank & bit))
                positions[count++] = position;
        return (aip_hypercube_stage){ rank ^ bit, rank ^ bit, count };
    }
    for (int j = bit; j < p; j++)
        if (j & bit)
            positions[count++] = (int)(((long long)rank + j) % p);
    return (aip_hypercube_stage){ (int)(((long long)rank + bit) % p),
                                  (int)(((long long)rank - bit + p) % p), count };
}

int aip_hypercube_home(int rank, int p, int s)
{
    if (power_of_two(p))
        return s;
    return (int)(((2LL * rank - s) % p + p) % p);
}
