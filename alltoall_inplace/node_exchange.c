/*
 * node_exchange.c - the steps sa, rd and l are made of: an in-place hsa
 * exchange among a subset of the ranks in which each peer's data is one
 * segment of the buffer, and the permutations between exchanges.
 */
#include <stdlib.h>

#include "aip_internal.h"

int aip_node_arrays_alloc(aip_node_call *call, int comm_size)
{
    size_t p = (size_t)comm_size;
    call->blocks = malloc(sizeof *call->blocks * p);
    call->dest = malloc(sizeof(int) * 4 * p); /* dest p, scratch 3p */
    if (!call->blocks || !call->dest) {
        aip_node_arrays_free(call);
        return MPI_ERR_NO_MEM;
    }
    call->scratch = call->dest + p;
    return MPI_SUCCESS;
}

void aip_node_arrays_free(aip_node_call *call)
{
    free(call->blocks);
    free(call->dest);
    call->blocks = NULL;
    call->dest = call->scratch = NULL;
}

void aip_node_permute(const aip_node_call *call)
{
    aip_permute_blocks(call->buf, call->block_bytes, call->nodes->shape.size, call->dest,
                       call->space->aux, call->space->aux_bytes, call->scratch);
}

void aip_node_first_layout(const aip_node_call *call)
{
    if (call->sendbuf)
        aip_scatter_blocks(call->buf, call->sendbuf, call->block_bytes, call->nodes->shape.size,
                           call->dest);
    else
        aip_node_permute(call);
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

int aip_node_two_steps(const aip_node_call *call, aip_layout_fn first_layout, MPI_Comm first,
                       int first_size, MPI_Comm second, int second_size,
                       aip_layout_fn last_layout)
{
    const aip_shape *shape = &call->nodes->shape;
    size_t block = call->block_bytes;
    int err;

    first_layout(shape, call->dest);
    aip_node_first_layout(call);
    /* each of the first step's peers gets its blocks for all second-step peers */
    if ((err = aip_node_exchange(call, call->buf, (size_t)second_size * block, first,
                                 call->space)) != MPI_SUCCESS)
        return err;
    aip_layout_transpose(first_size, second_size, call->dest);
    aip_node_permute(call);
    if ((err = aip_node_exchange(call, call->buf, (size_t)first_size * block, second,
                                 call->space)) != MPI_SUCCESS)
        return err;
    last_layout(shape, call->dest);
    aip_node_permute(call);
    return MPI_SUCCESS;
}
