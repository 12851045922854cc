/*
 * check.h - argument checks that need more than one rank's view (check.c
 * explains the agreement and its checksum).
 */
#ifndef AIP_CHECK_H
#define AIP_CHECK_H

#include "call/call.h"

typedef struct aip_agreement {
    int error;               /* MPI_SUCCESS or the class every rank returns */
    int mismatch;            /* block sizes of some pair differ */
    aip_choices choices;     /* as all ranks gave them (when error is MPI_SUCCESS) */
    long long min_aux_bytes; /* smallest budget of all ranks */
    int contiguous;          /* every rank's blocks are AIP_Alltoall's contiguous ones */
    int unmovable;           /* some rank's datatype cannot be moved as bytes */
} aip_agreement;
/* Blocks of one kind ("", "send ", "receive ") must not overlap each other. */
void aip_check_overlap(aip_call *call, const aip_block *blocks, const char *kind);
int aip_check_collective(aip_call *call, MPI_Comm private_comm, const aip_choices *choices,
                         long long aux_bytes, aip_agreement *agreement);
/* The same agreement begun without waiting (MPI_Iallreduce on comm, which may be the
 * caller's): words must stay until the request completes, and aip_check_conclude then
 * reads them. */
#define AIP_CHECK_WORDS 21
int aip_check_begin(const aip_call *call, MPI_Comm comm, const aip_choices *choices,
                    long long aux_bytes, uint64_t words[AIP_CHECK_WORDS], MPI_Request *request);
void aip_check_conclude(aip_call *call, const uint64_t words[AIP_CHECK_WORDS],
                        aip_agreement *agreement);
/* Name the pairs whose blocks differ; scratch holds 2p long longs, allocated
 * before the agreement (so that this collective cannot be left by one rank). */
int aip_report_mismatch(aip_call *call, MPI_Comm private_comm, long long *scratch);

#endif /* AIP_CHECK_H */
