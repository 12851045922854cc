/*
 * comm.c - the communicator our messages travel on, and the lifetime of
 * everything the library caches on a user's communicator.
 *
 * A library must not send point-to-point messages on the caller's
 * communicator: they could match the application's own receives
 * (MPI_ANY_TAG, MPI_ANY_SOURCE).  We duplicate it once, on first use, and
 * cache the duplicate as an attribute of the caller's communicator, so that
 * later calls pay nothing.  Its error handler returns codes to us, and we
 * report them on the caller's.  The duplicate is reference counted: the
 * attribute holds one reference and each plan one, so that a plan, like
 * MPI's persistent requests, still executes after the user frees its
 * communicator (its errors then go to the handler that communicator had).
 *
 * Cached objects are freed with the user's communicator, or at
 * MPI_Finalize at the latest, but not in the order MPI_Finalize deletes the
 * attributes of MPI_COMM_WORLD: Open MPI does that after its one-sided
 * machinery is shut down, and freeing a window then crashes.  MPI deletes
 * the attributes of MPI_COMM_SELF first, while all of MPI still works
 * (MPI-3.1 8.7.1), so one attribute of MPI_COMM_SELF deletes every
 * attribute the library still has on other communicators (aip_cache_track),
 * then frees what the library creates once per process (aip_at_finalize):
 * no MPI object or memory of ours outlives MPI.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "call/call.h"
#include "call/comm.h"

/* ---- Freeing at MPI_Finalize. ---- */

#define MAX_CLEANUPS 8
static void (*cleanups[MAX_CLEANUPS])(void);
static int ncleanups, finalize_keyval = MPI_KEYVAL_INVALID;
static aip_cached *tracked; /* attributes of ours on user communicators */
static pthread_mutex_t cleanups_lock = PTHREAD_MUTEX_INITIALIZER;

static int run_cleanups(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)comm;
    (void)attribute;
    (void)extra_state;
    for (;;) { /* the delete callbacks untrack, and may track no more: unlocked while they run */
        pthread_mutex_lock(&cleanups_lock);
        aip_cached *entry = tracked;
        if (entry) {
            tracked = entry->next;
            entry->tracked = 0;
        }
        pthread_mutex_unlock(&cleanups_lock);
        if (!entry)
            break;
        MPI_Comm_delete_attr(entry->comm, entry->keyval); /* frees entry */
    }
    while (ncleanups > 0)
        cleanups[--ncleanups]();
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

/* Under cleanups_lock: the attribute of MPI_COMM_SELF whose deletion runs the above. */
static void hook_finalize(void)
{
    if (finalize_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_cleanups, &finalize_keyval, NULL) ==
            MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
}

void aip_at_finalize(void (*cleanup)(void))
{
    pthread_mutex_lock(&cleanups_lock);
    hook_finalize();
    if (ncleanups < MAX_CLEANUPS)
        cleanups[ncleanups++] = cleanup;
    pthread_mutex_unlock(&cleanups_lock);
}

void aip_cache_track(aip_cached *entry, MPI_Comm comm, int keyval)
{
    pthread_mutex_lock(&cleanups_lock);
    hook_finalize();
    entry->comm = comm;
    entry->keyval = keyval;
    entry->prev = NULL;
    entry->next = tracked;
    if (tracked)
        tracked->prev = entry;
    tracked = entry;
    entry->tracked = 1;
    pthread_mutex_unlock(&cleanups_lock);
}

void aip_cache_untrack(aip_cached *entry)
{
    pthread_mutex_lock(&cleanups_lock);
    if (entry->tracked) {
        if (entry->prev)
            entry->prev->next = entry->next;
        else
            tracked = entry->next;
        if (entry->next)
            entry->next->prev = entry->prev;
        entry->tracked = 0;
    }
    pthread_mutex_unlock(&cleanups_lock);
}

/* ---- The private duplicate. ---- */

struct aip_private {
    MPI_Comm comm;           /* the duplicate: where our messages travel */
    MPI_Request pending;     /* its MPI_Comm_idup while under way (aip_private_begin) */
    atomic_int references;   /* the user's communicator's attribute, and each plan */
    MPI_Errhandler orphaned; /* once the user's communicator is freed: the handler it had */
    atomic_uint executions;  /* begun on it so far, for their tags */
    aip_cached cached;
};

static int private_comm_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

void aip_private_release(aip_private *private)
{
    if (!private || atomic_fetch_sub(&private->references, 1) != 1)
        return;
    if (aip_private_ready(private) != MPI_SUCCESS)
        return; /* the duplicate never came: nothing to free but the record, which MPI may
                 * still write (its request is MPI's now) */
    MPI_Comm_free(&private->comm);
    if (private->orphaned != MPI_ERRHANDLER_NULL)
        MPI_Errhandler_free(&private->orphaned);
    free(private);
}

/* The user's communicator is being freed: the plans that still hold the
 * duplicate raise their errors on its handler from now on. */
static int delete_private(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)keyval;
    (void)extra_state;
    aip_private *private = attribute;
    aip_cache_untrack(&private->cached);
    if (MPI_Comm_get_errhandler(comm, &private->orphaned) != MPI_SUCCESS)
        private->orphaned = MPI_ERRHANDLER_NULL;
    aip_private_release(private);
    return MPI_SUCCESS;
}

static void free_keyval(void)
{
    MPI_Comm_free_keyval(&private_comm_keyval);
}

static void create_keyval(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_private, &private_comm_keyval,
                               NULL) == MPI_SUCCESS)
        aip_at_finalize(free_keyval);
}

/* A new record on comm for the duplicate dup (or its MPI_Comm_idup, pending), cached. */
static int keep_private(MPI_Comm comm, aip_private *private, MPI_Comm dup, MPI_Request pending)
{
    int err = MPI_Comm_set_attr(comm, private_comm_keyval, private);
    if (err != MPI_SUCCESS)
        return err;
    private->comm = dup;
    private->pending = pending;
    atomic_init(&private->references, 1);
    atomic_init(&private->executions, 0);
    private->orphaned = MPI_ERRHANDLER_NULL;
    aip_cache_track(&private->cached, comm, private_comm_keyval);
    return MPI_SUCCESS;
}

/* First use on comm (collective): the duplicate and its record, agreed, so that
 * a rank that cannot allocate the record fails the call on every rank alike. */
static int make_private(MPI_Comm comm, aip_private **made)
{
    aip_private *private = aip_malloc(sizeof *private);
    MPI_Comm dup;
    int failed = !private, any_failed = 1, err;

    if ((err = MPI_Comm_dup(comm, &dup)) != MPI_SUCCESS) {
        free(private);
        return err;
    }
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if ((err = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, dup)) != MPI_SUCCESS ||
        any_failed || (err = keep_private(comm, private, dup, MPI_REQUEST_NULL)) != MPI_SUCCESS) {
        MPI_Comm_free(&dup);
        free(private);
        return err != MPI_SUCCESS ? err : MPI_ERR_NO_MEM;
    }
    *made = private;
    return MPI_SUCCESS;
}

static int cached_private(MPI_Comm comm, aip_private **private, int *found)
{
    void *cached;
    int err;

    pthread_once(&keyval_once, create_keyval);
    if (private_comm_keyval == MPI_KEYVAL_INVALID)
        return MPI_ERR_INTERN;
    if ((err = MPI_Comm_get_attr(comm, private_comm_keyval, &cached, found)) != MPI_SUCCESS)
        return err;
    *private = cached;
    return MPI_SUCCESS;
}

int aip_private_get(MPI_Comm comm, aip_private **private)
{
    int found, err = cached_private(comm, private, &found);
    if (err != MPI_SUCCESS)
        return err;
    return found ? aip_private_ready(*private) : make_private(comm, private);
}

int aip_private_begin(MPI_Comm comm, aip_private **private)
{
    int found, err = cached_private(comm, private, &found);
    if (err != MPI_SUCCESS || found)
        return err;
    aip_private *made = aip_malloc(sizeof *made);
    MPI_Comm dup;
    MPI_Request pending;
    if (!made)
        return MPI_ERR_NO_MEM;
    if ((err = MPI_Comm_idup(comm, &dup, &pending)) != MPI_SUCCESS) {
        free(made);
        return err;
    }
    if ((err = keep_private(comm, made, dup, pending)) != MPI_SUCCESS) {
        /* MPI writes dup when the duplicate is made: wait for it (the other ranks issued
         * it too, at this same call), then let it go. */
        if (MPI_Wait(&pending, MPI_STATUS_IGNORE) == MPI_SUCCESS)
            MPI_Comm_free(&dup);
        free(made);
        return err;
    }
    *private = made;
    return MPI_SUCCESS;
}

int aip_private_ready(aip_private *private)
{
    if (private->pending == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    int err = MPI_Wait(&private->pending, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS)
        MPI_Comm_set_errhandler(private->comm, MPI_ERRORS_RETURN);
    return err;
}

int aip_private_comm(MPI_Comm comm, MPI_Comm *private_comm)
{
    aip_private *private;
    int err = aip_private_get(comm, &private);
    if (err == MPI_SUCCESS)
        *private_comm = aip_private_handle(private);
    return err;
}

aip_private *aip_private_acquire(aip_private *private)
{
    atomic_fetch_add(&private->references, 1);
    return private;
}

MPI_Comm aip_private_handle(const aip_private *private)
{
    return private->comm;
}

int aip_private_next_tag(aip_private *private)
{
    unsigned begun = atomic_fetch_add(&private->executions, 1);
    return AIP_TAG + AIP_TAGS_PER_EXECUTION * (int)(begun % AIP_EXECUTIONS_IN_FLIGHT);
}

int aip_private_raise(aip_private *private, MPI_Comm comm, int error_class, const char *fn,
                      const char *message)
{
    if (private->orphaned == MPI_ERRHANDLER_NULL)
        return aip_raise(comm, error_class, fn, message);
    /* The user's communicator is gone: its handler, on the duplicate, for this one error. */
    MPI_Comm_set_errhandler(private->comm, private->orphaned);
    aip_raise(private->comm, error_class, fn, message);
    MPI_Comm_set_errhandler(private->comm, MPI_ERRORS_RETURN);
    return error_class;
}
