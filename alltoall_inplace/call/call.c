/*
 * call.c - a call as its front end describes it: one byte range per peer
 * (two for a general call), with the local checks of each block.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call/call.h"

int aip_call_begin(aip_call *call, const char *fn, void *buf, int binds_buffer, MPI_Comm comm,
                   int general)
{
    int inter;

    memset(call, 0, sizeof *call);
    call->fn = fn;
    call->buf = buf;
    call->binds_buffer = binds_buffer;
    call->comm = comm;
    call->error = MPI_SUCCESS;
    call->block_bytes = -1;
    /* Errors of the communicator itself are the same on all ranks: no agreement needed. */
    if (comm == MPI_COMM_NULL)
        return aip_raise(MPI_COMM_NULL, MPI_ERR_COMM, fn, "the communicator is MPI_COMM_NULL");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return aip_raise(MPI_COMM_NULL, MPI_ERR_COMM, fn, "the communicator is not valid");
    if (inter)
        return aip_raise(comm, MPI_ERR_COMM, fn,
                         "intercommunicators are not supported (MPI has no in-place "
                         "all-to-all on them either)");
    MPI_Comm_rank(comm, &call->rank);
    MPI_Comm_size(comm, &call->size);
    call->blocks = aip_calloc((size_t)call->size, sizeof *call->blocks);
    call->recv_blocks =
        general ? aip_calloc((size_t)call->size, sizeof *call->blocks) : call->blocks;
    if (!call->blocks || !call->recv_blocks)
        aip_call_error(call, MPI_ERR_NO_MEM, "cannot allocate %d block descriptors", call->size);
    return MPI_SUCCESS;
}

void aip_call_free(aip_call *call)
{
    if (aip_call_general(call))
        free(call->recv_blocks);
    free(call->blocks);
    call->blocks = call->recv_blocks = NULL;
}

void aip_call_set_block(aip_call *call, aip_block *blocks, int peer, int count,
                        const aip_type_info *type, MPI_Aint displacement, const char *what)
{
    if (call->error != MPI_SUCCESS || count == 0) /* before reading type: it may not be set */
        return;
    MPI_Count bytes = (MPI_Count)count * type->size;
    if (bytes == 0)
        return;
    if (!type->dense || (count > 1 && type->extent != (MPI_Aint)type->size)) {
        call->unmovable = 1;
        aip_call_error(call, MPI_ERR_TYPE,
                       "%s (the block for rank %d) has gaps between or inside its elements, or "
                       "places them out of order; in place, only datatypes whose elements are "
                       "contiguous bytes are supported",
                       what, peer);
        return;
    }
    /* MPI's own calls take MPI_BOTTOM (NULL in Open MPI and MPICH) with datatypes of
     * absolute addresses (MPI-3.1 Sect. 4.1.12), so the PMPI layer must too; AIP_* keep
     * NULL an error: they do not promise MPI_BOTTOM, and there NULL is a failed malloc. */
    if (call->binds_buffer &&
        (call->buf == MPI_IN_PLACE ||
         (!call->buf && call->binds_buffer != AIP_BUFFER_OR_BOTTOM))) {
        aip_call_error(call, MPI_ERR_BUFFER, "buf is %s but the block for rank %d has %lld bytes",
                       call->buf ? "MPI_IN_PLACE" : "NULL", peer, (long long)bytes);
        return;
    }
    blocks[peer].offset = displacement + type->true_lb;
    blocks[peer].bytes = bytes;
}

void aip_call_rebase_bottom(aip_call *call)
{
    MPI_Aint lowest = 0;
    int found = 0;

    if (call->binds_buffer != AIP_BUFFER_OR_BOTTOM || call->buf != MPI_BOTTOM ||
        call->error != MPI_SUCCESS)
        return;
    /* The executors add offsets to buf, and arithmetic on a null pointer is undefined in
     * C: the buffer becomes the lowest block's address (no data: nothing moves, NULL stays). */
    for (int general = 0; general <= aip_call_general(call); general++) {
        const aip_block *blocks = general ? call->recv_blocks : call->blocks;
        for (int j = 0; j < call->size; j++)
            if (blocks[j].bytes > 0 && (!found || blocks[j].offset < lowest)) {
                lowest = blocks[j].offset;
                found = 1;
            }
    }
    if (!found)
        return;
    for (int general = 0; general <= aip_call_general(call); general++) {
        aip_block *blocks = general ? call->recv_blocks : call->blocks;
        for (int j = 0; j < call->size; j++)
            blocks[j].offset -= lowest;
    }
    call->first_offset -= lowest;
    call->buf = (char *)(uintptr_t)lowest;
}

void aip_call_for_mpi(aip_call *call, const char *why)
{
    if (call->error == MPI_SUCCESS) /* a worse error of this rank's stays an error */
        call->unmovable = 1;
    aip_call_error(call, MPI_ERR_TYPE, "%s", why);
}

void aip_call_null_type_at_zero_count(aip_call *call, const char *what)
{
    char why[64];
    snprintf(why, sizeof why, "%s is MPI_DATATYPE_NULL (with a zero count)", what);
    aip_call_for_mpi(call, why);
}

int aip_call_type_info(aip_call *call, MPI_Datatype type, aip_type_info *info, const char *what)
{
    int err = aip_type_info_get(type, info);
    if (err == MPI_ERR_NO_MEM)
        aip_call_error(call, MPI_ERR_NO_MEM, "cannot allocate the arrays to analyse %s", what);
    else if (err != MPI_SUCCESS)
        aip_call_error(call, MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL or not valid", what);
    return err == MPI_SUCCESS;
}

int aip_describe_mpi_error(aip_call *call, int err, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int length, error_class;

    MPI_Error_string(err, text, &length);
    MPI_Error_class(err, &error_class);
    snprintf(call->message, sizeof call->message, "%.60s: %.250s", what, text);
    return error_class;
}

int aip_raise_mpi_error(aip_call *call, int err, const char *what)
{
    int error_class = aip_describe_mpi_error(call, err, what);
    return aip_raise(call->comm, error_class, call->fn, call->message);
}
