/*
 * call.h - a call as its front end describes it, and the library's one
 * error idiom.
 *
 * A front end (api/, bcast/) describes the call as one byte range per peer
 * (an aip_block; a general call has separate receive blocks), noting the
 * first error it finds (aip_call_error), and hands it to the pipeline
 * (pipeline/pipeline.h), which agrees on it with the other ranks, chooses
 * the algorithm and runs it.  This folder, call/, is the ground floor that
 * every layer stands on: the call (call.c, errors.c), datatypes
 * (datatype.h), the private communicator and caches (comm.h), options
 * (options.h), allocation (alloc.h), sizes (parse_bytes.h), and the plan
 * the algorithms read (plan.h).  Nothing here includes a header of another
 * layer.
 */
#ifndef AIP_CALL_H
#define AIP_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "alltoall_inplace.h"
#include "call/alloc.h"
#include "call/datatype.h"
#include "tunables.h"

/* One peer's block, as the executors see it: bytes [offset, offset + bytes) of buf. */
typedef struct aip_block {
    MPI_Aint offset;
    MPI_Count bytes;
} aip_block;

/* A call as its front end describes it. */
typedef struct aip_call {
    const char *fn; /* public name, for messages */
    char *buf;      /* NULL for a plan: the buffer comes with each execution */
    int binds_buffer; /* one-shot: buf is the caller's and checked with the blocks
                       * (AIP_BUFFER_OR_BOTTOM: buf NULL is MPI_BOTTOM, offsets addresses) */
    MPI_Comm comm;  /* the caller's communicator */
    int rank, size;
    aip_block *blocks;      /* one per rank; the send blocks of a general call */
    aip_block *recv_blocks; /* the receive blocks of a general call; == blocks if symmetric */
    /* AIP_Alltoall's blocks, block j at buf + first_offset + j * block_bytes, when they
     * are contiguous (the node-aware algorithms need that); -1 for other calls. */
    MPI_Count block_bytes;
    MPI_Aint first_offset;
    const char *sendbuf; /* out of place: the blocks to send, laid out as buf's; else NULL */
    /* The PMPI layer's calls: a datatype the executor cannot move as bytes is not an error
     * but hands the call back to MPI, on every rank alike (AIP_DECLINED). */
    int declines_unmovable;
    int unmovable;     /* some block's datatype cannot be moved as bytes (then error is set) */
    int error;         /* first error found on this rank: an MPI error class, or MPI_SUCCESS */
    char message[320]; /* what was wrong */
} aip_call;

/* The options all ranks must give alike, agreed field by field (check.c). */
typedef struct aip_choices {
    int algorithm; /* an AIP_Algorithm, after the front end's normalisation */
    int ranks_per_node;
    int requests;        /* an AIP_Requests */
    int bcast_algorithm; /* AIP_Bcast_rma's tree, an AIP_Bcast_algorithm; 0 for the exchanges */
    int root;            /* AIP_Bcast_rma's root; 0 for the exchanges */
} aip_choices;

/* What a call that declines_unmovable returns on every rank when some rank's datatype
 * cannot be moved as bytes: not an MPI error class; nothing was printed or raised, no byte
 * moved, and the caller runs MPI's own collective instead. */
#define AIP_DECLINED (-1)

/* call.c: describing a call.  general: the call has separate receive blocks
 * (AIP_Alltoallv_general); buf NULL with binds_buffer 0 describes a plan.  binds_buffer
 * AIP_BUFFER_OR_BOTTOM: the PMPI layer's one-shot calls, where buf may be MPI_BOTTOM. */
#define AIP_BUFFER_OR_BOTTOM 2
int aip_call_begin(aip_call *call, const char *fn, void *buf, int binds_buffer, MPI_Comm comm,
                   int general);
void aip_call_set_block(aip_call *call, aip_block *blocks, int peer, int count,
                        const aip_type_info *type, MPI_Aint displacement, const char *what);
void aip_call_free(aip_call *call);
/* Once the blocks are described: a call of AIP_BUFFER_OR_BOTTOM on MPI_BOTTOM gets a
 * buffer of its own, its lowest block, and offsets relative to it. */
void aip_call_rebase_bottom(aip_call *call);
/* aip_type_info_get for the blocks of `what`, recording why it failed
 * (MPI_ERR_TYPE, or MPI_ERR_NO_MEM); returns whether *info is set. */
int aip_call_type_info(aip_call *call, MPI_Datatype type, aip_type_info *info, const char *what);
/* This rank's arguments are for MPI's own call to judge: an MPI_ERR_TYPE error here, but
 * the PMPI layer's calls decline on every rank (agreed as an unmovable datatype). */
void aip_call_for_mpi(aip_call *call, const char *why);
/* `what` is MPI_DATATYPE_NULL where its count is 0: for MPI's own call (aip_call_for_mpi),
 * since the MPIs differ (MPICH takes it, Open MPI's argument check does not). */
void aip_call_null_type_at_zero_count(aip_call *call, const char *what);
/* Whether the call has separate receive blocks. */
static inline int aip_call_general(const aip_call *call)
{
    return call->recv_blocks != call->blocks;
}
/* Report an error an MPI call returned during `what`; returns its class. */
int aip_raise_mpi_error(aip_call *call, int err, const char *what);
/* The same, described in call->message but not raised; returns its class. */
int aip_describe_mpi_error(aip_call *call, int err, const char *what);

/* errors.c: the one error idiom.  Record the first local error of a call... */
void aip_call_error(aip_call *call, int error_class, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* ...print it, and raise `error_class` on `comm`'s error handler; returns error_class. */
int aip_raise(MPI_Comm comm, int error_class, const char *fn, const char *message);

#endif /* AIP_CALL_H */
