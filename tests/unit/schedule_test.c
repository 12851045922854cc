/*
 * Property tests of the exchange schedules, without MPI, for p = 1..1024:
 * every schedule row of the library's table (AIP_Algorithm_at), so that a
 * schedule added to the table is checked here without a line changed.
 *   - no rank is paired with itself, peers are in range;
 *   - partners agree on the step (peer_r[s] = q  =>  peer_q[s] = r);
 *   - every unordered pair of distinct ranks meets exactly once;
 *   - step counts: MPICH 2p - 1, LSA <= p, HSA <= p + ceil(log2 p) - 2
 *     (p - 1 for powers of two);
 *   - each rank meets its partners in the order of the paper's pseudo-code
 *     (Figs. 1, 3 and 4 of Hofmann & Ruenger 2013, transcribed literally;
 *     Fig. 4 with schedule_hsa.c's one change, below).
 * Usage: schedule_test [max_p (1024; 256 under AIP_TEST_SCALE=small)]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/select.h"
#include "check.h"

/* ---- The paper's pseudo-code, literally: rank's partners in order. ---- */

static int paper_mpich(int rank, int p, int *out)
{
    int n = 0;
    for (int i = 0; i < p; i++)
        for (int j = i; j < p; j++) {
            if (i == rank) {
                if (j != rank) /* the paper's loop also "exchanges" with itself */
                    out[n++] = j;
            } else if (j == rank) {
                out[n++] = i;
            }
        }
    return n;
}

static int paper_lsa(int rank, int p, int *out)
{
    int n = 0;
    for (int i = 0; i < p; i++) {
        int j = (i - rank + p) % p;
        if (j != rank)
            out[n++] = j;
    }
    return n;
}

static int min_int(int a, int b) { return a < b ? a : b; }

/* Fig. 4 literally, one level at a time, then schedule_hsa.c's one change:
 * the level's partners put in the order where lower process low + a meets
 * upper process mid + b at step a + b (mod n), the paper's shift's order
 * being i = b - a.  The sets come from the paper, the order from the rule,
 * so neither is the library's loop; two partners on one step give -2. */
static int paper_hsa(int rank, int p, int *out)
{
    enum { MAX_LEVEL = 1024 };
    int n_out = 0, low = 0, high = p;
    while (low + 1 < high) {
        int mid = (low + high) / 2, n = high - mid;
        int level[MAX_LEVEL], count = 0, at_step[MAX_LEVEL];
        if (rank < mid) {
            for (int i = 0; i < n; i++) {
                int shift = min_int(rank - low, n - 1);
                level[count++] = mid + (i + shift) % n;
            }
        } else {
            int m = mid - low;
            for (int i = 0; i < m; i++) {
                int shift = min_int(rank - mid, m - 1);
                level[count++] = low + (shift - i + m) % m;
            }
        }
        for (int i = 0; i < n; i++)
            at_step[i] = AIP_IDLE;
        for (int k = 0; k < count; k++) {
            int a = rank < mid ? rank - low : level[k] - low;
            int b = rank < mid ? level[k] - mid : rank - mid;
            int step = (a + b) % n;
            at_step[step] = at_step[step] == AIP_IDLE ? level[k] : -2;
        }
        for (int i = 0; i < n; i++)
            if (at_step[i] != AIP_IDLE)
                out[n_out++] = at_step[i];
        if (rank < mid)
            high = mid;
        else
            low = mid;
    }
    return n_out;
}

static int ceil_log2(int p)
{
    int k = 0;
    while ((1 << k) < p)
        k++;
    return k;
}

/* The papers' bounds on the steps; any other schedule must fit the plan's
 * room for 2p steps (exchange.h's aip_steps). */
static int max_steps(const aip_schedule *sched, int p)
{
    if (sched == &aip_schedule_mpich)
        return 2 * p - 1;
    if (sched == &aip_schedule_lsa)
        return p;
    if (sched != &aip_schedule_hsa)
        return 2 * p;
    if ((p & (p - 1)) == 0)
        return p > 1 ? p - 1 : 0;
    return p + ceil_log2(p) - 2;
}

/* The paper's pseudo-code of a schedule, where it has one. */
static const struct {
    const aip_schedule *sched;
    int (*paper)(int, int, int *);
    int paper_max_p; /* the literal MPICH loop is O(p^2) per rank */
} papers[] = {
    { &aip_schedule_mpich, paper_mpich, 128 },
    { &aip_schedule_lsa, paper_lsa, 1 << 30 },
    { &aip_schedule_hsa, paper_hsa, 1 << 30 },
};

/*
 * step_of[r * p + q] = the step at which r meets q (-1: never).  Partners
 * agree on the step iff the matrix is symmetric; it is compared in tiles so
 * that p = 1024 stays cache-friendly.
 */
static void check_schedule(const aip_schedule *sched, int (*paper)(int, int, int *), int p,
                           int *step_of, int *row, int *order, int *expect)
{
    enum { TILE = 64 };
    int nsteps = sched->nsteps(p);

    CHECK(nsteps <= max_steps(sched, p), "%s p=%d: %d steps > bound %d", sched->name, p,
          nsteps, max_steps(sched, p));
    if (sched == &aip_schedule_mpich)
        CHECK(nsteps == 2 * p - 1, "mpich p=%d: %d steps, expected 2p-1", p, nsteps);
    if (sched == &aip_schedule_hsa && (p & (p - 1)) == 0 && p > 1)
        CHECK(nsteps == p - 1, "hsa p=%d (power of 2): %d steps, expected p-1", p, nsteps);

    for (size_t i = 0; i < (size_t)p * p; i++)
        step_of[i] = -1;
    for (int r = 0; r < p; r++) {
        int *met = step_of + (size_t)r * p, n = 0;
        sched->fill(r, p, row);
        for (int s = 0; s < nsteps; s++) {
            int q = row[s];
            if (q == AIP_IDLE)
                continue;
            CHECK(q >= 0 && q < p && q != r, "%s p=%d rank %d step %d: bad peer %d",
                  sched->name, p, r, s, q);
            if (q < 0 || q >= p)
                continue;
            CHECK(met[q] < 0, "%s p=%d: ranks %d and %d meet at steps %d and %d", sched->name, p,
                  r, q, met[q], s);
            met[q] = s;
            order[n++] = q;
        }
        for (int q = 0; q < p; q++)
            CHECK((met[q] >= 0) == (q != r), "%s p=%d: ranks %d and %d never meet", sched->name,
                  p, r, q);
        if (!paper)
            continue;
        int n_paper = paper(r, p, expect);
        CHECK(n == n_paper && memcmp(order, expect, sizeof(int) * (size_t)n) == 0,
              "%s p=%d rank %d: order of partners differs from the paper's pseudo-code",
              sched->name, p, r);
    }
    for (int r0 = 0; r0 < p; r0 += TILE)
        for (int q0 = r0; q0 < p; q0 += TILE)
            for (int r = r0; r < r0 + TILE && r < p; r++)
                for (int q = q0; q < q0 + TILE && q < p; q++)
                    CHECK(step_of[(size_t)r * p + q] == step_of[(size_t)q * p + r],
                          "%s p=%d: %d meets %d at step %d, but %d meets %d at step %d",
                          sched->name, p, r, q, step_of[(size_t)r * p + q], q, r,
                          step_of[(size_t)q * p + r]);
}

int main(int argc, char **argv)
{
    int max_p = argc > 1 ? atoi(argv[1]) : test_scale_small() ? 256 : 1024;
    int *step_of = malloc(sizeof(int) * (size_t)max_p * max_p);
    int *row = malloc(sizeof(int) * (size_t)(2 * max_p));
    int *order = malloc(sizeof(int) * (size_t)max_p);
    int *expect = malloc(sizeof(int) * (size_t)max_p * max_p);

    if (!step_of || !row || !order || !expect) {
        fprintf(stderr, "out of memory\n");
        return 99;
    }
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;
    int checked = 0;
    for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++) {
        const aip_schedule *sched = aip_algorithm_row_of(algorithm)->schedule;
        if (kind != AIP_KIND_SCHEDULE)
            continue;
        int (*paper)(int, int, int *) = NULL;
        int paper_max_p = 0;
        for (size_t k = 0; k < sizeof papers / sizeof papers[0]; k++)
            if (papers[k].sched == sched)
                paper = papers[k].paper, paper_max_p = papers[k].paper_max_p;
        CHECK(sched != NULL, "%s: a schedule row without a schedule",
              AIP_Algorithm_name(algorithm));
        if (!sched)
            continue;
        for (int p = 1; p <= max_p; p++) /* beyond paper_max_p, every property but the order */
            check_schedule(sched, p <= paper_max_p ? paper : NULL, p, step_of, row, order, expect);
        printf("%-5s p=1..%d: steps(7)=%d steps(%d)=%d, ", sched->name, max_p, sched->nsteps(7),
               max_p, sched->nsteps(max_p));
        if (paper)
            printf("paper order checked for p<=%d\n", paper_max_p < max_p ? paper_max_p : max_p);
        else
            printf("no paper pseudo-code to compare\n");
        checked++;
    }
    CHECK(checked >= 3, "only %d schedule rows in the table", checked);
    free(step_of);
    free(row);
    free(order);
    free(expect);
    if (check_failures) {
        printf("schedule_test: %d failures\n", check_failures);
        return 1;
    }
    printf("schedule_test: all properties hold\n");
    return 0;
}
