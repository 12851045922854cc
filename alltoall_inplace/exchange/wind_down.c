/*
 * wind_down.c - posting and completing the messages of an exchange so that
 * an MPI error on one rank leaves no rank waiting (exchange.h says what a
 * call then returns).
 *
 * Errors of the arguments are agreed on before any byte moves; an error MPI
 * raises during the exchange cannot be.  Stopping there would strand the
 * partners: they wait for messages that never come, and messages already
 * on their way to the stopped rank would match receives of a later call.
 * Cancelling does not help either (a cancelled receive strands its sender,
 * and Open MPI cannot cancel sends).  So a rank that meets an error winds
 * down instead: it goes on with its schedule, posting every message its
 * partners expect, but sends each data message empty.  Data messages are
 * never empty otherwise, so a receiver knows from the size that the sender
 * failed, and winds down in turn (what it would forward is incomplete).
 * Messages the protocol needs (the general algorithm's requests) still
 * carry their values.  An operation that failed is retried once; if MPI
 * fails again, the rank gives up (aip_give_up) and returns.
 */
#include <pthread.h>
#include <sched.h>

#include "exchange/exchange.h"

static int partner_failed_code = MPI_ERR_OTHER, size_mismatch_code = MPI_ERR_OTHER;
static pthread_once_t codes_once = PTHREAD_ONCE_INIT;

static void add_code(int *code, const char *text)
{
    int added;
    if (MPI_Add_error_code(MPI_ERR_OTHER, &added) == MPI_SUCCESS &&
        MPI_Add_error_string(added, text) == MPI_SUCCESS)
        *code = added;
}

static void create_codes(void)
{
    add_code(&partner_failed_code, "a partner's part of the exchange failed (an MPI error on "
                                   "that rank); the data received here is incomplete");
    add_code(&size_mismatch_code,
             "a message of the exchange differs in size from what this rank's plan expects: "
             "the ranks executed different plans or layouts; the data received here is wrong");
}

int aip_partner_failed(void)
{
    pthread_once(&codes_once, create_codes);
    return partner_failed_code;
}

int aip_size_mismatch(void)
{
    pthread_once(&codes_once, create_codes);
    return size_mismatch_code;
}

void aip_note_error(int *error, int err)
{
    if (*error == MPI_SUCCESS && err != MPI_SUCCESS)
        *error = err;
}

int aip_post_receive(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request *request, int *error)
{
    int err = MPI_Irecv(buf, count, type, peer, tag, comm, request);
    if (err == MPI_SUCCESS)
        return MPI_SUCCESS;
    aip_note_error(error, err);
    return MPI_Irecv(buf, count, type, peer, tag, comm, request);
}

int aip_post_send(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request, int *error)
{
    int err = MPI_Isend(buf, count, type, peer, tag, comm, request);
    if (err == MPI_SUCCESS)
        return MPI_SUCCESS;
    aip_note_error(error, err);
    return MPI_Isend(buf, count, type, peer, tag, comm, request);
}

int aip_post_data(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request, int *error)
{
    int err = MPI_SUCCESS;
    if (*error == MPI_SUCCESS &&
        (err = MPI_Isend(buf, count, type, peer, tag, comm, request)) == MPI_SUCCESS)
        return MPI_SUCCESS;
    aip_note_error(error, err);
    return MPI_Isend(buf, 0, MPI_BYTE, peer, tag, comm, request);
}

/* The bytes a completed receive brought, or -1 if MPI cannot say. */
static MPI_Count received_bytes(const MPI_Status *status)
{
#ifdef SMPI_H /* SimGrid's SMPI (3.32) lacks MPI_Get_elements_x */
    int bytes;
    return MPI_Get_count(status, MPI_BYTE, &bytes) == MPI_SUCCESS && bytes != MPI_UNDEFINED
               ? bytes
               : -1;
#else
    MPI_Count bytes;
    return MPI_Get_elements_x(status, MPI_BYTE, &bytes) == MPI_SUCCESS ? bytes : -1;
#endif
}

void aip_check_arrival(const MPI_Status *status, MPI_Count expected_bytes, int *error)
{
    MPI_Count bytes = received_bytes(status);
    if (bytes < 0 || bytes == expected_bytes)
        return;
    aip_note_error(error, bytes == 0 ? aip_partner_failed() : aip_size_mismatch());
}

int aip_complete(int count, MPI_Request *requests, MPI_Status *statuses, int politely,
                 int *error)
{
    if (!politely) {
        int err = MPI_Waitall(count, requests, statuses);
        if (err == MPI_SUCCESS)
            return MPI_SUCCESS;
        aip_note_error(error, err); /* requests it completed are MPI_REQUEST_NULL now */
        return MPI_Waitall(count, requests, statuses);
    }
    /* Test, and give the core away between tests (exchange.c says why); the
     * nonblocking executions in flight advance meanwhile (exchange.h). */
    for (;;) {
        int done, err = aip_test(count, requests, statuses, &done, error);
        if (err != MPI_SUCCESS || done)
            return err;
        aip_exchange_advance_in_flight();
        sched_yield();
    }
}

/* MPI_Testsome, not MPI_Testall: a request that completes is freed and its
 * status written once, into statuses[i], which the caller keeps until all
 * are done.  (SMPI's MPI_Testall frees what completed even when it reports
 * that not all did, and then reports an empty status for it.)  One call, so
 * one turn of MPI's progress engine, as MPI_Testall. */
int aip_test(int count, MPI_Request *requests, MPI_Status *statuses, int *done, int *error)
{
    MPI_Status completed[AIP_TEST_MAX];
    int indices[AIP_TEST_MAX], outcount, err;

    if (count > AIP_TEST_MAX)
        return MPI_ERR_INTERN;
    if ((err = MPI_Testsome(count, requests, &outcount, indices, completed)) != MPI_SUCCESS) {
        aip_note_error(error, err); /* requests it completed are MPI_REQUEST_NULL now */
        if ((err = MPI_Testsome(count, requests, &outcount, indices, completed)) != MPI_SUCCESS)
            return err;
    }
    for (int k = 0; outcount != MPI_UNDEFINED && k < outcount; k++)
        statuses[indices[k]] = completed[k];
    *done = 1;
    for (int i = 0; i < count; i++)
        *done &= requests[i] == MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

void aip_give_up(int count, MPI_Request *requests)
{
    for (int i = 0; i < count; i++)
        if (requests[i] != MPI_REQUEST_NULL) {
            MPI_Cancel(&requests[i]);
            if (MPI_Wait(&requests[i], MPI_STATUS_IGNORE) != MPI_SUCCESS &&
                requests[i] != MPI_REQUEST_NULL)
                MPI_Request_free(&requests[i]);
        }
}
