/*
 * comm.h - the communicators the library works on (comm.c): the private
 * duplicate of a user's communicator that carries our messages, the
 * attributes cached on users' communicators, and cleanup at MPI_Finalize.
 */
#ifndef AIP_COMM_H
#define AIP_COMM_H

#include <mpi.h>

/* The duplicate of a user communicator that carries our messages, made on
 * first use (collective) and cached on comm. */
int aip_private_comm(MPI_Comm comm, MPI_Comm *private_comm);
/* The same as a counted record, for what must outlive comm (a plan): acquire a
 * reference, and release it when done. */
typedef struct aip_private aip_private;
int aip_private_get(MPI_Comm comm, aip_private **private);
aip_private *aip_private_acquire(aip_private *private);
/* aip_private_get without waiting for the other ranks (the PMPI layer's MPI_Ialltoall):
 * where comm has no duplicate yet, MPI_Comm_idup begins one and its record is cached at
 * once, so that every later call on comm, on every rank, finds it.  The duplicate is ready
 * for use once aip_private_ready returns MPI_SUCCESS: it waits for the MPI_Comm_idup,
 * which cannot hang once any collective issued after it on comm has completed (every rank
 * has then issued it).  aip_private_get waits for it too. */
int aip_private_begin(MPI_Comm comm, aip_private **private);
int aip_private_ready(aip_private *private);
void aip_private_release(aip_private *private);
MPI_Comm aip_private_handle(const aip_private *private);
/* The first of the AIP_TAGS_PER_EXECUTION tags of the next execution of a
 * plan on the communicator.  Executions begin in the same order on every
 * rank, as MPI's collectives, so every rank counts alike: executions in
 * flight together (nonblocking ones, a call during one) never match each
 * other's messages, as long as fewer than AIP_EXECUTIONS_IN_FLIGHT began in
 * between (tunables.h); and ranks that execute different plans by mistake
 * still meet, and find that their sizes differ. */
int aip_private_next_tag(aip_private *private);
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

#endif /* AIP_COMM_H */
