/*
 * alltoallw.c - AIP_Alltoallw: the in-place (symmetric) MPI_Alltoallw, one
 * datatype per peer and displacements in bytes, its plan, and the PMPI
 * layer's MPI_Alltoallw.
 */
#include <stdio.h>

#include "api/api.h"
#include "call/call.h"
#include "pipeline/pipeline.h"

static int describe(aip_call *call, const char *fn, void *buf, int binds_buffer,
                    const int counts[], const int displs[], const MPI_Datatype datatypes[],
                    MPI_Comm comm)
{
    aip_type_info type;
    MPI_Datatype analysed = MPI_DATATYPE_NULL; /* consecutive peers often share a type */
    char what[32];
    int err, null_at = -1;

    if ((err = aip_call_begin(call, fn, buf, binds_buffer, comm, 0)) != MPI_SUCCESS)
        return err;
    if (!counts || !displs || !datatypes)
        aip_call_error(call, MPI_ERR_ARG, "%s is NULL",
                       !counts ? "counts" : !displs ? "displs" : "datatypes");
    for (int j = 0; j < call->size && call->error == MPI_SUCCESS; j++) {
        snprintf(what, sizeof what, "datatypes[%d]", j);
        if (counts[j] < 0) {
            aip_call_error(call, MPI_ERR_COUNT, "counts[%d] = %d is negative", j, counts[j]);
            break;
        }
        if (counts[j] == 0 && datatypes[j] == MPI_DATATYPE_NULL) {
            null_at = null_at < 0 ? j : null_at; /* after the loop: worse errors first */
            continue;
        }
        if (datatypes[j] != analysed || analysed == MPI_DATATYPE_NULL) {
            if (!aip_call_type_info(call, datatypes[j], &type, what))
                break; /* type is not filled in */
            analysed = datatypes[j];
        }
        aip_call_set_block(call, call->blocks, j, counts[j], &type, displs[j], what);
    }
    if (null_at >= 0) {
        snprintf(what, sizeof what, "datatypes[%d]", null_at);
        aip_call_null_type_at_zero_count(call, what);
    }
    return MPI_SUCCESS;
}

static int run(const char *fn, int declines_unmovable, void *buf, const int counts[],
               const int displs[], const MPI_Datatype datatypes[], MPI_Comm comm,
               const AIP_Options *options, aip_plan **persistent)
{
    aip_call call;
    int err;

    /* declines_unmovable: the PMPI layer's call, which takes MPI_BOTTOM as MPI does */
    if ((err = describe(&call, fn, buf, declines_unmovable ? AIP_BUFFER_OR_BOTTOM : 1, counts,
                        displs, datatypes, comm)) != MPI_SUCCESS)
        return err;
    call.declines_unmovable = declines_unmovable;
    return aip_call_run_or_plan(&call, options, persistent);
}

int AIP_Alltoallw_opt(void *buf, const int counts[], const int displs[],
                      const MPI_Datatype datatypes[], MPI_Comm comm, const AIP_Options *options)
{
    return run("AIP_Alltoallw", 0, buf, counts, displs, datatypes, comm, options, NULL);
}

int aip_pmpi_alltoallw(const char *fn, void *buf, const int counts[], const int displs[],
                       const MPI_Datatype datatypes[], MPI_Comm comm, aip_plan **persistent)
{
    return run(fn, 1, buf, counts, displs, datatypes, comm, NULL, persistent);
}

int AIP_Alltoallw(void *buf, const int counts[], const int displs[],
                  const MPI_Datatype datatypes[], MPI_Comm comm)
{
    return AIP_Alltoallw_opt(buf, counts, displs, datatypes, comm, NULL);
}

int AIP_Alltoallw_init(const int counts[], const int displs[], const MPI_Datatype datatypes[],
                       MPI_Comm comm, const AIP_Options *options, AIP_Plan *plan)
{
    aip_call call;
    int err;

    if (plan)
        *plan = NULL;
    if ((err = describe(&call, "AIP_Alltoallw_init", NULL, 0, counts, displs, datatypes,
                        comm)) != MPI_SUCCESS)
        return err;
    if (!plan)
        aip_call_error(&call, MPI_ERR_ARG, "plan is NULL");
    return aip_plan_create(&call, options, plan);
}
