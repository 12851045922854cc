/*
 * alltoallv.c - AIP_Alltoallv: the in-place (symmetric) MPI_Alltoallv, its
 * plan, and the PMPI layer's MPI_Alltoallv.
 */
#include "api/api.h"
#include "call/call.h"
#include "pipeline/pipeline.h"

static int all_zero(const int counts[], int n)
{
    for (int j = 0; j < n; j++)
        if (counts[j] != 0)
            return 0;
    return 1;
}

static int describe(aip_call *call, const char *fn, void *buf, int binds_buffer,
                    const int counts[], const int displs[], MPI_Datatype datatype, MPI_Comm comm)
{
    aip_type_info type;
    int err;

    if ((err = aip_call_begin(call, fn, buf, binds_buffer, comm, 0)) != MPI_SUCCESS)
        return err;
    if (!counts || !displs)
        aip_call_error(call, MPI_ERR_ARG, "%s is NULL", counts ? "displs" : "counts");
    else if (datatype == MPI_DATATYPE_NULL && all_zero(counts, call->size))
        aip_call_null_type_at_zero_count(call, "datatype");
    else
        aip_call_type_info(call, datatype, &type, "datatype");
    for (int j = 0; j < call->size && call->error == MPI_SUCCESS; j++) {
        if (counts[j] < 0)
            aip_call_error(call, MPI_ERR_COUNT, "counts[%d] = %d is negative", j, counts[j]);
        else
            aip_call_set_block(call, call->blocks, j, counts[j], &type,
                               (MPI_Aint)displs[j] * type.extent, "datatype");
    }
    return MPI_SUCCESS;
}

static int run(const char *fn, int declines_unmovable, void *buf, const int counts[],
               const int displs[], MPI_Datatype datatype, MPI_Comm comm,
               const AIP_Options *options, aip_plan **persistent)
{
    aip_call call;
    int err;

    /* declines_unmovable: the PMPI layer's call, which takes MPI_BOTTOM as MPI does */
    if ((err = describe(&call, fn, buf, declines_unmovable ? AIP_BUFFER_OR_BOTTOM : 1, counts,
                        displs, datatype, comm)) != MPI_SUCCESS)
        return err;
    call.declines_unmovable = declines_unmovable;
    return aip_call_run_or_plan(&call, options, persistent);
}

int AIP_Alltoallv_opt(void *buf, const int counts[], const int displs[], MPI_Datatype datatype,
                      MPI_Comm comm, const AIP_Options *options)
{
    return run("AIP_Alltoallv", 0, buf, counts, displs, datatype, comm, options, NULL);
}

int aip_pmpi_alltoallv(const char *fn, void *buf, const int counts[], const int displs[],
                       MPI_Datatype datatype, MPI_Comm comm, aip_plan **persistent)
{
    return run(fn, 1, buf, counts, displs, datatype, comm, NULL, persistent);
}

int AIP_Alltoallv(void *buf, const int counts[], const int displs[], MPI_Datatype datatype,
                  MPI_Comm comm)
{
    return AIP_Alltoallv_opt(buf, counts, displs, datatype, comm, NULL);
}

int AIP_Alltoallv_init(const int counts[], const int displs[], MPI_Datatype datatype,
                       MPI_Comm comm, const AIP_Options *options, AIP_Plan *plan)
{
    aip_call call;
    int err;

    if (plan)
        *plan = NULL;
    if ((err = describe(&call, "AIP_Alltoallv_init", NULL, 0, counts, displs, datatype,
                        comm)) != MPI_SUCCESS)
        return err;
    if (!plan)
        aip_call_error(&call, MPI_ERR_ARG, "plan is NULL");
    return aip_plan_create(&call, options, plan);
}
