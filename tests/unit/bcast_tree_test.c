/*
 * bcast_tree_test.c - the broadcast trees (bcast/bcast_tree.h), without MPI.
 *
 * For n = 1..1100 members and each tree: every member but the root has one
 * parent, and is among its parent's children exactly once; following the
 * children from the root reaches every member once (a tree, no cycles);
 * the depth is 1 for linear, floor(log2 n) for binary and, for binomial,
 * the most bits set in a member (the rounds it took to get there); members
 * have at most 2 children (binary), the binomial root ceil(log2 n), one per
 * round; and the binomial tree is the paper's rounds: member r receives in
 * round floor(log2 r) and puts in the later rounds k to r + 2^k, in that
 * order.
 */
#include <stdlib.h>

#include "bcast/bcast_tree.h"
#include "check.h"

static int ceil_log2(int n)
{
    int k = 0;
    while ((1LL << k) < n)
        k++;
    return k;
}

static int floor_log2(int n)
{
    int k = 0;
    while ((2LL << k) <= n)
        k++;
    return k;
}

static void check_tree(AIP_Bcast_algorithm tree, const char *name, int n, int *children,
                       int *depth, int *queue)
{
    int reached = 0, head = 0, deepest = 0, widest = 0;

    for (int r = 0; r < n; r++)
        depth[r] = -1;
    CHECK(aip_bcast_parent(tree, 0, n) == -1, "%s n=%d: the root has a parent", name, n);
    depth[0] = 0;
    queue[reached++] = 0;
    while (head < reached) {
        int r = queue[head++];
        int count = aip_bcast_children(tree, r, n, children);
        if (count > widest)
            widest = count;
        for (int i = 0; i < count; i++) {
            int c = children[i];
            CHECK(c > 0 && c < n, "%s n=%d: member %d has child %d", name, n, r, c);
            if (c <= 0 || c >= n)
                continue;
            CHECK(aip_bcast_parent(tree, c, n) == r, "%s n=%d: child %d of %d has parent %d", name,
                  n, c, r, aip_bcast_parent(tree, c, n));
            CHECK(depth[c] == -1, "%s n=%d: member %d reached twice", name, n, c);
            if (depth[c] != -1)
                continue;
            depth[c] = depth[r] + 1;
            if (depth[c] > deepest)
                deepest = depth[c];
            queue[reached++] = c;
            if (tree == AIP_BCAST_BINOMIAL) { /* round k: r -> r + 2^k, rounds increasing */
                int k = floor_log2(c - r);
                CHECK(c - r == 1 << k && (r == 0 || k > floor_log2(r)),
                      "binomial n=%d: %d puts to %d, not in a round after its own", n, r, c);
                CHECK(i == 0 || c > children[i - 1], "binomial n=%d: %d's puts out of order", n,
                      r);
            }
        }
    }
    CHECK(reached == n, "%s n=%d: %d of %d members reached", name, n, reached, n);
    int most_bits = 0;
    for (int r = 0; r < n; r++)
        if (__builtin_popcount((unsigned)r) > most_bits)
            most_bits = __builtin_popcount((unsigned)r);
    int want_depth = tree == AIP_BCAST_LINEAR ? (n > 1) :
                     tree == AIP_BCAST_BINOMIAL ? most_bits : floor_log2(n);
    CHECK(deepest == want_depth, "%s n=%d: depth %d, expected %d", name, n, deepest, want_depth);
    if (tree == AIP_BCAST_BINARY)
        CHECK(widest <= 2, "binary n=%d: %d children", n, widest);
    if (tree == AIP_BCAST_BINOMIAL)
        CHECK(widest == ceil_log2(n), "binomial n=%d: the root puts %d times", n, widest);
}

int main(void)
{
    enum { MAX_N = 1100 };
    static const struct {
        AIP_Bcast_algorithm tree;
        const char *name;
    } trees[] = { { AIP_BCAST_LINEAR, "linear" },
                  { AIP_BCAST_BINOMIAL, "binomial" },
                  { AIP_BCAST_BINARY, "binary" } };
    int *children = malloc(MAX_N * sizeof(int)), *depth = malloc(MAX_N * sizeof(int)),
        *queue = malloc(MAX_N * sizeof(int));

    for (int n = 1; n <= MAX_N; n++)
        for (int t = 0; t < 3; t++)
            check_tree(trees[t].tree, trees[t].name, n, children, depth, queue);
    free(children);
    free(depth);
    free(queue);
    printf("bcast_tree_test: n = 1..%d, 3 trees: %d failures\n", MAX_N, check_failures);
    return check_failures ? 1 : 0;
}
