/*
 * node_layouts.c - the block layouts of the node-aware exchanges and the
 * in-place permutation between them (nodes.h).  No communication.
 *
 * Why permute at all: each step of sa and rd is an in-place exchange in
 * which one peer's data is one contiguous segment, but what a rank sends in
 * step 2 is spread over every segment it received in step 1 (a block from
 * each rank of its node, for every node).  Moving blocks inside the buffer
 * between the steps is a permutation; following its cycles moves every byte
 * once through a temporary as small as the aux budget, where a copy into a
 * second buffer would cost as much memory as the data.
 */
#include <string.h>

#include "nodes.h"

int aip_shape_two_level(const aip_shape *shape)
{
    return shape->smallest == shape->per_node && shape->nodes > 1 && shape->per_node > 1;
}

void aip_layout_by_local(const aip_shape *shape, int *dest)
{
    for (int j = 0; j < shape->size; j++)
        dest[j] = shape->local_of[j] * shape->nodes + shape->node_of[j];
}

void aip_layout_by_node(const aip_shape *shape, int *dest)
{
    for (int j = 0; j < shape->size; j++)
        dest[j] = shape->node_of[j] * shape->per_node + shape->local_of[j];
}

void aip_layout_transpose(int rows, int cols, int *dest)
{
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            dest[r * cols + c] = c * rows + r;
}

void aip_layout_from_node_major(const aip_shape *shape, int *dest)
{
    for (int i = 0; i < shape->size; i++)
        dest[i] = shape->rank_at[i];
}

void aip_layout_from_local_major(const aip_shape *shape, int *dest)
{
    int n = shape->nodes, q = shape->per_node;
    for (int x = 0; x < q; x++)
        for (int a = 0; a < n; a++)
            dest[x * n + a] = shape->rank_at[a * q + x];
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

void aip_scatter_blocks(char *buf, const char *src, size_t block_bytes, int nblocks,
                        const int *dest)
{
    for (int i = 0; i < nblocks; i++)
        memcpy(buf + (size_t)dest[i] * block_bytes, src + (size_t)i * block_bytes, block_bytes);
}
