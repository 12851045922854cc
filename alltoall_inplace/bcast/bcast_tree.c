/*
 * bcast_tree.c - parents and children of the broadcast trees (bcast_tree.h).
 *
 * The paper's binomial pseudo-code loops over rounds once per root; the tree
 * below is what its text describes: after round k the members 0 .. 2^(k+1)-1
 * hold the data, so member r > 0 receives in round floor(log2 r) from
 * r - 2^floor(log2 r), and puts in every later round k to r + 2^k.
 */
#include "bcast/bcast_tree.h"

/* The largest power of two <= r, for r >= 1. */
static int high_bit(int r)
{
    int bit = 1;
    while (bit <= r / 2)
        bit *= 2;
    return bit;
}

int aip_bcast_parent(AIP_Bcast_algorithm tree, int member, int n)
{
    (void)n;
    if (member <= 0)
        return -1;
    switch (tree) {
    case AIP_BCAST_LINEAR:
        return 0;
    case AIP_BCAST_BINOMIAL:
        return member - high_bit(member);
    case AIP_BCAST_BINARY:
    default:
        return (member - 1) / 2;
    }
}

int aip_bcast_children(AIP_Bcast_algorithm tree, int member, int n, int *children)
{
    int count = 0;

    switch (tree) {
    case AIP_BCAST_LINEAR:
        for (int r = 1; member == 0 && r < n; r++)
            children[count++] = r;
        break;
    case AIP_BCAST_BINOMIAL:
        /* Rounds k with 2^k > member: the first round after the one it received in. */
        for (long long bit = member == 0 ? 1 : 2LL * high_bit(member); member + bit < n; bit *= 2)
            children[count++] = member + (int)bit;
        break;
    case AIP_BCAST_BINARY:
    default:
        for (long long child = 2LL * member + 1; child <= 2LL * member + 2 && child < n; child++)
            children[count++] = (int)child;
        break;
    }
    return count;
}
