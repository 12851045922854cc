/*
 * algorithms.c - the algorithm table: every algorithm of the library, one
 * row each (select.h), with how it runs and the workspace it needs.
 *
 * The order of the rows is the order of preference where nothing is
 * measured: the FFTW transposes rank their solver instances by it under
 * FFTW_ESTIMATE (transpose/transpose-inplace.c).  HSA first, the paper's
 * choice and ours (decision.c); then LSA and MPICH's baseline, as the
 * paper measured them; then the node-aware exchanges, whose two steps cost
 * more than one where blocks are large; the hypercube, which sends each
 * byte log2(p)/2 times and pays off only for tiny blocks; the general
 * algorithm last, which takes any layout but pays for requests and phases.
 */
#include <stdlib.h>
#include <string.h>

#include "exchange/exchange.h"
#include "general/general.h"
#include "node/node_aware.h"
#include "select/select.h"

/* The schedule rows' state: their schedule, filled for this rank. */
static int schedule_allocate(const aip_algorithm_row *row, const aip_call *call, void **state)
{
    aip_steps *steps;
    int err = aip_steps_allocate(row->schedule, call, &steps);
    *state = steps;
    return err;
}

#define CHOICE(id, name, summary) { id, name, AIP_KIND_CHOICE, summary, .start = NULL }
#define SCHEDULE(id, name, summary, schedule_)                                                \
    { id, name, AIP_KIND_SCHEDULE, summary, .schedule = &schedule_,                          \
      .start = aip_start_schedule, .aux_bytes = aip_exchange_aux_bytes, .ring = 1,           \
      .allocate = schedule_allocate,                                                         \
      .release = free, .bytes = aip_steps_bytes }
/* Rows whose state is the executor's index space for lists of blocks: sa and rd,
 * which run as jobs of the executor, as the schedule rows, l and the hypercube do. */
#define NODE_STEPS(id, name, summary, start_)                                                 \
    { id, name, AIP_KIND_NODE_AWARE, summary, .start = start_,                               \
      .aux_bytes = aip_exchange_aux_bytes, .ring = 1,                                        \
      .allocate = aip_index_space_allocate, .release = free, .bytes = aip_index_space_bytes }
/* A new schedule that only its row runs needs no line in schedule.h:
 * declare it here, above the table, as FFTW's codelet lists declare their
 * codelets.  schedule.h declares the schedules other modules run too. */

static const aip_algorithm_row table[] = {
    CHOICE(AIP_ALGORITHM_DEFAULT, "default", "$AIP_ALGORITHM if set, else auto"),
    CHOICE(AIP_ALGORITHM_AUTO, "auto", "the library chooses (select/decision.c)"),
    SCHEDULE(AIP_ALGORITHM_HSA, "hsa", "hierarchical sets, at most p + ceil(log2 p) - 2 steps",
             aip_schedule_hsa),
    SCHEDULE(AIP_ALGORITHM_LSA, "lsa", "linear shift, at most p steps", aip_schedule_lsa),
    SCHEDULE(AIP_ALGORITHM_MPICH, "mpich", "MPICH's in-place pairwise exchange, 2p - 1 steps",
             aip_schedule_mpich),
    NODE_STEPS(AIP_ALGORITHM_SA, "sa",
               "send-side aggregation: within the node, then across nodes", aip_start_sa),
    NODE_STEPS(AIP_ALGORITHM_RD, "rd",
               "receive-side distribution: across nodes, then within the node", aip_start_rd),
    { AIP_ALGORITHM_L, "l", AIP_KIND_NODE_AWARE,
      "leader-based: one rank per node gathers, exchanges, scatters", .start = aip_start_l,
      .aux_bytes = aip_l_aux_bytes, .ring = 1,
      .allocate = aip_l_allocate, .release = free, .bytes = aip_l_bytes },
    { AIP_ALGORITHM_HYPERCUBE, "hypercube", AIP_KIND_ROUTED,
      "ceil(log2 p) stages of p/2 blocks, for small blocks", .start = aip_start_hypercube,
      .aux_bytes = aip_hypercube_aux_bytes, .ring = 1,
      .allocate = aip_index_space_allocate, .release = free, .bytes = aip_index_space_bytes },
    { AIP_ALGORITHM_GENERAL, "general", AIP_KIND_GENERAL,
      "the irregular in-place exchange, in phases of requests", .start = aip_start_general,
      .aux_bytes = aip_general_aux_bytes, .ring = 0, .allocate = aip_general_allocate,
      .release = aip_general_release, .bytes = aip_general_bytes },
};

#define N_ROWS ((int)(sizeof table / sizeof table[0]))

const aip_algorithm_row *aip_algorithm_row_of(AIP_Algorithm algorithm)
{
    for (int i = 0; i < N_ROWS; i++)
        if (table[i].algorithm == algorithm)
            return &table[i];
    return NULL;
}

const char *AIP_Algorithm_name(AIP_Algorithm algorithm)
{
    const aip_algorithm_row *row = aip_algorithm_row_of(algorithm);
    return row ? row->name : NULL;
}

int AIP_Algorithm_from_name(const char *name, AIP_Algorithm *algorithm)
{
    for (int i = 0; name && i < N_ROWS; i++)
        if (strcmp(table[i].name, name) == 0) {
            *algorithm = table[i].algorithm;
            return MPI_SUCCESS;
        }
    return MPI_ERR_ARG;
}

int AIP_Algorithm_at(int index, AIP_Algorithm *algorithm, AIP_Algorithm_kind *kind)
{
    if (index < 0 || index >= N_ROWS)
        return MPI_ERR_ARG;
    *algorithm = table[index].algorithm;
    *kind = table[index].kind;
    return MPI_SUCCESS;
}
