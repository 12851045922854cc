/*
 * algorithms.c - the algorithm table: every algorithm of the library, one
 * row each (select.h), and what each needs of a call.
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
#include <stdio.h>
#include <string.h>

#include "general/general.h"
#include "node/node_aware.h"
#include "select/select.h"

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

static size_t max_size(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* ---- What each kind needs (the rows' workspace functions). ---- */

/* A schedule through the executor: aux for what this rank sends, within the budget. */
static void schedule_needs(const aip_call *call, size_t budget, aip_needs *needs)
{
    size_t outgoing = 0;
    for (int j = 0; j < call->size; j++)
        if (j != call->rank)
            outgoing += (size_t)call->blocks[j].bytes;
    needs->aux_bytes = max_size(needs->aux_bytes, min_size(budget, outgoing));
    needs->ring = needs->schedule = 1;
}

/* sa and rd: schedules over lists of blocks. */
static void segments_needs(const aip_call *call, size_t budget, aip_needs *needs)
{
    schedule_needs(call, budget, needs);
    needs->segments = 1;
}

/* l: a leader holds its node's data, more than its own (nodes of up to p ranks). */
static void leader_needs(const aip_call *call, size_t budget, aip_needs *needs)
{
    segments_needs(call, budget, needs);
    size_t leader = 2 * aip_leader_bytes(call->size, call->size, (size_t)call->block_bytes);
    needs->aux_bytes = max_size(needs->aux_bytes, min_size(budget, leader));
}

/* The hypercube: aux for one stage, p/2 blocks, within the budget; where the
 * blocks are not AIP_Alltoall's (block_bytes < 0) it runs hsa.  (Should the
 * agreement find another rank's blocks not contiguous, hsa runs in this
 * smaller aux: correct, with fewer chunks in flight.) */
static void hypercube_needs(const aip_call *call, size_t budget, aip_needs *needs)
{
    if (call->block_bytes < 0) {
        schedule_needs(call, budget, needs);
        return;
    }
    size_t stage = (size_t)(call->size / 2) * (size_t)call->block_bytes;
    needs->aux_bytes = max_size(needs->aux_bytes, min_size(budget, stage));
    needs->ring = needs->schedule = needs->segments = 1;
}

/* The general algorithm: aux for what this rank receives, within the budget. */
static void general_needs(const aip_call *call, size_t budget, aip_needs *needs)
{
    size_t incoming = 0;
    for (int j = 0; j < call->size; j++)
        incoming += (size_t)call->recv_blocks[j].bytes;
    needs->aux_bytes = max_size(needs->aux_bytes, min_size(budget, incoming));
    needs->general = 1;
}

/* ---- The table. ---- */

#define CHOICE(id, name, summary) { id, name, AIP_KIND_CHOICE, summary, NULL, NULL, NULL }
#define SCHEDULE(id, name, summary, schedule)                                                 \
    { id, name, AIP_KIND_SCHEDULE, summary, &schedule, aip_run_schedule, schedule_needs }

static const aip_algorithm_row table[] = {
    CHOICE(AIP_ALGORITHM_DEFAULT, "default", "$AIP_ALGORITHM if set, else auto"),
    CHOICE(AIP_ALGORITHM_AUTO, "auto", "the library chooses (select/decision.c)"),
    SCHEDULE(AIP_ALGORITHM_HSA, "hsa", "hierarchical sets, at most p + ceil(log2 p) - 2 steps",
             aip_schedule_hsa),
    SCHEDULE(AIP_ALGORITHM_LSA, "lsa", "linear shift, at most p steps", aip_schedule_lsa),
    SCHEDULE(AIP_ALGORITHM_MPICH, "mpich", "MPICH's in-place pairwise exchange, 2p - 1 steps",
             aip_schedule_mpich),
    { AIP_ALGORITHM_SA, "sa", AIP_KIND_NODE_AWARE,
      "send-side aggregation: within the node, then across nodes", NULL, aip_run_sa,
      segments_needs },
    { AIP_ALGORITHM_RD, "rd", AIP_KIND_NODE_AWARE,
      "receive-side distribution: across nodes, then within the node", NULL, aip_run_rd,
      segments_needs },
    { AIP_ALGORITHM_L, "l", AIP_KIND_NODE_AWARE,
      "leader-based: one rank per node gathers, exchanges, scatters", NULL, aip_run_l,
      leader_needs },
    { AIP_ALGORITHM_HYPERCUBE, "hypercube", AIP_KIND_ROUTED,
      "ceil(log2 p) stages of p/2 blocks, for small blocks", NULL, aip_run_hypercube,
      hypercube_needs },
    { AIP_ALGORITHM_GENERAL, "general", AIP_KIND_GENERAL,
      "the irregular in-place exchange, in phases of requests", NULL, aip_run_general,
      general_needs },
};

#define N_ROWS ((int)(sizeof table / sizeof table[0]))

const aip_algorithm_row *aip_algorithm_row_of(AIP_Algorithm algorithm)
{
    for (int i = 0; i < N_ROWS; i++)
        if (table[i].algorithm == algorithm)
            return &table[i];
    return NULL;
}

void aip_algorithm_names(char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int i = 0; i < N_ROWS && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, "%s%s", i ? ", " : "", table[i].name);
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
