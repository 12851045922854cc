/*
 * bcast_tree.h - the trees of AIP_Bcast_rma (Abuelsoud & Paznikov), as pure
 * functions of (member, n): who puts the data into whom.
 *
 * Members are numbered relative to the root's (0 .. n-1); AIP_Bcast_rma's
 * members are nodes.  Children are listed in the order of the paper's
 * rounds, the order a member puts to them.  Tested without MPI
 * (tests/unit/bcast_tree_test.c).
 */
#ifndef AIP_BCAST_TREE_H
#define AIP_BCAST_TREE_H

#include "alltoall_inplace.h"

/*
 *   linear    the root puts to 1, 2, ..., n-1: one level, n-1 puts at the root
 *   binomial  in round k every member r < 2^k that holds the data puts it to
 *             r + 2^k: ceil(log2 n) rounds, the root putting in each
 *   binary    member r puts to 2r + 1 and 2r + 2: floor(log2 n) levels, at
 *             most two puts per member, which is what a pipeline of chunks
 *             wants (a member forwards chunk k while it receives chunk k+1)
 * `tree` is one of AIP_BCAST_LINEAR, _BINOMIAL, _BINARY.
 */

/* The member that puts to `member`; -1 for the root. */
int aip_bcast_parent(AIP_Bcast_algorithm tree, int member, int n);

/* The members `member` puts to, in order, into children[] (room for n - 1);
 * returns how many. */
int aip_bcast_children(AIP_Bcast_algorithm tree, int member, int n, int *children);

#endif /* AIP_BCAST_TREE_H */
