/*
 * fattree_load - how the exchanges' flows load the links of the JuRoPA model
 * (platforms.cpp: a two-level fat tree, 18 nodes per leaf switch, 18 spines,
 * 3.2 GB/s links, 8 ranks per node) under SimGrid's static routing.
 *
 *   fattree_load [--spread K] P:N ...
 *
 * For each case (P ranks, the transposes of FFTW's N^3 r2c transform, blocks
 * of (N/P)^2 (N/2 + 1) complex) and each schedule (stock FFTW's rounds, ours
 * from schedule/), every step's pairs send one block each way.  SimGrid 3.32's
 * FatTreeZone routes a flow between leaves D-mod-K (Zahavi): up through spine
 * (destination node mod 18), down through the one link to the destination.
 * A spine's link down to a leaf leads to one node only, so it is never busier
 * than that node's link; a leaf's link up to a spine can be.  Per schedule:
 *
 *   node     the most flows on one node link, mean over busy steps
 *   up       the most flows on one leaf-to-spine link, mean over busy steps
 *   routed   busy steps in which a leaf-to-spine link carries more flows than
 *            every node link: the routes, not the nodes, bound the step
 *   lockstep one exchange in lockstep, each step at its busiest link's fair
 *            share: the sum over steps of that link's flows x block /
 *            bandwidth (an estimate: the executors keep several steps in
 *            flight, and MPICH's steps are logical: its run is a wave)
 *   crossbar the same with the switches' links left out
 *
 * --spread K places the job's nodes K to a leaf (bench/fftw_smpi.sh's
 * juropa-spread: 16) instead of 18.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "juropa.h"
#include "schedule/schedule.h"

enum {
    RANKS_PER_NODE = JUROPA_CORES,
    LEAF_NODES = JUROPA_LEAF_NODES,
    SPINES = JUROPA_SPINES,
    MAX_HOSTS = JUROPA_LEAF_NODES * 64
};
static const double link_bandwidth = JUROPA_LINK_BANDWIDTH;
/* a node's messages within it: each byte read and written (platforms.cpp) */
static const double memory_bandwidth = JUROPA_NODE_COPY_BANDWIDTH / 2;

/* Stock FFTW's transpose-pairwise exchanges in the rounds of the circle
 * method: its local copy first, then in round k = 0 .. p - 2 rank k pairs
 * with rank p - 1 and every other rank r < p - 1 with (2k - r) mod (p - 1).
 * (FFTW reorders the rounds only for unequal blocks: not in these cases.)
 * Even p only. */
static int stock_nsteps(int p)
{
    return p;
}

static void stock_fill(int rank, int p, int *peer)
{
    peer[0] = AIP_IDLE;
    for (int k = 0; k < p - 1; k++)
        peer[1 + k] = rank == p - 1 ? k
                      : rank == k   ? p - 1
                                    : ((2 * k - rank) % (p - 1) + (p - 1)) % (p - 1);
}

static const aip_schedule stock = { "stock", stock_nsteps, stock_fill };
static const aip_schedule *const schedules[] = { &stock, &aip_schedule_hsa, &aip_schedule_lsa,
                                                 &aip_schedule_mpich };

static int spread = LEAF_NODES; /* the job's nodes per leaf */

/* The machine's node (host) of a rank: the job fills `spread` of each leaf's. */
static int host_of(int rank)
{
    int node = rank / RANKS_PER_NODE;
    return node / spread * LEAF_NODES + node % spread;
}

typedef struct loads {
    int node_up[MAX_HOSTS], node_down[MAX_HOSTS], memory[MAX_HOSTS];
    int leaf_up[MAX_HOSTS / LEAF_NODES][SPINES];
} loads;

/* Adds the flow from rank r to rank q to the links it crosses (delta 1), or
 * takes it away (-1); returns the flows then on the leaf-to-spine link it
 * climbs (0: it climbs none). */
static int route(loads *l, int r, int q, int delta)
{
    int a = host_of(r), b = host_of(q);
    if (a == b) {
        l->memory[a] += delta;
        return 0;
    }
    l->node_up[a] += delta;
    l->node_down[b] += delta;
    if (a / LEAF_NODES == b / LEAF_NODES)
        return 0;
    return l->leaf_up[a / LEAF_NODES][b % SPINES] += delta;
}

typedef struct result {
    int busy, routed;
    double node, up, lockstep, crossbar;
} result;

/* schedule.h's promise, which stock's rounds must keep too: partners agree
 * and every pair of ranks meets exactly once. */
static void check(const aip_schedule *s, int p, int nsteps, const int *peers)
{
    char *met = calloc((size_t)p * (size_t)p, 1);
    long pairs = 0;
    for (int r = 0; met && r < p; r++)
        for (int step = 0; step < nsteps; step++) {
            int q = peers[(size_t)r * nsteps + step];
            if (q == AIP_IDLE || q < r)
                continue;
            if (q >= p || q == r || peers[(size_t)q * nsteps + step] != r ||
                met[(size_t)r * p + q]++) {
                fprintf(stderr, "fattree_load: %s, p = %d: rank %d's step %d is not a new pair\n",
                        s->name, p, r, step);
                exit(1);
            }
            pairs++;
        }
    if (!met || pairs != (long)p * (p - 1) / 2) {
        fprintf(stderr, "fattree_load: %s, p = %d: %ld pairs met\n", s->name, p, pairs);
        exit(1);
    }
    free(met);
}

static result analyse(const aip_schedule *s, int p, double block)
{
    int nsteps = s->nsteps(p);
    int *peers = malloc(sizeof *peers * (size_t)p * (size_t)nsteps);
    loads *l = calloc(1, sizeof *l);
    result out = { 0 };
    if (!peers || !l) {
        fprintf(stderr, "fattree_load: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < p; r++)
        s->fill(r, p, peers + (size_t)r * nsteps);
    check(s, p, nsteps, peers);
    for (int step = 0; step < nsteps; step++) {
        int busy = 0, up = 0;
        for (int r = 0; r < p; r++) {
            int q = peers[(size_t)r * nsteps + step];
            if (q != AIP_IDLE) {
                int climbing = route(l, r, q, 1);
                busy = 1;
                up = climbing > up ? climbing : up;
            }
        }
        if (!busy)
            continue;
        int node = 0;
        double slowest_node = 0;
        for (int h = 0; h < MAX_HOSTS; h++) {
            int n = l->node_up[h] > l->node_down[h] ? l->node_up[h] : l->node_down[h];
            node = n > node ? n : node;
            double t = n / link_bandwidth, m = l->memory[h] / memory_bandwidth;
            slowest_node = t > slowest_node ? t : slowest_node;
            slowest_node = m > slowest_node ? m : slowest_node;
        }
        double slowest = up / link_bandwidth > slowest_node ? up / link_bandwidth : slowest_node;
        out.busy++;
        out.routed += up > node;
        out.node += node;
        out.up += up;
        out.lockstep += slowest * block;
        out.crossbar += slowest_node * block;
        for (int r = 0; r < p; r++) {
            int q = peers[(size_t)r * nsteps + step];
            if (q != AIP_IDLE)
                route(l, r, q, -1);
        }
    }
    out.node /= out.busy;
    out.up /= out.busy;
    free(peers);
    free(l);
    return out;
}

int main(int argc, char **argv)
{
    int i = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--spread")) {
        spread = atoi(argv[i + 1]);
        i += 2;
    }
    if (i == argc || spread < 1 || spread > LEAF_NODES) {
        fprintf(stderr, "usage: fattree_load [--spread K (1..%d)] P:N ...\n", LEAF_NODES);
        return 2;
    }
    printf("| p | N^3 | nodes a leaf | schedule | busy steps | node | up | routed | lockstep (s) "
           "| crossbar (s) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (; i < argc; i++) {
        int p, n;
        if (sscanf(argv[i], "%d:%d", &p, &n) != 2 || p < 2 || p % 2 || n % p ||
            host_of(p - 1) >= MAX_HOSTS) {
            fprintf(stderr, "fattree_load: %s: want P:N, P even, N divisible by P, "
                            "at most %d nodes\n", argv[i], MAX_HOSTS);
            return 2;
        }
        double block = (double)(n / p) * (n / p) * (n / 2 + 1) * 16;
        for (size_t k = 0; k < sizeof schedules / sizeof *schedules; k++) {
            result r = analyse(schedules[k], p, block);
            printf("| %d | %d | %d | %s | %d | %.2f | %.2f | %d | %.3f | %.3f |\n", p, n, spread,
                   schedules[k]->name, r.busy, r.node, r.up, r.routed, r.lockstep, r.crossbar);
        }
    }
    return 0;
}
