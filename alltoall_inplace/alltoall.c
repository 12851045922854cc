/*
 * alltoall.c - AIP_Alltoall: the in-place MPI_Alltoall.
 */
#include "aip_internal.h"

int AIP_Alltoall_opt(void *buf, int count, MPI_Datatype datatype, MPI_Comm comm,
                     const AIP_Options *options)
{
    aip_call call;
    aip_type_info type;
    int err;

    if ((err = aip_call_begin(&call, "AIP_Alltoall", buf, comm, 0)) != MPI_SUCCESS)
        return err;
    if (count < 0)
        aip_call_error(&call, MPI_ERR_COUNT, "count = %d is negative", count);
    else if (aip_type_info_get(datatype, &type) != MPI_SUCCESS)
        aip_call_error(&call, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL or not valid");
    for (int j = 0; j < call.size && call.error == MPI_SUCCESS; j++)
        aip_call_set_block(&call, call.blocks, j, count, &type, (MPI_Aint)j * count * type.extent,
                           "datatype");
    return aip_call_run(&call, options);
}

int AIP_Alltoall(void *buf, int count, MPI_Datatype datatype, MPI_Comm comm)
{
    return AIP_Alltoall_opt(buf, count, datatype, comm, NULL);
}
