/*
 * The choice of algorithm (select/decision.c), without MPI: calls and
 * machines described by hand, no process started.
 *   - A table of cases: ranks, nodes, block size, layout, budget and the
 *     algorithm asked -> the algorithm run, and whether a reason is given
 *     for running another than the one asked.
 *   - Over every algorithm of the table, block sizes, rank counts and node
 *     shapes: the algorithm run is a row that runs (not a choice), one of
 *     the rows aip_may_run said the call may turn into (the pipeline made
 *     the workspace of those alone), and each of those rows' aux fits the
 *     budget.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "select/select.h"
#include "check.h"

enum { MAX_P = 64 };

/* A call of p ranks as seen by `rank`: AIP_Alltoall's equal contiguous blocks
 * (block_bytes >= 0), blocks of another layout (-1: Alltoallv with a gap),
 * or a general call with separate receive blocks. */
typedef struct test_call {
    aip_call call;
    aip_block blocks[MAX_P], recv_blocks[MAX_P];
} test_call;

static void make_call(test_call *t, int rank, int p, long long block_bytes, int general)
{
    long long bytes = block_bytes < 0 ? 24 : block_bytes;
    memset(t, 0, sizeof *t);
    for (int j = 0; j < p; j++) {
        t->blocks[j] = (aip_block){ (MPI_Aint)(j * (bytes + (block_bytes < 0))), bytes };
        t->recv_blocks[j] = t->blocks[j];
    }
    t->call.fn = "decision_test";
    t->call.rank = rank;
    t->call.size = p;
    t->call.blocks = t->blocks;
    t->call.recv_blocks = general ? t->recv_blocks : t->blocks;
    t->call.block_bytes = general ? -1 : block_bytes;
}

/* n nodes of q ranks, block placement; q_last ranks on the last node. */
typedef struct test_shape {
    aip_shape shape;
    int node_of[MAX_P], local_of[MAX_P], rank_at[MAX_P], by_local[MAX_P];
} test_shape;

static const aip_shape *make_shape(test_shape *t, int n, int q, int q_last)
{
    int p = (n - 1) * q + q_last;
    for (int r = 0; r < p; r++)
        t->node_of[r] = r / q, t->local_of[r] = r % q;
    t->shape = (aip_shape){ p, n, q > q_last ? q : q_last, q < q_last ? q : q_last,
                            t->node_of, t->local_of, NULL, NULL };
    if (q == q_last) {
        aip_shape_rank_tables(&t->shape, t->rank_at, t->by_local);
        t->shape.rank_at = t->rank_at, t->shape.by_local = t->by_local;
    }
    return &t->shape;
}

static const char *name_of(AIP_Algorithm algorithm)
{
    const char *name = AIP_Algorithm_name(algorithm);
    return name ? name : "?";
}

/* ---- The table of cases. ---- */

typedef struct decision_case {
    const char *what;
    int ranks, nodes, per_node;  /* nodes 0: not found (the shape is NULL) */
    long long block_bytes;       /* -1: not AIP_Alltoall's contiguous blocks */
    int general;
    long long budget;
    AIP_Algorithm asked, runs;
    int reason;                  /* a reason is given for running another */
} decision_case;

#define MiB (1LL << 20)
static const decision_case cases[] = {
    { "auto without nodes", 8, 0, 0, 4096, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_HSA, 0 },
    { "auto, tiny blocks on 4 x 4", 16, 4, 4, 16, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_L, 0 },
    { "auto, 1 KiB on 4 x 4", 16, 4, 4, 1024, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_SA, 0 },
    { "auto, 4 KiB on 4 x 4", 16, 4, 4, 4096, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_HSA, 0 },
    { "auto, 1 KiB on 2 x 8", 16, 2, 8, 1024, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_SA, 0 },
    { "auto, 4 KiB on 2 x 8", 16, 2, 8, 4096, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_LSA, 0 },
    { "auto, 4 KiB on 2 nodes, 4 + 3", 7, 2, 4, 4096, 0, MiB, AIP_ALGORITHM_AUTO,
      AIP_ALGORITHM_LSA, 0 },
    { "auto, 4 KiB on 2 nodes of 1", 2, 2, 1, 4096, 0, MiB, AIP_ALGORITHM_AUTO,
      AIP_ALGORITHM_HSA, 0 },
    { "auto, 4 KiB on 1 node", 8, 1, 8, 4096, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_HSA, 0 },
    { "auto, 4 KiB on 3 x 4", 12, 3, 4, 4096, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_HSA, 0 },
    { "auto, tiny blocks, leader too big", 16, 4, 4, 16, 0, 256, AIP_ALGORITHM_AUTO,
      AIP_ALGORITHM_SA, 0 },
    { "auto, 64 B on 16 nodes of 1", 16, 16, 1, 64, 0, MiB, AIP_ALGORITHM_AUTO,
      AIP_ALGORITHM_HYPERCUBE, 0 },
    { "auto, 64 B on 8 nodes of 1", 8, 8, 1, 64, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_HSA,
      0 },
    { "auto, 256 B on 16 nodes of 1", 16, 16, 1, 256, 0, MiB, AIP_ALGORITHM_AUTO,
      AIP_ALGORITHM_HSA, 0 },
    { "auto, Alltoallv layout", 16, 0, 0, -1, 0, MiB, AIP_ALGORITHM_AUTO, AIP_ALGORITHM_HSA, 0 },
    { "lsa", 7, 0, 0, 100, 0, MiB, AIP_ALGORITHM_LSA, AIP_ALGORITHM_LSA, 0 },
    { "mpich", 7, 0, 0, 100, 0, MiB, AIP_ALGORITHM_MPICH, AIP_ALGORITHM_MPICH, 0 },
    { "general asked by a symmetric call", 5, 0, 0, 100, 0, MiB, AIP_ALGORITHM_GENERAL,
      AIP_ALGORITHM_GENERAL, 0 },
    { "a general call", 5, 0, 0, -1, 1, MiB, AIP_ALGORITHM_GENERAL, AIP_ALGORITHM_GENERAL, 0 },
    { "sa on 4 x 4", 16, 4, 4, 4096, 0, MiB, AIP_ALGORITHM_SA, AIP_ALGORITHM_SA, 0 },
    { "rd on 2 x 3", 6, 2, 3, 4096, 0, MiB, AIP_ALGORITHM_RD, AIP_ALGORITHM_RD, 0 },
    { "sa on unequal nodes", 7, 2, 4, 4096, 0, MiB, AIP_ALGORITHM_SA, AIP_ALGORITHM_HSA, 1 },
    { "sa on one node", 4, 1, 4, 4096, 0, MiB, AIP_ALGORITHM_SA, AIP_ALGORITHM_HSA, 1 },
    { "sa on nodes of one rank", 4, 4, 1, 4096, 0, MiB, AIP_ALGORITHM_SA, AIP_ALGORITHM_HSA, 1 },
    { "sa, Alltoallv layout", 16, 0, 0, -1, 0, MiB, AIP_ALGORITHM_SA, AIP_ALGORITHM_HSA, 1 },
    { "l, leader fits", 16, 4, 4, 64, 0, MiB, AIP_ALGORITHM_L, AIP_ALGORITHM_L, 0 },
    { "l, leader too big", 16, 4, 4, 16384, 0, MiB, AIP_ALGORITHM_L, AIP_ALGORITHM_SA, 1 },
    { "hypercube", 16, 0, 0, 64, 0, MiB, AIP_ALGORITHM_HYPERCUBE, AIP_ALGORITHM_HYPERCUBE, 0 },
    { "hypercube, Alltoallv layout", 16, 0, 0, -1, 0, MiB, AIP_ALGORITHM_HYPERCUBE,
      AIP_ALGORITHM_HSA, 1 },
};

static void check_case(const decision_case *c)
{
    test_call t;
    test_shape s;
    const char *why;

    make_call(&t, 0, c->ranks, c->block_bytes, c->general);
    const aip_shape *shape = c->nodes ? make_shape(&s, c->nodes, c->per_node,
                                                   c->ranks - (c->nodes - 1) * c->per_node)
                                      : NULL;
    AIP_Algorithm asked = aip_asked(&t.call, c->asked);
    AIP_Algorithm runs = aip_decide(&t.call, asked, shape, c->budget, &why);
    CHECK(runs == c->runs, "%s: %s runs %s, expected %s", c->what, name_of(c->asked),
          name_of(runs), name_of(c->runs));
    CHECK(!why == !c->reason, "%s: %s", c->what, why ? why : "no reason given");
}

/* ---- Properties over all rows, sizes and shapes. ---- */

static int contains(const AIP_Algorithm *rows, int count, AIP_Algorithm algorithm)
{
    for (int i = 0; i < count; i++)
        if (rows[i] == algorithm)
            return 1;
    return 0;
}

static void check_properties(int *cases_checked)
{
    static const long long block_sizes[] = { -1, 0, 1, 16, 64, 128, 2048, 4096, 1 << 20 };
    static const long long budgets[] = { AIP_AUX_BYTES_MIN, 4096, MiB };
    static const int rank_counts[] = { 1, 2, 3, 7, 16, 64 };
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;

    for (int index = 0; AIP_Algorithm_at(index, &algorithm, &kind) == MPI_SUCCESS; index++) {
        if (algorithm == AIP_ALGORITHM_DEFAULT) /* the options resolve it first */
            continue;
        for (size_t b = 0; b < sizeof block_sizes / sizeof *block_sizes; b++)
            for (size_t r = 0; r < sizeof rank_counts / sizeof *rank_counts; r++)
                for (int general = 0; general <= 1; general++)
                    for (int q = 0; q <= 4; q++) { /* 0: no nodes; 4 with a smaller last */
                        int p = rank_counts[r];
                        if (general && block_sizes[b] != -1)
                            continue;
                        test_call t;
                        test_shape s;
                        make_call(&t, p - 1, p, block_sizes[b], general);
                        AIP_Algorithm asked = aip_asked(&t.call, algorithm);
                        AIP_Algorithm rows[AIP_MAY_RUN_MAX];
                        int count = aip_may_run(&t.call, asked, rows);
                        int node_aware = aip_may_run_node_aware(&t.call, asked);
                        const aip_shape *shape = NULL;
                        if (q > 0 && node_aware) {
                            int per_node = q < p ? q : p, n = (p + per_node - 1) / per_node;
                            shape = make_shape(&s, n, per_node, p - (n - 1) * per_node);
                        }
                        for (size_t k = 0; k < sizeof budgets / sizeof *budgets; k++) {
                            const char *why;
                            AIP_Algorithm runs = aip_decide(&t.call, asked, shape, budgets[k],
                                                            &why);
                            const aip_algorithm_row *row = aip_algorithm_row_of(runs);
                            (*cases_checked)++;
                            CHECK(row && row->start,
                                  "%s, p %d, blocks %lld: runs %s, which cannot run",
                                  name_of(algorithm), p, block_sizes[b], name_of(runs));
                            CHECK(contains(rows, count, runs),
                                  "%s, p %d, blocks %lld, %s, nodes of %d: runs %s, not among "
                                  "the %d rows it may run",
                                  name_of(algorithm), p, block_sizes[b],
                                  general ? "general" : "symmetric", q, name_of(runs), count);
                            CHECK(!general || runs == AIP_ALGORITHM_GENERAL,
                                  "a general call asking %s runs %s", name_of(algorithm),
                                  name_of(runs));
                            CHECK(shape == NULL || row->kind != AIP_KIND_NODE_AWARE ||
                                      aip_shape_two_level(shape),
                                  "%s runs node-aware on a machine of one level",
                                  name_of(algorithm));
                            for (int i = 0; i < count; i++) {
                                const aip_algorithm_row *may = aip_algorithm_row_of(rows[i]);
                                size_t aux = may->aux_bytes(&t.call, (size_t)budgets[k]);
                                CHECK(aux <= (size_t)budgets[k],
                                      "%s: %zu bytes of aux in a budget of %lld", may->name,
                                      aux, budgets[k]);
                            }
                        }
                    }
    }
}

int main(void)
{
    int checked = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        check_case(&cases[i]);
    check_properties(&checked);
    printf("decision_test: %zu cases, %d choices checked against aip_may_run: %s\n",
           sizeof cases / sizeof *cases, checked, check_failures ? "FAIL" : "ok");
    return check_failures ? 1 : 0;
}
