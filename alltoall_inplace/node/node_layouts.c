/*
 * node_layouts.c - the rank tables of a shape, and l's block layouts at the
 * leaders with the in-place permutation between them (nodes.h).  No
 * communication.
 *
 * Why l permutes: a leader exchanges one contiguous segment per node, but
 * what it gathered is ordered by source rank.  Moving blocks inside the
 * buffer is a permutation; following its cycles moves every byte once
 * through a temporary as small as the aux budget, where a copy into a second
 * buffer would cost as much memory as the data.  (sa and rd need no
 * permutation: their steps exchange lists of blocks where they lie.)
 */
#include <string.h>

#include "nodes.h"

int aip_shape_two_level(const aip_shape *shape)
{
    return shape->smallest == shape->per_node && shape->nodes > 1 && shape->per_node > 1;
}

void aip_shape_rank_tables(const aip_shape *shape, int *rank_at, int *by_local)
{
    int n = shape->nodes, q = shape->per_node;
    for (int j = 0; j < shape->size; j++) {
        rank_at[shape->node_of[j] * q + shape->local_of[j]] = j;
        by_local[shape->local_of[j] * n + shape->node_of[j]] = j;
    }
}

void aip_layout_leader_send(const aip_shape *shape, int *dest)
{
    int p = shape->size, q = shape->per_node;
    for (int x = 0; x < q; x++)
        for (int j = 0; j < p; j++)
            dest[x * p + j] = (shape->node_of[j] * q + shape->local_of[j]) * q + x;
}

void aip_layout_leader_receive(const aip_shape *shape, int *dest)
{
    int p = shape->size, n = shape->nodes, q = shape->per_node;
    for (int a = 0; a < n; a++)
        for (int y = 0; y < q; y++)
            for (int x = 0; x < q; x++)
                dest[(a * q + y) * q + x] = y * p + shape->rank_at[a * q + x];
}

void aip_permute_blocks(char *buf, size_t block_bytes, int nblocks, const int *dest, char *temp,
                        size_t temp_bytes, int *scratch)
{
    int *source = scratch;                /* source[dest[i]] = i: who moves into position k */
    int *visited = scratch + nblocks;
    int *leaders = scratch + 2 * nblocks; /* one position of each cycle longer than 1 */
    int ncycles = 0;

    for (int i = 0; i < nblocks; i++) {
        source[dest[i]] = i;
        visited[i] = 0;
    }
    for (int i = 0; i < nblocks; i++) {
        if (visited[i] || dest[i] == i)
            continue;
        for (int k = i; !visited[k]; k = dest[k])
            visited[k] = 1;
        leaders[ncycles++] = i;
    }

    /* Piece by piece of the blocks, each cycle: park the leader's piece, pull
     * every other piece of the cycle one position forward, unpark. */
    for (size_t done = 0; done < block_bytes; done += temp_bytes) {
        size_t len = block_bytes - done < temp_bytes ? block_bytes - done : temp_bytes;
        for (int c = 0; c < ncycles; c++) {
            int first = leaders[c], k = first;
            memcpy(temp, buf + (size_t)first * block_bytes + done, len);
            for (int from = source[k]; from != first; k = from, from = source[k])
                memcpy(buf + (size_t)k * block_bytes + done, buf + (size_t)from * block_bytes + done,
                       len);
            memcpy(buf + (size_t)k * block_bytes + done, temp, len);
        }
    }
}
