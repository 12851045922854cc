/*
 * alltoallv_general.c - AIP_Alltoallv_general: the in-place MPI_Alltoallv
 * with arbitrary counts and displacements on both sides.  The algorithm
 * (Hofmann & Ruenger, EuroMPI 2010) is general/general_exchange.c's; this
 * front end describes the call's send and receive blocks.
 */
#include "api/api.h"
#include "call/call.h"
#include "pipeline/pipeline.h"

static int describe(aip_call *call, const char *fn, void *buf, int binds_buffer,
                    const int sendcounts[], const int sdispls[], const int recvcounts[],
                    const int rdispls[], MPI_Datatype datatype, MPI_Comm comm)
{
    static const char *const names[] = { "sendcounts", "sdispls", "recvcounts", "rdispls" };
    const int *arrays[] = { sendcounts, sdispls, recvcounts, rdispls };
    aip_type_info type;
    int err;

    if ((err = aip_call_begin(call, fn, buf, binds_buffer, comm, 1)) != MPI_SUCCESS)
        return err;
    for (int a = 0; a < 4; a++)
        if (!arrays[a])
            aip_call_error(call, MPI_ERR_ARG, "%s is NULL", names[a]);
    if (call->error == MPI_SUCCESS)
        aip_call_type_info(call, datatype, &type, "datatype");
    for (int j = 0; j < call->size && call->error == MPI_SUCCESS; j++)
        for (int a = 0; a < 4; a += 2) { /* send, then receive */
            int count = arrays[a][j], displ = arrays[a + 1][j];
            if (count < 0)
                aip_call_error(call, MPI_ERR_COUNT, "%s[%d] = %d is negative", names[a], j,
                               count);
            else if (displ < 0 && count > 0)
                aip_call_error(call, MPI_ERR_ARG,
                               "%s[%d] = %d is negative: every region must lie in the buffer, "
                               "at or after buf",
                               names[a + 1], j, displ);
            else
                aip_call_set_block(call, a == 0 ? call->blocks : call->recv_blocks, j, count,
                                   &type, (MPI_Aint)displ * type.extent, "datatype");
        }
    return MPI_SUCCESS;
}

int AIP_Alltoallv_general_opt(void *buf, const int sendcounts[], const int sdispls[],
                              const int recvcounts[], const int rdispls[], MPI_Datatype datatype,
                              MPI_Comm comm, const AIP_Options *options)
{
    aip_call call;
    int err;

    if ((err = describe(&call, "AIP_Alltoallv_general", buf, 1, sendcounts, sdispls, recvcounts,
                        rdispls, datatype, comm)) != MPI_SUCCESS)
        return err;
    return aip_call_run(&call, options);
}

int AIP_Alltoallv_general(void *buf, const int sendcounts[], const int sdispls[],
                          const int recvcounts[], const int rdispls[], MPI_Datatype datatype,
                          MPI_Comm comm)
{
    return AIP_Alltoallv_general_opt(buf, sendcounts, sdispls, recvcounts, rdispls, datatype,
                                     comm, NULL);
}

int AIP_Alltoallv_general_init(const int sendcounts[], const int sdispls[],
                               const int recvcounts[], const int rdispls[],
                               MPI_Datatype datatype, MPI_Comm comm, const AIP_Options *options,
                               AIP_Plan *plan)
{
    aip_call call;
    int err;

    if (plan)
        *plan = NULL;
    if ((err = describe(&call, "AIP_Alltoallv_general_init", NULL, 0, sendcounts, sdispls,
                        recvcounts, rdispls, datatype, comm)) != MPI_SUCCESS)
        return err;
    if (!plan)
        aip_call_error(&call, MPI_ERR_ARG, "plan is NULL");
    return aip_plan_create(&call, options, plan);
}
