/*
 * alltoallv.c - AIP_Alltoallv: the in-place (symmetric) MPI_Alltoallv.
 */
#include "aip_internal.h"

int AIP_Alltoallv_opt(void *buf, const int counts[], const int displs[], MPI_Datatype datatype,
                      MPI_Comm comm, const AIP_Options *options)
{
    aip_call call;
    aip_type_info type;
    int err;

    if ((err = aip_call_begin(&call, "AIP_Alltoallv", buf, comm, 0)) != MPI_SUCCESS)
        return err;
    if (!counts || !displs)
        aip_call_error(&call, MPI_ERR_ARG, "%s is NULL", counts ? "displs" : "counts");
    else if (aip_type_info_get(datatype, &type) != MPI_SUCCESS)
        aip_call_error(&call, MPI_ERR_TYPE, "datatype is MPI_DATATYPE_NULL or not valid");
    for (int j = 0; j < call.size && call.error == MPI_SUCCESS; j++) {
        if (counts[j] < 0)
            aip_call_error(&call, MPI_ERR_COUNT, "counts[%d] = %d is negative", j, counts[j]);
        else
            aip_call_set_block(&call, call.blocks, j, counts[j], &type,
                               (MPI_Aint)displs[j] * type.extent, "datatype");
    }
    return aip_call_run(&call, options);
}

int AIP_Alltoallv(void *buf, const int counts[], const int displs[], MPI_Datatype datatype,
                  MPI_Comm comm)
{
    return AIP_Alltoallv_opt(buf, counts, displs, datatype, comm, NULL);
}
