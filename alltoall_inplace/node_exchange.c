/*
 * node_exchange.c - the steps sa, rd and l are made of: in-place hsa
 * exchanges among a subset of the ranks, in which each peer's data is a list
 * of blocks (sa, rd) or one segment of the buffer (l).
 */
#include <stdlib.h>
#include <string.h>

#include "aip_internal.h"

int aip_node_arrays_alloc(aip_node_call *call, int comm_size)
{
    size_t p = (size_t)comm_size;
    call->blocks = malloc(sizeof *call->blocks * p);
    call->displacements = malloc(sizeof *call->displacements * p);
    if (!call->blocks || !call->displacements) {
        aip_node_arrays_free(call);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void aip_node_arrays_free(aip_node_call *call)
{
    free(call->blocks);
    free(call->displacements);
    call->blocks = NULL;
    call->displacements = NULL;
}

int aip_node_step(const aip_node_call *call, MPI_Comm comm, const int *positions, int per_peer,
                  const char *src)
{
    aip_segments segments = { positions, per_peer, call->block_bytes, call->displacements };
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (src != call->buf) /* out of place: the blocks that stay with this rank */
        for (int k = 0; k < per_peer; k++) {
            size_t at = (size_t)positions[rank * per_peer + k] * call->block_bytes;
            memcpy(call->buf + at, src + at, call->block_bytes);
        }
    aip_schedule_hsa.fill(rank, size, call->peers);
    return aip_exchange_segments(call->buf, src, &segments, call->peers,
                                 aip_schedule_hsa.nsteps(size), call->space, call->chunk_bytes,
                                 comm);
}

int aip_node_exchange(const aip_node_call *call, char *buf, size_t segment_bytes, MPI_Comm comm,
                      const aip_workspace *space)
{
    int rank, size;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int i = 0; i < size; i++)
        call->blocks[i] = (aip_block){ (MPI_Aint)(i * segment_bytes), (MPI_Count)segment_bytes };
    aip_schedule_hsa.fill(rank, size, call->peers);
    return aip_exchange(buf, call->blocks, call->peers, aip_schedule_hsa.nsteps(size), space,
                        call->chunk_bytes, comm);
}
