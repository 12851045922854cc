/*
 * route_load - how the exchanges' flows load the links of the two platform
 * models (platforms.cpp) under SimGrid 3.32's static routes.
 *
 *   route_load juropa [--spread K] P:N ...
 *   route_load juqueen P:N ...
 *
 * For each case (P ranks, the transposes of FFTW's N^3 r2c transform, blocks
 * of (N/P)^2 (N/2 + 1) complex) and each schedule (stock FFTW's rounds, ours
 * from schedule/, HSA in the paper's order), every step's pairs send one
 * block each way; ranks fill the nodes in order, as bench/fftw_smpi.sh's
 * hostfiles put them.  A flow
 * within a node crosses the node's memory (a shared link at half its STREAM
 * copy bandwidth); between nodes it follows the platform's route:
 *
 *   juropa   a two-level fat tree, 18 nodes per leaf switch, 18 spines.
 *            FatTreeZone routes a flow between leaves D-mod-K (Zahavi): up
 *            through spine (destination node mod 18), down through the one
 *            link to the destination node.  --spread K puts the job's nodes
 *            K to a leaf (fftw_smpi.sh's juropa-spread: 16) instead of 18.
 *   juqueen  a 5D torus (machines.h's partition).  TorusZone routes
 *            dimension by dimension, A first, each the short way round,
 *            to the right when the destination is at most half the ring
 *            away to the right of the source.  A ring of two nodes has one
 *            link between them, a longer ring one link per neighbour pair.
 *
 * Per schedule:
 *
 *   busiest  the most flows on one link between nodes, mean over busy steps
 *   routed   busy steps that the routes bound: some link carries more
 *            flows than the nodes' own links would if each node spread its
 *            flows evenly over them (fat tree: its one link; torus: its
 *            links to its neighbours, each way)
 *   lockstep one exchange in lockstep, each step at its busiest link's fair
 *            share: the sum over steps of that link's flows x block /
 *            bandwidth (an estimate: the executors keep several steps in
 *            flight, and MPICH's steps are logical: its run is a wave)
 *   nodes    the same with each node's flows spread evenly over its links,
 *            as a perfect network would: what the nodes themselves allow
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "machines.h"
#include "schedule/schedule.h"

enum { MAX_NODES = 4096 };

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

/* HSA in the paper's order (Fig. 4), which schedule_hsa.c changed: within a
 * level, lower process low + a meets mid + (a + i) mod n at step i, a shift
 * where ours pairs a + b = i.  Kept to show what the change does. */
static int hsa_shift_nsteps(int p)
{
    return aip_schedule_hsa.nsteps(p);
}

static void hsa_shift_fill(int rank, int p, int *peer)
{
    int low = 0, high = p, step = 0, nsteps = hsa_shift_nsteps(p);
    for (int s = 0; s < nsteps; s++)
        peer[s] = AIP_IDLE;
    while (high - low > 1) {
        int mid = low + (high - low) / 2, m = mid - low, n = high - mid;
        for (int i = 0; i < n; i++) {
            int a = rank < mid ? rank - low : ((rank - mid - i) % n + n) % n;
            if (rank < mid)
                peer[step + i] = mid + (a + i) % n;
            else if (a < m)
                peer[step + i] = low + a;
        }
        step += n;
        if (rank < mid)
            high = mid;
        else
            low = mid;
    }
}

static const aip_schedule hsa_shift = { "hsa-shift", hsa_shift_nsteps, hsa_shift_fill };
static const aip_schedule *const schedules[] = { &stock, &aip_schedule_hsa, &hsa_shift,
                                                 &aip_schedule_lsa, &aip_schedule_mpich };

/* The platform: its links are numbered; a route adds to the flows of each
 * link it crosses. */
typedef struct platform {
    const char *name;
    int ranks_per_node;
    double link_bandwidth, memory_bandwidth;
    int links_out;   /* of a node, to its neighbours or its switch */
    int nlinks;      /* memory links first (one per node), then the network's */
    int *flows;
    int (*node_of)(const struct platform *, int rank);
    void (*route)(struct platform *, int from, int to, int delta); /* nodes, from != to */
    /* fat tree */
    int spread;
    /* torus */
    unsigned long dims[JUQUEEN_TORUS_DIMENSIONS];
} platform;

/* --- JuRoPA's fat tree ---
 * links: memory[node], node up[node], node down[node], leaf up[leaf][spine]
 * (a spine's link down to a leaf leads to one node: never busier than it) */

static int fattree_node_of(const platform *m, int rank)
{
    int node = rank / m->ranks_per_node;
    return node / m->spread * JUROPA_LEAF_NODES + node % m->spread;
}

static void fattree_route(platform *m, int a, int b, int delta)
{
    m->flows[MAX_NODES + a] += delta;
    m->flows[2 * MAX_NODES + b] += delta;
    if (a / JUROPA_LEAF_NODES != b / JUROPA_LEAF_NODES)
        m->flows[3 * MAX_NODES + a / JUROPA_LEAF_NODES * JUROPA_SPINES + b % JUROPA_SPINES] +=
            delta;
}

/* --- Juqueen's torus ---
 * links: memory[node], then per node and dimension the link to the next
 * node of the ring, one each way: up (node -> next), down (next -> node) */

static int torus_node_of(const platform *m, int rank)
{
    return rank / m->ranks_per_node;
}

static void torus_route(platform *m, int a, int b, int delta)
{
    long node = a, stride = 1;
    for (int d = 0; d < JUQUEEN_TORUS_DIMENSIONS; stride *= (long)m->dims[d], d++) {
        long size = (long)m->dims[d];
        long from = a / stride % size, to = b / stride % size;
        int right = (to > from && to <= from + size / 2) ||
                    (from > size / 2 && (from + size / 2) % size >= to);
        for (long at = from; at != to;) {
            long next = right ? (at + 1) % size : (at + size - 1) % size;
            long owner = node + ((right ? at : next) - at) * stride; /* the link's lower end */
            m->flows[MAX_NODES + (owner * JUQUEEN_TORUS_DIMENSIONS + d) * 2 + !right] += delta;
            node += (next - at) * stride;
            at = next;
        }
    }
}

static void route(platform *m, int r, int q, int delta)
{
    int a = m->node_of(m, r), b = m->node_of(m, q);
    if (a == b)
        m->flows[a] += delta;
    else
        m->route(m, a, b, delta);
}

typedef struct result {
    int busy, routed;
    double busiest, lockstep, nodes;
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
                fprintf(stderr, "route_load: %s, p = %d: rank %d's step %d is not a new pair\n",
                        s->name, p, r, step);
                exit(1);
            }
            pairs++;
        }
    if (!met || pairs != (long)p * (p - 1) / 2) {
        fprintf(stderr, "route_load: %s, p = %d: %ld pairs met\n", s->name, p, pairs);
        exit(1);
    }
    free(met);
}

static result analyse(platform *m, const aip_schedule *s, int p, double block)
{
    int nsteps = s->nsteps(p);
    int *peers = malloc(sizeof *peers * (size_t)p * (size_t)nsteps);
    int *out = calloc(MAX_NODES, sizeof *out), *in = calloc(MAX_NODES, sizeof *in);
    result res = { 0 };
    if (!peers || !out || !in) {
        fprintf(stderr, "route_load: out of memory\n");
        exit(1);
    }
    for (int r = 0; r < p; r++)
        s->fill(r, p, peers + (size_t)r * nsteps);
    check(s, p, nsteps, peers);
    for (int step = 0; step < nsteps; step++) {
        int busy = 0;
        memset(m->flows, 0, sizeof *m->flows * (size_t)m->nlinks);
        memset(out, 0, sizeof *out * MAX_NODES);
        memset(in, 0, sizeof *in * MAX_NODES);
        for (int r = 0; r < p; r++) {
            int q = peers[(size_t)r * nsteps + step];
            if (q == AIP_IDLE)
                continue;
            busy = 1;
            route(m, r, q, 1);
            if (m->node_of(m, r) != m->node_of(m, q)) {
                out[m->node_of(m, r)]++;
                in[m->node_of(m, q)]++;
            }
        }
        if (!busy)
            continue;
        int busiest = 0, memory = 0;
        for (int k = 0; k < m->nlinks; k++)
            if (k < MAX_NODES)
                memory = m->flows[k] > memory ? m->flows[k] : memory;
            else
                busiest = m->flows[k] > busiest ? m->flows[k] : busiest;
        double spread = 0; /* a node's flows, evenly over its links */
        for (int h = 0; h < MAX_NODES; h++) {
            double f = (double)(out[h] > in[h] ? out[h] : in[h]) / m->links_out;
            spread = f > spread ? f : spread;
        }
        double t_memory = memory / m->memory_bandwidth;
        double t_nodes = spread / m->link_bandwidth;
        double t_links = busiest / m->link_bandwidth;
        t_nodes = t_nodes > t_memory ? t_nodes : t_memory;
        res.busy++;
        res.routed += busiest > spread + 1e-9;
        res.busiest += busiest;
        res.lockstep += (t_links > t_nodes ? t_links : t_nodes) * block;
        res.nodes += t_nodes * block;
    }
    res.busiest /= res.busy;
    free(peers);
    free(out);
    free(in);
    return res;
}

static void usage(void)
{
    fprintf(stderr, "usage: route_load juropa [--spread K (1..%d)] P:N ...\n"
                    "       route_load juqueen P:N ...\n", JUROPA_LEAF_NODES);
    exit(2);
}

int main(int argc, char **argv)
{
    platform m = { 0 };
    int i = 2;
    if (argc < 2)
        usage();
    if (!strcmp(argv[1], "juropa")) {
        m = (platform){ .name = "juropa", .ranks_per_node = JUROPA_CORES,
                        .link_bandwidth = JUROPA_LINK_BANDWIDTH,
                        .memory_bandwidth = JUROPA_NODE_COPY_BANDWIDTH / 2, .links_out = 1,
                        .nlinks = 3 * MAX_NODES + MAX_NODES / JUROPA_LEAF_NODES * JUROPA_SPINES,
                        .node_of = fattree_node_of, .route = fattree_route,
                        .spread = JUROPA_LEAF_NODES };
        if (i + 1 < argc && !strcmp(argv[i], "--spread")) {
            m.spread = atoi(argv[i + 1]);
            i += 2;
        }
        if (m.spread < 1 || m.spread > JUROPA_LEAF_NODES)
            usage();
    } else if (!strcmp(argv[1], "juqueen")) {
        m = (platform){ .name = "juqueen", .ranks_per_node = JUQUEEN_CORES,
                        .link_bandwidth = JUQUEEN_LINK_BANDWIDTH,
                        .memory_bandwidth = JUQUEEN_NODE_COPY_BANDWIDTH / 2,
                        .nlinks = MAX_NODES + MAX_NODES * JUQUEEN_TORUS_DIMENSIONS * 2,
                        .node_of = torus_node_of, .route = torus_route };
    } else
        usage();
    if (i == argc)
        usage();
    m.flows = malloc(sizeof *m.flows * (size_t)m.nlinks);
    if (!m.flows) {
        fprintf(stderr, "route_load: out of memory\n");
        return 1;
    }
    printf("| platform | p | N^3 | nodes | schedule | busy steps | busiest | routed "
           "| lockstep (s) | nodes (s) |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (; i < argc; i++) {
        int p, n;
        if (sscanf(argv[i], "%d:%d", &p, &n) != 2 || p < 2 || p % 2 || n % p ||
            m.node_of(&m, p - 1) >= MAX_NODES) {
            fprintf(stderr, "route_load: %s: want P:N, P even, N divisible by P, "
                            "at most %d nodes\n", argv[i], MAX_NODES);
            return 2;
        }
        char nodes[32];
        int used = (p - 1) / m.ranks_per_node + 1;
        if (m.route == torus_route) {
            juqueen_torus((unsigned long)used, m.dims);
            snprintf(nodes, sizeof nodes, "%lux%lux%lux%lux%lu", m.dims[0], m.dims[1],
                     m.dims[2], m.dims[3], m.dims[4]);
            m.links_out = 0; /* a ring of two has one link, longer rings two */
            for (int d = 0; d < JUQUEEN_TORUS_DIMENSIONS; d++)
                m.links_out += m.dims[d] > 2 ? 2 : m.dims[d] == 2;
            if (m.links_out == 0)
                m.links_out = 1;
        } else
            snprintf(nodes, sizeof nodes, "%d, %d a leaf", used, m.spread);
        double block = (double)(n / p) * (n / p) * (n / 2 + 1) * 16;
        for (size_t k = 0; k < sizeof schedules / sizeof *schedules; k++) {
            result r = analyse(&m, schedules[k], p, block);
            printf("| %s | %d | %d | %s | %s | %d | %.2f | %d | %.3f | %.3f |\n", m.name, p, n,
                   nodes, schedules[k]->name, r.busy, r.busiest, r.routed, r.lockstep,
                   r.nodes);
        }
    }
    free(m.flows);
    return 0;
}
