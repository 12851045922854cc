/*
 * The hypercube all-to-all's stages (schedule/schedule_hypercube.c) run on
 * simulated ranks, without MPI, for p = 1..max_p (1024 by default): every
 * rank's buffer holds p labels (s, t), the stages move them exactly as
 * exchange/alltoall_hypercube.c moves blocks (the m-th label received
 * replaces the m-th sent), then the home permutation.  Checked:
 *   - every block reaches its destination, at the position of its source;
 *   - ceil(log2 p) stages; at each, `to` and `from` are partners (rank r
 *     sends to q iff q receives from r), positions are distinct and in
 *     range, and each rank sends at most p / 2 blocks (exactly p / 2 for a
 *     power of two), as many as it receives;
 *   - for a power of two, the split of Fig. 2 of Plimpton et al.: at stage
 *     d a rank sends exactly the blocks whose destination differs from it
 *     in bit d, to me ^ 2^d;
 *   - a rank's own block never moves;
 *   - the home permutation is an involution.
 * Prints the stages and the blocks each rank sends per stage for a few p.
 * Usage: hypercube_sim_test [max_p (1024; 256 under AIP_TEST_SCALE=small)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schedule/hypercube.h"
#include "check.h"

/* Scratch for max_p ranks: buffers, outboxes, positions and stages. */
typedef struct simulation {
    int *buffers;   /* rank r's position i: buffers[r * p + i] = s * p + t */
    int *outboxes;  /* what rank r sends at the current stage, p / 2 per rank */
    int *positions; /* rank r's positions of the stage, p / 2 per rank */
    int *seen;      /* p marks: the (rank, stage) that last sent from a position */
    aip_hypercube_stage *stages;
} simulation;

static int label_src(int label, int p) { return label / p; }
static int label_dst(int label, int p) { return label % p; }

static int is_power_of_two(int p) { return (p & (p - 1)) == 0; }

static int ceil_log2(int p)
{
    int k = 0;
    while ((1 << k) < p)
        k++;
    return k;
}

/* One stage on every rank; returns the largest count. */
static int run_stage(simulation *sim, int p, int k)
{
    int half = p / 2, largest = 0;

    for (int r = 0; r < p; r++) {
        int *positions = sim->positions + (size_t)r * half;
        aip_hypercube_stage st = aip_hypercube_stage_of(r, p, k, positions);
        sim->stages[r] = st;
        CHECK(st.count <= half, "p=%d k=%d rank %d sends %d > p/2 blocks", p, k, r, st.count);
        CHECK(!is_power_of_two(p) || st.count == half, "p=%d k=%d rank %d sends %d, not p/2", p,
              k, r, st.count);
        CHECK(st.to >= 0 && st.to < p && st.from >= 0 && st.from < p && st.to != r &&
                  st.from != r,
              "p=%d k=%d rank %d: partners %d, %d", p, k, r, st.to, st.from);
        if (st.count > largest)
            largest = st.count;
        for (int m = 0; m < st.count; m++) {
            int at = positions[m];
            CHECK(at >= 0 && at < p, "p=%d k=%d rank %d position %d", p, k, r, at);
            CHECK(sim->seen[at] != r * 64 + k, "p=%d k=%d rank %d sends position %d twice", p,
                  k, r, at);
            sim->seen[at] = r * 64 + k;
            int label = sim->buffers[(size_t)r * p + at];
            CHECK(label_src(label, p) != r || label_dst(label, p) != r,
                  "p=%d k=%d rank %d sends its own block", p, k, r);
            sim->outboxes[(size_t)r * half + m] = label;
        }
        if (is_power_of_two(p)) { /* Fig. 2: the send-list is the other half's */
            int sent = 0;
            for (int i = 0; i < p; i++) {
                int dst = label_dst(sim->buffers[(size_t)r * p + i], p);
                sent += ((dst ^ r) >> k) & 1;
            }
            CHECK(st.to == (r ^ (1 << k)) && sent == st.count,
                  "p=%d k=%d rank %d: partner %d, %d blocks for the other half, %d sent", p, k,
                  r, st.to, sent, st.count);
            for (int m = 0; m < st.count; m++) {
                int dst = label_dst(sim->outboxes[(size_t)r * half + m], p);
                CHECK(((dst ^ r) >> k) & 1, "p=%d k=%d rank %d sends a block for its half", p,
                      k, r);
            }
        }
    }
    for (int r = 0; r < p; r++) {
        const aip_hypercube_stage *st = &sim->stages[r];
        const aip_hypercube_stage *src = &sim->stages[st->from];
        CHECK(src->to == r && src->count == st->count,
              "p=%d k=%d rank %d receives from %d, which sends %d to %d (%d here)", p, k, r,
              st->from, src->count, src->to, st->count);
        if (src->to != r || src->count != st->count)
            continue;
        for (int m = 0; m < st->count; m++)
            sim->buffers[(size_t)r * p + sim->positions[(size_t)r * half + m]] =
                sim->outboxes[(size_t)st->from * half + m];
    }
    return largest;
}

/* All stages and the home permutation for p ranks; prints a line if `show`. */
static void simulate(simulation *sim, int p, int show)
{
    int nstages = aip_hypercube_nstages(p);
    char volumes[256] = "";

    CHECK(nstages == ceil_log2(p), "p=%d: %d stages, not ceil(log2 p) = %d", p, nstages,
          ceil_log2(p));
    for (int r = 0; r < p; r++)
        for (int t = 0; t < p; t++)
            sim->buffers[(size_t)r * p + t] = r * p + t;
    for (int i = 0; i < p; i++)
        sim->seen[i] = -1;
    for (int k = 0; k < nstages; k++) {
        int largest = run_stage(sim, p, k);
        size_t used = strlen(volumes);
        snprintf(volumes + used, sizeof volumes - used, "%s%d", k ? " " : "", largest);
    }
    for (int r = 0; r < p; r++) {
        int *buf = sim->buffers + (size_t)r * p;
        for (int s = 0; s < p; s++) {
            int home = aip_hypercube_home(r, p, s);
            CHECK(home >= 0 && home < p && aip_hypercube_home(r, p, home) == s,
                  "p=%d rank %d: home(%d) = %d is not an involution", p, r, s, home);
            if (s < home && home < p) {
                int swap = buf[s];
                buf[s] = buf[home];
                buf[home] = swap;
            }
        }
        for (int s = 0; s < p; s++)
            CHECK(buf[s] == s * p + r, "p=%d rank %d position %d holds (%d, %d), not (%d, %d)",
                  p, r, s, label_src(buf[s], p), label_dst(buf[s], p), s, r);
    }
    if (show)
        printf("p=%-5d %2d stages, blocks sent per stage: %s\n", p, nstages, volumes);
}

int main(int argc, char **argv)
{
    int max_p = argc > 1 ? atoi(argv[1]) : test_scale_small() ? 256 : 1024;
    simulation sim = {
        .buffers = malloc(sizeof(int) * (size_t)max_p * (size_t)max_p),
        .outboxes = malloc(sizeof(int) * (size_t)max_p * (size_t)(max_p / 2 + 1)),
        .positions = malloc(sizeof(int) * (size_t)max_p * (size_t)(max_p / 2 + 1)),
        .seen = malloc(sizeof(int) * (size_t)max_p),
        .stages = malloc(sizeof(aip_hypercube_stage) * (size_t)max_p),
    };

    if (max_p < 1 || !sim.buffers || !sim.outboxes || !sim.positions || !sim.seen ||
        !sim.stages) {
        fprintf(stderr, "usage: hypercube_sim_test [max_p >= 1], or out of memory\n");
        return 99;
    }
    for (int p = 1; p <= max_p; p++)
        simulate(&sim, p, p <= 8 || p == 12 || p == 100 || p == max_p || p == max_p - 1);
    free(sim.buffers);
    free(sim.outboxes);
    free(sim.positions);
    free(sim.seen);
    free(sim.stages);
    if (check_failures) {
        printf("hypercube_sim_test: %d failures\n", check_failures);
        return 1;
    }
    printf("hypercube_sim_test: p=1..%d, every block home\n", max_p);
    return 0;
}
