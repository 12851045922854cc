/*
 * comm.c - the communicator our messages travel on.
 *
 * A library must not send point-to-point messages on the caller's
 * communicator: they could match the application's own receives
 * (MPI_ANY_TAG, MPI_ANY_SOURCE).  We duplicate it once, on first use, and
 * cache the duplicate as an attribute of the caller's communicator, so that
 * later calls pay nothing and the duplicate is freed with the original.  Its
 * error handler returns codes to us, and we report them on the caller's.
 */
#include <pthread.h>
#include <stdlib.h>

#include "call/call.h"

static int private_comm_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static int free_private_comm(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)comm;
    (void)keyval;
    (void)extra_state;
    MPI_Comm private_comm = *(MPI_Comm *)attribute;
    free(attribute);
    return MPI_Comm_free(&private_comm);
}

static void create_keyval(void)
{
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private_comm, &private_comm_keyval, NULL);
}

int aip_private_comm(MPI_Comm comm, MPI_Comm *private_comm)
{
    int found, err;
    MPI_Comm *cached;

    pthread_once(&keyval_once, create_keyval);
    if (private_comm_keyval == MPI_KEYVAL_INVALID)
        return MPI_ERR_INTERN;
    if ((err = MPI_Comm_get_attr(comm, private_comm_keyval, &cached, &found)) != MPI_SUCCESS)
        return err;
    if (found) {
        *private_comm = *cached;
        return MPI_SUCCESS;
    }
    if (!(cached = malloc(sizeof *cached)))
        return MPI_ERR_NO_MEM;
    if ((err = MPI_Comm_dup(comm, cached)) != MPI_SUCCESS) {
        free(cached);
        return err;
    }
    MPI_Comm_set_errhandler(*cached, MPI_ERRORS_RETURN);
    if ((err = MPI_Comm_set_attr(comm, private_comm_keyval, cached)) != MPI_SUCCESS) {
        MPI_Comm_free(cached);
        free(cached);
        return err;
    }
    *private_comm = *cached;
    return MPI_SUCCESS;
}
