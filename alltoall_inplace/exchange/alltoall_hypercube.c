/*
 * alltoall_hypercube.c - the hypercube all-to-all of Plimpton et al.
 * (Cluster 2006) for AIP_Alltoall's equal blocks, in place: ceil(log2 p)
 * stages of one message each way instead of p - 1 exchanges, for blocks so
 * small that start-up costs dominate.  The stages, and the proof that each
 * received block lands where a sent one was, are pure functions
 * (schedule/schedule_hypercube.c); here they run through the executor.
 *
 * A stage sends about half the buffer (p / 2 blocks, gathered into the aux
 * buffer where they fit in a chunk, so one message per stage while p / 2
 * blocks fit in a chunk) and receives as many blocks into the places they
 * left, scattered there by an indexed datatype.  The next stage sends what
 * this one received, so stages do not overlap.  For p other than a power of
 * two, a last pass swaps pairs of blocks home through the aux buffer.
 * Extra memory: within the aux budget, a stage's data (p / 2 blocks) or
 * what hsa needs, whichever is larger, since hsa runs instead should the
 * agreement find another rank's blocks not contiguous; and O(p) integers.
 *
 * Errors: a rank whose MPI fails winds down through the remaining stages,
 * its messages empty (exchange.h), and skips the final pass.
 */
#include <string.h>

#include "call/plan.h"
#include "exchange/exchange.h"
#include "schedule/hypercube.h"

/* Exchange the contents of two blocks through aux, a chunk at a time. */
static void swap_blocks(char *a, char *b, size_t bytes, char *aux, size_t chunk_bytes)
{
    for (size_t done = 0; done < bytes; done += chunk_bytes) {
        size_t len = bytes - done < chunk_bytes ? bytes - done : chunk_bytes;
        memcpy(aux, a + done, len);
        memcpy(a + done, b + done, len);
        memcpy(b + done, aux, len);
    }
}

/* A stage's data, p / 2 blocks, within the budget. */
size_t aip_hypercube_aux_bytes(const aip_call *call, size_t budget)
{
    if (call->block_bytes < 0)
        return 0; /* not AIP_Alltoall's blocks: never runs */
    size_t stage = (size_t)(call->size / 2) * (size_t)call->block_bytes;
    return stage < budget ? stage : budget;
}

int aip_run_hypercube(const aip_plan *plan, char *buf, const char *sendbuf)
{
    const aip_call *call = &plan->call;
    const aip_index_space *index = plan->state;
    int rank = call->rank, p = call->size, err = MPI_SUCCESS;
    size_t block = (size_t)call->block_bytes;
    char *blocks = buf + call->first_offset;

    if (sendbuf) /* out of place: the stages work in place on a copy */
        memcpy(blocks, sendbuf + call->first_offset, (size_t)p * block);
    if (block == 0) /* agreed on every rank */
        return MPI_SUCCESS;
    for (int k = 0; k < aip_hypercube_nstages(p); k++) {
        aip_hypercube_stage stage = aip_hypercube_stage_of(rank, p, k, index->peers);
        err = aip_exchange_routed(blocks, index->peers, stage.count, block, stage.to, stage.from,
                                  index->displacements, &plan->space, plan->chunk_bytes,
                                  plan->private_comm, err);
    }
    if (err != MPI_SUCCESS)
        return err;
    size_t chunk = plan->chunk_bytes < plan->space.aux_bytes ? plan->chunk_bytes
                                                             : plan->space.aux_bytes;
    for (int s = 0; s < p; s++) {
        int home = aip_hypercube_home(rank, p, s);
        if (s < home)
            swap_blocks(blocks + (size_t)s * block, blocks + (size_t)home * block, block,
                        plan->space.aux, chunk);
    }
    return MPI_SUCCESS;
}
