/*
 * alltoall.c - AIP_Alltoall, the in-place MPI_Alltoall, its plan
 * (AIP_Alltoall_init), and AIP_Alltoall_oop, the same exchange from a
 * separate send buffer; both also as the PMPI layer's MPI_Alltoall.
 */
#include <stdint.h>

#include "api/api.h"
#include "call/call.h"
#include "pipeline/pipeline.h"

/* Block j at j * count * extent; contiguous, for the node-aware algorithms,
 * when no gap separates the elements of consecutive blocks. */
static int describe(aip_call *call, const char *fn, void *buf, int binds_buffer, int count,
                    MPI_Datatype datatype, MPI_Comm comm)
{
    aip_type_info type;
    int err;

    if ((err = aip_call_begin(call, fn, buf, binds_buffer, comm, 0)) != MPI_SUCCESS)
        return err;
    if (count < 0)
        aip_call_error(call, MPI_ERR_COUNT, "count = %d is negative", count);
    else if (count == 0 && datatype == MPI_DATATYPE_NULL)
        aip_call_null_type_at_zero_count(call, "datatype");
    else
        aip_call_type_info(call, datatype, &type, "datatype");
    for (int j = 0; j < call->size && call->error == MPI_SUCCESS; j++)
        aip_call_set_block(call, call->blocks, j, count, &type, (MPI_Aint)j * count * type.extent,
                           "datatype");
    if (call->error == MPI_SUCCESS && type.extent == (MPI_Aint)type.size) {
        call->block_bytes = (MPI_Count)count * type.size;
        call->first_offset = type.true_lb;
    }
    return MPI_SUCCESS;
}

/* persistent: NULL to run now, or where the PMPI layer's persistent request keeps its plan */
static int run_in_place(const char *fn, int declines_unmovable, void *buf, int count,
                        MPI_Datatype datatype, MPI_Comm comm, const AIP_Options *options,
                        aip_plan **persistent)
{
    aip_call call;
    int err;

    /* declines_unmovable: the PMPI layer's call, which takes MPI_BOTTOM as MPI does */
    if ((err = describe(&call, fn, buf, declines_unmovable ? AIP_BUFFER_OR_BOTTOM : 1, count,
                        datatype, comm)) != MPI_SUCCESS)
        return err;
    call.declines_unmovable = declines_unmovable;
    return aip_call_run_or_plan(&call, options, persistent);
}

int AIP_Alltoall_opt(void *buf, int count, MPI_Datatype datatype, MPI_Comm comm,
                     const AIP_Options *options)
{
    return run_in_place("AIP_Alltoall", 0, buf, count, datatype, comm, options, NULL);
}

int aip_pmpi_alltoall(const char *fn, void *buf, int count, MPI_Datatype datatype,
                      MPI_Comm comm, aip_plan **persistent)
{
    return run_in_place(fn, 1, buf, count, datatype, comm, NULL, persistent);
}

int aip_pmpi_ialltoall(const char *fn, void *buf, int count, MPI_Datatype datatype,
                       MPI_Comm comm, const aip_conclusion *conclude, aip_plan **plan)
{
    aip_call call;
    int err;

    *plan = NULL;
    if ((err = describe(&call, fn, buf, AIP_BUFFER_OR_BOTTOM, count, datatype, comm)) !=
        MPI_SUCCESS)
        return err;
    call.declines_unmovable = 1;
    return aip_plan_begin(&call, conclude, plan);
}

int AIP_Alltoall(void *buf, int count, MPI_Datatype datatype, MPI_Comm comm)
{
    return AIP_Alltoall_opt(buf, count, datatype, comm, NULL);
}

int AIP_Alltoall_init(int count, MPI_Datatype datatype, MPI_Comm comm,
                      const AIP_Options *options, AIP_Plan *plan)
{
    aip_call call;
    int err;

    if (plan)
        *plan = NULL;
    if ((err = describe(&call, "AIP_Alltoall_init", NULL, 0, count, datatype, comm)) !=
        MPI_SUCCESS)
        return err;
    if (!plan)
        aip_call_error(&call, MPI_ERR_ARG, "plan is NULL");
    return aip_plan_create(&call, options, plan);
}

/* The bytes [first, last) the blocks occupy, relative to the buffer. */
static void extent_of_blocks(const aip_call *call, MPI_Aint *first, MPI_Aint *last)
{
    *first = PTRDIFF_MAX;
    *last = PTRDIFF_MIN;
    for (int j = 0; j < call->size; j++)
        if (call->blocks[j].bytes > 0) {
            if (call->blocks[j].offset < *first)
                *first = call->blocks[j].offset;
            if (call->blocks[j].offset + (MPI_Aint)call->blocks[j].bytes > *last)
                *last = call->blocks[j].offset + (MPI_Aint)call->blocks[j].bytes;
        }
}

/* for_mpi: the PMPI layer's call, whose sendbuf cannot be laid out as recvbuf by count and
 * datatype (its own differ, or MPI_BOTTOM: the datatypes' addresses are those of one of the
 * buffers), so MPI's own runs it; decided with every rank, as each rank's arguments may differ. */
static int run_out_of_place(const char *fn, int declines_unmovable, const void *sendbuf,
                            void *recvbuf, int count, MPI_Datatype datatype, MPI_Comm comm,
                            const AIP_Options *options, int for_mpi)
{
    aip_call call;
    MPI_Aint first, last;
    int err;

    if (sendbuf == MPI_IN_PLACE) /* as MPI_Alltoall does */
        return run_in_place(fn, declines_unmovable, recvbuf, count, datatype, comm, options,
                            NULL);
    if ((err = describe(&call, fn, recvbuf, declines_unmovable ? AIP_BUFFER_OR_BOTTOM : 1,
                        count, datatype, comm)) != MPI_SUCCESS)
        return err;
    call.declines_unmovable = declines_unmovable;
    call.sendbuf = sendbuf;
    if (for_mpi)
        aip_call_for_mpi(&call, "the send buffer is not laid out as the receive buffer");
    if (call.error == MPI_SUCCESS)
        extent_of_blocks(&call, &first, &last);
    if (call.error == MPI_SUCCESS && first < last) {
        const char *send = sendbuf, *recv = recvbuf;
        if (!send)
            aip_call_error(&call, MPI_ERR_BUFFER, "sendbuf is NULL but the blocks have data");
        else if (send + first < recv + last && recv + first < send + last)
            aip_call_error(&call, MPI_ERR_BUFFER,
                           "sendbuf and recvbuf overlap (for an in-place exchange pass "
                           "MPI_IN_PLACE as sendbuf, or call AIP_Alltoall)");
    }
    return aip_call_run(&call, options);
}

int AIP_Alltoall_oop_opt(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Comm comm, const AIP_Options *options)
{
    return run_out_of_place("AIP_Alltoall_oop", 0, sendbuf, recvbuf, count, datatype, comm,
                            options, 0);
}

int aip_pmpi_alltoall_oop(const char *fn, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm)
{
    int for_mpi = sendcount != recvcount || sendtype != recvtype || sendbuf == MPI_BOTTOM ||
                  recvbuf == MPI_BOTTOM;
    return run_out_of_place(fn, 1, sendbuf, recvbuf, recvcount, recvtype, comm, NULL, for_mpi);
}

int AIP_Alltoall_oop(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Comm comm)
{
    return AIP_Alltoall_oop_opt(sendbuf, recvbuf, count, datatype, comm, NULL);
}
