/*
 * node_sim_test - the rank tables, layouts and in-place permutation of the
 * node-aware exchanges (node_layouts.c), without MPI: whole sa, rd and l
 * exchanges run on p simulated processes, each MPI step played by moving
 * segments between their buffers, and every process must end with what
 * MPI_Alltoall would give it.
 *
 * Shapes: n = 1..7 nodes of q = 1..6 ranks, each with block placement,
 * cyclic placement and a random placement of ranks on nodes; blocks of 1 to
 * 40 bytes, permutation temporaries from 1 byte (a piece of every block of a
 * cycle at a time) to larger than a block; sa and rd in place and out of
 * place (the first step reading a send buffer).  Also: aip_permute_blocks
 * against a copy on random permutations.
 *
 *   node_sim_test [--seed N]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "node/nodes.h"
#include "../../common/exchange_data.h"

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

/* A simulated machine: shape, buffers, and scratch for the permutations. */
typedef struct machine {
    aip_shape shape;
    int *node_of, *local_of, *rank_at, *by_local;
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
    int *placed = malloc(sizeof(int) * (size_t)p); /* the rank at slot a * q + x */
    m->node_of = malloc(sizeof(int) * (size_t)p);
    m->local_of = malloc(sizeof(int) * (size_t)p);
    m->rank_at = malloc(sizeof(int) * (size_t)p);
    m->by_local = malloc(sizeof(int) * (size_t)p);
    for (int slot = 0; slot < p; slot++)
        placed[slot] = place == BLOCK ? slot : place == CYCLIC ? (slot % q) * n + slot / q : slot;
    if (place == RANDOM)
        for (int i = p - 1; i > 0; i--) {
            int j = below(i + 1), t = placed[i];
            placed[i] = placed[j];
            placed[j] = t;
        }
    for (int slot = 0; slot < p; slot++) {
        m->node_of[placed[slot]] = slot / q;
        m->local_of[placed[slot]] = slot % q;
    }
    free(placed);
    m->shape = (aip_shape){ p, n, q, q, m->node_of, m->local_of, NULL, NULL };
    aip_shape_rank_tables(&m->shape, m->rank_at, m->by_local);
    m->shape.rank_at = m->rank_at;
    m->shape.by_local = m->by_local;
    m->block = block;
    m->buf = malloc(sizeof(char *) * (size_t)p);
    for (int r = 0; r < p; r++) {
        m->buf[r] = malloc((size_t)p * block);
        for (int j = 0; j < p; j++)
            fill_message_bytes((unsigned char *)m->buf[r] + (size_t)j * block, r, j, block);
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
    free(m->by_local);
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

static void permute(machine *m, char *buf, int nblocks)
{
    aip_permute_blocks(buf, m->block, nblocks, m->dest, m->temp, m->temp_bytes, m->scratch);
}

/*
 * One step of sa or rd, as node_exchange.c runs it, on every rank of every
 * group at once: the group of rank (a, x) is its node (within) or the ranks
 * of local rank x (across); its peers are numbered by local rank or by node,
 * and peer i's segment is the blocks positions[i * per_peer ...].  Each rank
 * receives, at the positions of its segment for each peer (itself included),
 * what that peer read from `from` at the positions of its segment for it.
 */
static void node_step(machine *m, int within, const int *positions, int per_peer, char **from)
{
    int p = m->shape.size, n = m->shape.nodes, q = m->shape.per_node;
    size_t block = m->block;
    char **next = malloc(sizeof(char *) * (size_t)p);

    for (int r = 0; r < p; r++) {
        int a = m->node_of[r], x = m->local_of[r];
        int me = within ? x : a, group = within ? q : n;
        next[r] = malloc((size_t)p * block);
        for (int i = 0; i < group; i++) {
            int peer = within ? m->rank_at[a * q + i] : m->rank_at[i * q + x];
            for (int k = 0; k < per_peer; k++)
                memcpy(next[r] + (size_t)positions[i * per_peer + k] * block,
                       from[peer] + (size_t)positions[me * per_peer + k] * block, block);
        }
    }
    for (int r = 0; r < p; r++) {
        free(m->buf[r]);
        m->buf[r] = next[r];
    }
    free(next);
}

/* sa (within, then across) or rd (across, then within); out of place, the
 * first step reads copies of the buffers, which are wiped first. */
static void run_two_steps(machine *m, int sa, int out_of_place)
{
    int p = m->shape.size, n = m->shape.nodes, q = m->shape.per_node;
    size_t bytes = (size_t)p * m->block;
    char **send = m->buf;

    if (out_of_place) {
        send = malloc(sizeof(char *) * (size_t)p);
        for (int r = 0; r < p; r++) {
            send[r] = malloc(bytes);
            memcpy(send[r], m->buf[r], bytes);
            memset(m->buf[r], 0, bytes);
        }
    }
    if (sa) {
        node_step(m, 1, m->by_local, n, send);
        node_step(m, 0, m->rank_at, q, m->buf);
    } else {
        node_step(m, 0, m->rank_at, q, send);
        node_step(m, 1, m->by_local, n, m->buf);
    }
    if (out_of_place) {
        for (int r = 0; r < p; r++)
            free(send[r]);
        free(send);
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
            if (count_wrong_bytes((unsigned char *)m->buf[r] + (size_t)j * m->block, j, r,
                                  m->block, NULL) > 0)
                return 0;
    return 1;
}

/* aip_permute_blocks moves as a copy does. */
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
    for (int i = 0; i < nblocks; i++)
        memcpy(expected + (size_t)dest[i] * block, buf + (size_t)i * block, block);
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
                        if (algorithm < 2)
                            run_two_steps(&m, algorithm == 0, out_of_place);
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
