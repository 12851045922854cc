/*
 * call.h - the one pipeline every call goes through.
 *
 * A front end (api/) describes the call as one byte range per peer (an
 * aip_block; a general call has separate receive blocks) and hands it to
 * the pipeline (pipeline.c), which
 *   1. checks what one rank can check (options, overlapping blocks) and
 *      allocates everything the call may need (the aux buffer, O(p) arrays),
 *      so that a failure there is an error like any other;
 *   2. agrees with the other ranks, in one MPI_Allreduce (check.c), on
 *      errors, block sizes, the options all must give alike and the budget:
 *      every rank returns the same error class before any byte moves;
 *   3. picks the algorithm (select/) and prepares its run;
 *   4. runs it: the table row's run function (a schedule through the
 *      executor of exchange/, a node-aware algorithm of node/, or the
 *      general algorithm of general/).
 * Steps 1-3 make a plan; step 4 executes it.  A one-shot call does all four
 * and frees the plan; AIP_*_init keeps the plan, so that repeated calls with
 * the same layout pay only for step 4 (no collective besides the exchange).
 */
#ifndef AIP_CALL_H
#define AIP_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "alltoall_inplace.h"
#include "call/alloc.h"
#include "tunables.h"

/* One peer's block, as the executors see it: bytes [offset, offset + bytes) of buf. */
typedef struct aip_block {
    MPI_Aint offset;
    MPI_Count bytes;
} aip_block;

/* What the library needs to know of a datatype (datatype.c). */
typedef struct aip_type_info {
    MPI_Count size;   /* bytes of data in one element */
    MPI_Aint extent;  /* stride between consecutive elements */
    MPI_Aint true_lb; /* offset of the first byte of data */
    int dense;        /* one element is `size` consecutive bytes, in type-map order */
} aip_type_info;

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
    int requests; /* an AIP_Requests */
    int root;     /* AIP_Bcast_rma's root; 0 for the exchanges */
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

/* check.c: collective validation. */
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
/* Name the pairs whose blocks differ; scratch holds 2p long longs, allocated
 * before the agreement (so that this collective cannot be left by one rank). */
int aip_report_mismatch(aip_call *call, MPI_Comm private_comm, long long *scratch);

/* api/: the front ends of the PMPI layer (pmpi/): MPI_Alltoall, MPI_Alltoallv and
 * MPI_Alltoallw with MPI_IN_PLACE, named `fn` in messages; they return AIP_DECLINED where
 * a datatype cannot be moved as bytes. */
int aip_pmpi_alltoall(const char *fn, void *buf, int count, MPI_Datatype datatype,
                      MPI_Comm comm);
int aip_pmpi_alltoall_oop(const char *fn, const void *sendbuf, int sendcount,
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, MPI_Comm comm);
int aip_pmpi_alltoallv(const char *fn, void *buf, const int counts[], const int displs[],
                       MPI_Datatype datatype, MPI_Comm comm);
int aip_pmpi_alltoallw(const char *fn, void *buf, const int counts[], const int displs[],
                       const MPI_Datatype datatypes[], MPI_Comm comm);

/* comm.c: the duplicate of a user communicator that carries our messages,
 * made on first use (collective) and cached on comm. */
int aip_private_comm(MPI_Comm comm, MPI_Comm *private_comm);
/* The same as a counted record, for what must outlive comm (a plan): acquire a
 * reference, and release it when done. */
typedef struct aip_private aip_private;
int aip_private_get(MPI_Comm comm, aip_private **private);
aip_private *aip_private_acquire(aip_private *private);
void aip_private_release(aip_private *private);
MPI_Comm aip_private_handle(const aip_private *private);
/* aip_raise on comm, the user's communicator of `private`; once the user has
 * freed it, on the error handler it had then. */
int aip_private_raise(aip_private *private, MPI_Comm comm, int error_class, const char *fn,
                      const char *message);
/* Run cleanup at MPI_Finalize (for what the library creates once per process). */
void aip_at_finalize(void (*cleanup)(void));
/* An attribute of ours on a user's communicator, deleted when MPI_Finalize
 * begins if the user has not freed the communicator by then (comm.c says
 * why).  Its object embeds the entry: track it once MPI_Comm_set_attr has
 * succeeded, untrack it in the attribute's delete callback. */
typedef struct aip_cached {
    MPI_Comm comm;
    int keyval;
    int tracked;
    struct aip_cached *prev, *next;
} aip_cached;
void aip_cache_track(aip_cached *entry, MPI_Comm comm, int keyval);
void aip_cache_untrack(aip_cached *entry);

/* datatype.c: MPI_ERR_TYPE for MPI_DATATYPE_NULL, MPI_ERR_NO_MEM where the
 * analysis of a derived type cannot allocate, or MPI's error. */
int aip_type_info_get(MPI_Datatype type, aip_type_info *info);

/* api/options.c: like AIP_Options_resolve, saying in `why` what is invalid. */
int aip_options_resolve(const AIP_Options *options, AIP_Options *resolved, char *why,
                        size_t why_size);
int aip_env_debug(void);

/* pipeline.c */
typedef struct AIP_Plan_s aip_plan;
/* Steps 1-3 for a described call (collective); the plan takes the call's
 * arrays.  An error is raised and returned, the same on every rank, and
 * *plan is then NULL. */
int aip_plan_create(aip_call *call, const AIP_Options *options, aip_plan **plan);
/* Step 4 on buf (in place, or from sendbuf out of place). */
int aip_plan_execute(aip_plan *plan, char *buf, const char *sendbuf);
void aip_plan_free(aip_plan *plan);
/* All four steps: create, execute on call->buf, free. */
int aip_call_run(aip_call *call, const AIP_Options *options);

#endif /* AIP_CALL_H */
