/*
 * comm.c - the communicator our messages travel on.
 *
 * A library must not send point-to-point messages on the caller's
 * communicator: they could match the application's own receives
 * (MPI_ANY_TAG, MPI_ANY_SOURCE).  We duplicate it once, on first use, and
 * cache the duplicate as an attribute of the caller's communicator, so that
 * later calls pay nothing and the duplicate is freed with the original.  Its
 * error handler returns codes to us, and we report them on the caller's.
 *
 * What the library creates once per process (this keyval, the nodes' and
 * the check's reduction) is freed at MPI_Finalize, through an attribute of
 * MPI_COMM_SELF, whose attributes MPI_Finalize deletes first: no memory of
 * ours outlives MPI.
 */
#include <pthread.h>
#include <stdint.h>

#include "call/call.h"

static int private_comm_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

/* The duplicate is stored in the attribute's value itself, as its Fortran
 * handle (an integer), not in memory of ours: an allocation here would come
 * after the pipeline's agreement and before MPI_Comm_dup, so that a rank
 * failing it would leave the others waiting in the duplication. */
static void *as_attribute(MPI_Comm comm)
{
    return (void *)(intptr_t)MPI_Comm_c2f(comm);
}

static MPI_Comm from_attribute(void *attribute)
{
    return MPI_Comm_f2c((MPI_Fint)(intptr_t)attribute);
}

static int free_private_comm(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)comm;
    (void)keyval;
    (void)extra_state;
    MPI_Comm private_comm = from_attribute(attribute);
    return MPI_Comm_free(&private_comm);
}

/* ---- Freeing at MPI_Finalize. ---- */

#define MAX_CLEANUPS 8
static void (*cleanups[MAX_CLEANUPS])(void);
static int ncleanups, finalize_keyval = MPI_KEYVAL_INVALID;
static pthread_mutex_t cleanups_lock = PTHREAD_MUTEX_INITIALIZER;

static int run_cleanups(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)comm;
    (void)attribute;
    (void)extra_state;
    while (ncleanups > 0)
        cleanups[--ncleanups]();
    MPI_Comm_free_keyval(&keyval);
    return MPI_SUCCESS;
}

void aip_at_finalize(void (*cleanup)(void))
{
    pthread_mutex_lock(&cleanups_lock);
    if (finalize_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, run_cleanups, &finalize_keyval, NULL) ==
            MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL);
    if (ncleanups < MAX_CLEANUPS)
        cleanups[ncleanups++] = cleanup;
    pthread_mutex_unlock(&cleanups_lock);
}

/* ---- The private duplicate. ---- */

static void free_keyval(void)
{
    MPI_Comm_free_keyval(&private_comm_keyval);
}

static void create_keyval(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private_comm, &private_comm_keyval,
                               NULL) == MPI_SUCCESS)
        aip_at_finalize(free_keyval);
}

int aip_private_comm(MPI_Comm comm, MPI_Comm *private_comm)
{
    int found, err;
    void *cached;
    MPI_Comm dup;

    pthread_once(&keyval_once, create_keyval);
    if (private_comm_keyval == MPI_KEYVAL_INVALID)
        return MPI_ERR_INTERN;
    if ((err = MPI_Comm_get_attr(comm, private_comm_keyval, &cached, &found)) != MPI_SUCCESS)
        return err;
    if (found) {
        *private_comm = from_attribute(cached);
        return MPI_SUCCESS;
    }
    if ((err = MPI_Comm_dup(comm, &dup)) != MPI_SUCCESS)
        return err;
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if ((err = MPI_Comm_set_attr(comm, private_comm_keyval, as_attribute(dup))) != MPI_SUCCESS) {
        MPI_Comm_free(&dup);
        return err;
    }
    *private_comm = dup;
    return MPI_SUCCESS;
}
