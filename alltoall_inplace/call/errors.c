/*
 * errors.c - the library's one error idiom.
 *
 * A rank that finds something wrong records the first problem in its call
 * (aip_call_error) and goes on to the collective check, so that all ranks
 * learn of it and return the same error class before any data moves.  The
 * rank that found the problem prints what it was; then every rank raises the
 * class on the communicator's error handler, as MPI does (with
 * MPI_ERRORS_ARE_FATAL, the default, that aborts the job after our message).
 */
#include <stdarg.h>
#include <stdio.h>

#include "call/call.h"

void aip_call_error(aip_call *call, int error_class, const char *format, ...)
{
    if (call->error != MPI_SUCCESS)
        return;
    call->error = error_class;
    va_list args;
    va_start(args, format);
    vsnprintf(call->message, sizeof call->message, format, args);
    va_end(args);
}

int aip_raise(MPI_Comm comm, int error_class, const char *fn, const char *message)
{
    if (message && *message) {
        int rank = -1;
        if (comm != MPI_COMM_NULL)
            MPI_Comm_rank(comm, &rank);
        fprintf(stderr, "alltoall_inplace: %s on rank %d: %s\n", fn, rank, message);
        fflush(stderr);
    }
    /* No handler hangs off MPI_COMM_NULL: MPI-3 raises such errors on MPI_COMM_WORLD. */
    MPI_Comm_call_errhandler(comm != MPI_COMM_NULL ? comm : MPI_COMM_WORLD, error_class);
    return error_class;
}
