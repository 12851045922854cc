/*
 * node_sim_test - the layouts and the in-place permutation of the
 * node-aware exchanges (node_layouts.c), without MPI: whole sa, rd and l
 * exchanges run on p simulated processes, each MPI step played by swapping
 * segments between their buffers, and every process must end with what
 * MPI_Alltoall would give it.
 *
 * Shapes: n = 1..7 nodes of q = 1..6 ranks, each with block placement,
 * cyclic placement and a random placement of ranks on nodes; blocks of 1 to
 * 40 bytes, permutation temporaries from 1 byte (a piece of every block of a
 * cycle at a time) to larger than a block, in place and out of place (the
 * first layout copied from a send buffer).  Also: aip_permute_blocks against
 * aip_scatter_blocks on random permutations.
 *
 *   node_sim_test [--seed N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nodes.h"

static uint64_t rng_state;

static uint64_t next_random(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int below(int n)
{
    return (int)(next_random() % (uint64_t)n);
}

/* Byte k of the block `from` sends to `to`. */
static char element(int from, int to, size_t k)
{
    return (char)(from * 131 + to * 17 + (int)k * 7 + 1);
}

/* A simulated machine: shape, buffers, and scratch for the permutations. */
typedef struct machine {
    aip_shape shape;
    int *node_of, *local_of, *rank_at;
    char **buf;
    size_t block;
    size_t temp_bytes;
    char *temp;
    int *dest, *scratch;
} machine;

typedef enum { BLOCK, CYCLIC, RANDOM } placement;

static void build(machine *m, int n, int q, placement place, size_t block)
{
    int p = n * q;
    m->node_of = malloc(sizeof(int) * (size_t)p);
    m->local_of = malloc(sizeof(int) * (size_t)p);
    m->rank_at = malloc(sizeof(int) * (size_t)p);
    for (int slot = 0; slot < p; slot++) /* slot a * q + x */
        m->rank_at[slot] = place == BLOCK ? slot : place == CYCLIC ? (slot % q) * n + slot / q
                                                                   : slot;
    if (place == RANDOM)
        for (int i = p - 1; i > 0; i--) {
            int j = below(i + 1), t = m->rank_at[i];
            m->rank_at[i] = m->rank_at[j];
            m->rank_at[j] = t;
        }
    for (int slot = 0; slot < p; slot++) {
        m->node_of[m->rank_at[slot]] = slot / q;
        m->local_of[m->rank_at[slot]] = slot % q;
    }
    m->shape = (aip_shape){ p, n, q, q, m->node_of, m->local_of, m->rank_at };
    m->block = block;
    m->buf = malloc(sizeof(char *) * (size_t)p);
    for (int r = 0; r < p; r++) {
        m->buf[r] = malloc((size_t)p * block);
        for (int j = 0; j < p; j++)
            for (size_t k = 0; k < block; k++)
                m->buf[r][(size_t)j * block + k] = element(r, j, k);
    }
    size_t nblocks = (size_t)q * (size_t)p; /* l's leaders permute q * p blocks */
    m->temp_bytes = 1 + (size_t)below((int)(2 * block));
    m->temp = malloc(m->temp_bytes);
    m->dest = malloc(sizeof(int) * nblocks);
    m->scratch = malloc(sizeof(int) * 3 * nblocks);
}

static void destroy(machine *m)
{
    for (int r = 0; r < m->shape.size; r++)
        free(m->buf[r]);
    free(m->buf);
    free(m->node_of);
    free(m->local_of);
    free(m->rank_at);
    free(m->temp);
    free(m->dest);
    free(m->scratch);
}

static void swap_bytes(char *a, char *b, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++) {
        char t = a[i];
        a[i] = b[i];
        b[i] = t;
    }
}

/* The first layout of rank r: in place, or copied from a send buffer. */
static void first_layout(machine *m, int r, int out_of_place)
{
    size_t bytes = (size_t)m->shape.size * m->block;
    if (out_of_place) {
        char *send = malloc(bytes);
        memcpy(send, m->buf[r], bytes);
        memset(m->buf[r], 0, bytes);
        aip_scatter_blocks(m->buf[r], send, m->block, m->shape.size, m->dest);
        free(send);
    } else {
        aip_permute_blocks(m->buf[r], m->block, m->shape.size, m->dest, m->temp, m->temp_bytes,
                           m->scratch);
    }
}

static void permute(machine *m, char *buf, int nblocks)
{
    aip_permute_blocks(buf, m->block, nblocks, m->dest, m->temp, m->temp_bytes, m->scratch);
}

/* An in-place exchange among the ranks rank_at[a * q + x] with x fixed
 * (across nodes, segment = node) or a fixed (within a node, segment = local). */
static void exchange_across(machine *m, size_t segment)
{
    int n = m->shape.nodes, q = m->shape.per_node;
    for (int x = 0; x < q; x++)
        for (int a = 0; a < n; a++)
            for (int b = a + 1; b < n; b++)
                swap_bytes(m->buf[m->rank_at[a * q + x]] + (size_t)b * segment,
                           m->buf[m->rank_at[b * q + x]] + (size_t)a * segment, segment);
}

static void exchange_within(machine *m, size_t segment)
{
    int n = m->shape.nodes, q = m->shape.per_node;
    for (int a = 0; a < n; a++)
        for (int x = 0; x < q; x++)
            for (int y = x + 1; y < q; y++)
                swap_bytes(m->buf[m->rank_at[a * q + x]] + (size_t)y * segment,
                           m->buf[m->rank_at[a * q + y]] + (size_t)x * segment, segment);
}

static void run_sa(machine *m, int out_of_place)
{
    int p = m->shape.size, n = m->shape.nodes, q = m->shape.per_node;
    for (int r = 0; r < p; r++) {
        aip_layout_by_local(&m->shape, m->dest);
        first_layout(m, r, out_of_place);
    }
    exchange_within(m, (size_t)n * m->block);
    for (int r = 0; r < p; r++) {
        aip_layout_transpose(q, n, m->dest);
        permute(m, m->buf[r], p);
    }
    exchange_across(m, (size_t)q * m->block);
    for (int r = 0; r < p; r++) {
        aip_layout_from_node_major(&m->shape, m->dest);
        permute(m, m->buf[r], p);
    }
}

static void run_rd(machine *m, int out_of_place)
{
    int p = m->shape.size, n = m->shape.nodes, q = m->shape.per_node;
    for (int r = 0; r < p; r++) {
        aip_layout_by_node(&m->shape, m->dest);
        first_layout(m, r, out_of_place);
    }
    exchange_across(m, (size_t)q * m->block);
    for (int r = 0; r < p; r++) {
        aip_layout_transpose(n, q, m->dest);
        permute(m, m->buf[r], p);
    }
    exchange_within(m, (size_t)n * m->block);
    for (int r = 0; r < p; r++) {
        aip_layout_from_local_major(&m->shape, m->dest);
        permute(m, m->buf[r], p);
    }
}

static void run_l(machine *m)
{
    int p = m->shape.size, n = m->shape.nodes, q = m->shape.per_node;
    size_t row = (size_t)p * m->block, node_bytes = (size_t)q * row;
    char *gathered = malloc((size_t)n * node_bytes);
    for (int a = 0; a < n; a++) /* gather */
        for (int x = 0; x < q; x++)
            memcpy(gathered + a * node_bytes + x * row, m->buf[m->rank_at[a * q + x]], row);
    for (int a = 0; a < n; a++) {
        aip_layout_leader_send(&m->shape, m->dest);
        permute(m, gathered + a * node_bytes, q * p);
    }
    size_t segment = (size_t)q * q * m->block;
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++)
            swap_bytes(gathered + a * node_bytes + b * segment,
                       gathered + b * node_bytes + a * segment, segment);
    for (int a = 0; a < n; a++) {
        aip_layout_leader_receive(&m->shape, m->dest);
        permute(m, gathered + a * node_bytes, q * p);
    }
    for (int a = 0; a < n; a++) /* scatter */
        for (int y = 0; y < q; y++)
            memcpy(m->buf[m->rank_at[a * q + y]], gathered + a * node_bytes + y * row, row);
    free(gathered);
}

static int all_delivered(const machine *m)
{
    for (int r = 0; r < m->shape.size; r++)
        for (int j = 0; j < m->shape.size; j++)
            for (size_t k = 0; k < m->block; k++)
                if (m->buf[r][(size_t)j * m->block + k] != element(j, r, k))
                    return 0;
    return 1;
}

/* aip_permute_blocks moves as aip_scatter_blocks copies. */
static int check_permutation(int nblocks, size_t block)
{
    size_t bytes = (size_t)nblocks * block, temp_bytes = 1 + (size_t)below((int)(2 * block));
    char *buf = malloc(bytes), *expected = malloc(bytes), *temp = malloc(temp_bytes);
    int *dest = malloc(sizeof(int) * (size_t)nblocks);
    int *scratch = malloc(sizeof(int) * 3 * (size_t)nblocks);
    for (size_t i = 0; i < bytes; i++)
        buf[i] = (char)next_random();
    for (int i = 0; i < nblocks; i++)
        dest[i] = i;
    for (int i = nblocks - 1; i > 0; i--) {
        int j = below(i + 1), t = dest[i];
        dest[i] = dest[j];
        dest[j] = t;
    }
    aip_scatter_blocks(expected, buf, block, nblocks, dest);
    aip_permute_blocks(buf, block, nblocks, dest, temp, temp_bytes, scratch);
    int ok = memcmp(buf, expected, bytes) == 0;
    free(buf);
    free(expected);
    free(temp);
    free(dest);
    free(scratch);
    return ok;
}

int main(int argc, char **argv)
{
    uint64_t seed = argc > 2 && strcmp(argv[1], "--seed") == 0 ? strtoull(argv[2], NULL, 10)
                                                              : (uint64_t)time(NULL);
    static const char *const algorithm_names[] = { "sa", "rd", "l" };
    static const char *const placement_names[] = { "block", "cyclic", "random" };
    int passed = 0, failed = 0;

    rng_state = seed;
    for (int i = 0; i < 300; i++) {
        if (check_permutation(1 + below(200), 1 + (size_t)below(40)))
            passed++;
        else if (++failed <= 5)
            fprintf(stderr, "node_sim_test: FAILED seed=%llu: permutation %d\n",
                    (unsigned long long)seed, i);
    }
    for (int n = 1; n <= 7; n++)
        for (int q = 1; q <= 6; q++)
            for (int place = BLOCK; place <= RANDOM; place++)
                for (int algorithm = 0; algorithm < 3; algorithm++)
                    for (int out_of_place = 0; out_of_place < (algorithm < 2 ? 2 : 1);
                         out_of_place++) {
                        machine m;
                        build(&m, n, q, (placement)place, 1 + (size_t)below(40));
                        if (algorithm == 0)
                            run_sa(&m, out_of_place);
                        else if (algorithm == 1)
                            run_rd(&m, out_of_place);
                        else
                            run_l(&m);
                        if (all_delivered(&m)) {
                            passed++;
                        } else if (++failed <= 5) {
                            fprintf(stderr,
                                    "node_sim_test: FAILED seed=%llu: %s%s on %d nodes x %d, "
                                    "%s placement, blocks of %zu bytes, temp %zu\n",
                                    (unsigned long long)seed, algorithm_names[algorithm],
                                    out_of_place ? " out of place" : "", n, q,
                                    placement_names[place], m.block, m.temp_bytes);
                        }
                        destroy(&m);
                    }
    printf("node_sim_test (seed %llu): %d passed, %d failed\n", (unsigned long long)seed,
           passed, failed);
    return failed ? 1 : 0;
}
