/*
 * pmpi_requests.c - the PMPI layer's in-place all-to-all requests: MPI-4's
 * persistent MPI_Alltoall_init, MPI_Alltoallv_init and MPI_Alltoallw_init
 * (MPICH 4; Open MPI 4.1 has them as MPIX_*_init in its pcollreq
 * extension), the nonblocking MPI_Ialltoall, and the request functions that
 * start and complete them.
 *
 * With MPI_IN_PLACE on an intracommunicator (and $AIP_PMPI_IN_PLACE, as for
 * the blocking calls) the init call makes our plan: the agreement and the
 * choice of algorithm run there, once, as MPI-4.0 lets a persistent
 * collective's initialization synchronize (it is not local, unlike
 * MPI_Ialltoall's).  MPI_Start then starts the plan (AIP_Plan_start), and
 * the program's MPI_Wait, MPI_Test and the rest complete it
 * (AIP_Plan_wait, AIP_Plan_test): the exchange advances inside them, as
 * MPI's own persistent collectives advance inside MPI's, with the extra
 * memory the aux budget held by the plan from init to MPI_Request_free.
 * A datatype that is not movable as bytes is declined at init, on every
 * rank, to MPI's own init; so are the calls out of place.
 *
 * MPI_Ialltoall must return without the other ranks, so its plan is begun
 * (aip_plan_begin): the agreement is an MPI_Iallreduce issued at the call,
 * and the choice and the exchange follow in whichever test or wait of this
 * process finds it in (pipeline.h says what is issued when).  Its decline
 * comes too late for MPI's own MPI_Ialltoall, since other collectives may
 * have been issued since: the layer then runs MPI's semantics itself, by
 * messages on the private communicator from a copy of the buffer, as MPI's
 * own in-place algorithms do (decline_ialltoall).  Its request is freed
 * at its completion, as MPI's nonblocking ones; MPI_Ialltoallv and _w are
 * MPI's.
 *
 * The request the program holds is a real one: a persistent receive on
 * MPI_COMM_SELF that is never started, which MPI itself completes at once,
 * inactive, with an empty status.  Not one from MPI_PROC_NULL: in MPICH
 * 4.0.2 a persistent request to or from MPI_PROC_NULL, even never started,
 * makes every later persistent collective of MPI's own hang.  While our
 * exchange is under way, the request functions below complete it
 * themselves and pass the other requests of the same array to MPI; once it
 * is done they hand MPI the inactive request (or, for MPI_Ialltoall's,
 * MPI_REQUEST_NULL), so the status and the array's bookkeeping are MPI's
 * own.  Where no exchange of ours is under way (a counter), they are one
 * test away from MPI's.
 *
 * Rules, MPI's for persistent and nonblocking collectives: MPI_Start on an
 * active request, and MPI_Request_free or MPI_Cancel on one still
 * exchanging, are MPI_ERR_REQUEST (the exchange goes on).  An error of the
 * exchange is returned by the call that completes it: directly from
 * MPI_Wait, MPI_Test and the "any" calls, in the status with
 * MPI_ERR_IN_STATUS from the "all" and "some" calls, as MPI reports its own.
 *
 * Limits: Open MPI's Fortran bindings call PMPI_Wait and the like, so a
 * request of ours must be completed from C there (its Fortran
 * MPIX_ALLTOALL_INIT and MPI_IALLTOALL make MPI's own requests, which is
 * safe); one thread at a time may use our requests, as the library's
 * nonblocking plans.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#if MPI_VERSION >= 4
#define PERSISTENT(name) MPI_##name
#define PMPI_PERSISTENT(name) PMPI_##name
#define PERSISTENT_NAME(name) "MPI_" #name
#elif defined(OPEN_MPI)
#include <mpi-ext.h>
#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ) && OMPI_HAVE_MPI_EXT_PCOLLREQ
#define PERSISTENT(name) MPIX_##name
#define PMPI_PERSISTENT(name) PMPIX_##name
#define PERSISTENT_NAME(name) "MPIX_" #name
#endif
#endif

#include "api/api.h"
#include "call/call.h"
#include "call/options.h"
#include "exchange/exchange.h"
#include "pmpi/pmpi.h"

/* ---- Our requests ---------------------------------------------------------- */

typedef enum phase {
    IDLE,      /* inactive: MPI's inactive request stands for it */
    EXCHANGING,
    DONE       /* complete, the completion not yet returned to the program */
} phase;

/* What a declined MPI_Ialltoall runs (decline_ialltoall): its arguments, the copy of its
 * buffer, and the gate's room for its messages. */
typedef struct declined {
    void *buf;
    int count;
    MPI_Datatype type; /* a duplicate, which the program cannot free under us */
    char *copy;
    MPI_Request *requests;
    MPI_Aint *expected;
    MPI_Status *statuses;
    int *indices;
} declined;

typedef struct our_request {
    MPI_Request handle; /* the program's: a persistent receive, never started */
    aip_plan *plan;     /* its buffer bound (plan->call.buf) */
    phase phase;
    int result;         /* DONE: the exchange's error, or MPI_SUCCESS */
    int persistent;     /* MPI_Alltoall_init's; else MPI_Ialltoall's, freed at its completion */
    aip_pending_settings *settings; /* MPI_Ialltoall's whose settings were not agreed yet */
    declined declined;              /* MPI_Ialltoall's */
} our_request;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static our_request **table; /* entries do not move: pointers to them stay valid */
static _Atomic int table_count;
static int table_capacity;
static _Atomic int started; /* requests EXCHANGING or DONE, for the fast path */

static our_request *find(MPI_Request handle)
{
    our_request *found = NULL;

    if (handle == MPI_REQUEST_NULL)
        return NULL;
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < table_count && !found; i++)
        if (table[i]->handle == handle)
            found = table[i];
    pthread_mutex_unlock(&table_lock);
    return found;
}

/* Whether the request functions must look at requests[0..n): some exchange of ours is
 * under way, and this is the program calling, not the library. */
static int must_look(void)
{
    return started > 0 && !aip_layer_inside_ours;
}

static our_request *started_request(MPI_Request handle)
{
    our_request *r = find(handle);
    return r && r->phase != IDLE ? r : NULL;
}

/* r's handle made, and r in the table; MPI's error, or MPI_ERR_NO_MEM. */
static int enter(our_request *r)
{
    static char nothing; /* the never-started receive's buffer */
    int err = MPI_ERR_NO_MEM;

    pthread_mutex_lock(&table_lock);
    if (table_count == table_capacity) {
        int capacity = table_capacity ? 2 * table_capacity : 8;
        our_request **grown = realloc(table, (size_t)capacity * sizeof *grown);
        if (grown) {
            table = grown;
            table_capacity = capacity;
        }
    }
    if (table_count < table_capacity &&
        (err = PMPI_Recv_init(&nothing, 0, MPI_BYTE, 0, 0, MPI_COMM_SELF, &r->handle)) ==
            MPI_SUCCESS)
        table[table_count++] = r;
    pthread_mutex_unlock(&table_lock);
    return err;
}

static void release_request(our_request *r)
{
    AIP_Plan_free(&r->plan);
    aip_layer_pending_release(r->settings);
    declined *d = &r->declined;
    if (d->type != MPI_DATATYPE_NULL)
        PMPI_Type_free(&d->type);
    free(d->copy);
    free(d->requests);
    free(d->expected);
    free(d->statuses);
    free(d->indices);
    free(r);
}

static void forget(our_request *r)
{
    pthread_mutex_lock(&table_lock);
    for (int i = 0; i < table_count; i++)
        if (table[i] == r) {
            table[i] = table[--table_count];
            break;
        }
    pthread_mutex_unlock(&table_lock);
    release_request(r);
}

static int request_error(our_request *r, const char *fn, const char *why)
{
    return aip_private_raise(r->plan->private, r->plan->call.comm, MPI_ERR_REQUEST, fn, why);
}

/* ---- Steps of one request ------------------------------------------------------ */

static int start(our_request *r)
{
    if (r->phase != IDLE)
        return request_error(r, "MPI_Start",
                             "the persistent all-to-all is active: complete it with MPI_Wait "
                             "or MPI_Test before starting it again");
    aip_layer_inside_ours = 1;
    int err = AIP_Plan_start(r->plan, r->plan->call.buf);
    aip_layer_inside_ours = 0;
    if (err == MPI_SUCCESS) {
        r->phase = EXCHANGING;
        started++;
    }
    return err;
}

/* Advances r's exchange (and every other in flight) without waiting: DONE once complete. */
static void advance(our_request *r)
{
    int flag = 1;

    if (r->phase != EXCHANGING)
        return;
    aip_layer_inside_ours = 1;
    int err = AIP_Plan_test(r->plan, &flag);
    aip_layer_inside_ours = 0;
    if (flag) {
        r->phase = DONE;
        r->result = err;
    }
}

static void wait_for(our_request *r)
{
    if (r->phase != EXCHANGING)
        return;
    aip_layer_inside_ours = 1;
    r->result = AIP_Plan_wait(r->plan);
    aip_layer_inside_ours = 0;
    r->phase = DONE;
}

/* Returns a DONE request's completion: its status (MPI's own, of the inactive request: empty)
 * and its result; a persistent one is inactive again, an MPI_Ialltoall's freed and the
 * program's handle *handle MPI_REQUEST_NULL. */
static int complete(our_request *r, MPI_Status *status, MPI_Request *handle)
{
    int flag, result = r->result;

    r->phase = IDLE;
    started--;
    if (status != MPI_STATUS_IGNORE)
        PMPI_Test(&r->handle, &flag, status);
    if (!r->persistent) {
        PMPI_Request_free(&r->handle);
        *handle = MPI_REQUEST_NULL;
        forget(r);
    }
    return result;
}

enum { NOT_OURS = -1 }; /* MPI's error codes are MPI_SUCCESS (0) and above */

/* The result of an "all" or "some" call that completed `done` requests, their statuses in
 * statuses[0..done) (or ignored): mpi_err, MPI's result for its own requests, and ours[k]
 * for the k-th where it is ours (NOT_OURS where it is MPI's).  Any error: MPI_ERR_IN_STATUS
 * with every status's MPI_ERROR set, as MPI reports its own. */
static int combine(int mpi_err, const int *ours, int done, MPI_Status *statuses)
{
    int first = MPI_SUCCESS;

    if (mpi_err != MPI_SUCCESS && mpi_err != MPI_ERR_IN_STATUS)
        return mpi_err; /* not about the requests' outcomes */
    for (int k = 0; k < done && first == MPI_SUCCESS; k++)
        if (ours[k] != NOT_OURS)
            first = ours[k];
    if (first == MPI_SUCCESS && mpi_err == MPI_SUCCESS)
        return MPI_SUCCESS;
    if (statuses == MPI_STATUSES_IGNORE)
        return first != MPI_SUCCESS ? first : mpi_err;
    for (int k = 0; k < done; k++)
        if (ours[k] != NOT_OURS)
            statuses[k].MPI_ERROR = ours[k];
        else if (mpi_err == MPI_SUCCESS)
            statuses[k].MPI_ERROR = MPI_SUCCESS;
    return MPI_ERR_IN_STATUS;
}

/* count results, NOT_OURS until told otherwise; NULL (MPI_ERR_NO_MEM raised) if none. */
static int *results_for(int count, const char *fn)
{
    int *ours = malloc(((size_t)count + 1) * sizeof *ours);
    if (!ours) {
        aip_raise(MPI_COMM_WORLD, MPI_ERR_NO_MEM, fn, "cannot allocate the array's bookkeeping");
        return NULL;
    }
    for (int k = 0; k < count; k++)
        ours[k] = NOT_OURS;
    return ours;
}

#ifdef PERSISTENT
/* ---- The init calls ---------------------------------------------------------------- */

/* A new persistent request of ours for plan, its handle made and put in *request. */
static int keep(aip_plan *plan, const char *fn, MPI_Request *request)
{
    our_request *r = request ? calloc(1, sizeof *r) : NULL;
    int err = MPI_ERR_NO_MEM;

    if (r) {
        r->plan = plan;
        r->phase = IDLE;
        r->persistent = 1;
        r->declined.type = MPI_DATATYPE_NULL;
        if ((err = enter(r)) == MPI_SUCCESS) {
            *request = r->handle;
            return MPI_SUCCESS;
        }
    }
    /* Local, after the agreement, as MPI's own init finds them */
    err = aip_private_raise(plan->private, plan->call.comm, request ? MPI_ERR_NO_MEM : MPI_ERR_ARG,
                            fn, request ? "cannot keep the persistent request" : "request is NULL");
    free(r);
    AIP_Plan_free(&plan);
    return err;
}

/* Ours ran for an in-place init (err, *plan): 0 if the caller must run MPI's own. */
static int kept(int err, aip_plan *plan, const char *fn, MPI_Comm comm, MPI_Request *request,
                int *result)
{
    if (aip_layer_declined(err, fn, comm))
        return 0;
    *result = err == MPI_SUCCESS ? keep(plan, fn, request) : err;
    return 1;
}

int PERSISTENT(Alltoall_init)(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              MPI_Info info, MPI_Request *request)
{
    static const char fn[] = PERSISTENT_NAME(Alltoall_init);
    aip_plan *plan = NULL;
    int err = MPI_SUCCESS, result;

    route to = sendbuf == MPI_IN_PLACE ? aip_layer_route_in_place(comm, fn, &err) : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        aip_layer_inside_ours = 1;
        err = aip_pmpi_alltoall(fn, recvbuf, recvcount, recvtype, comm, &plan);
        aip_layer_inside_ours = 0;
        if (kept(err, plan, fn, comm, request, &result))
            return result;
    }
    return PMPI_PERSISTENT(Alltoall_init)(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, comm, info, request);
}

int PERSISTENT(Alltoallv_init)(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request)
{
    static const char fn[] = PERSISTENT_NAME(Alltoallv_init);
    aip_plan *plan = NULL;
    int err = MPI_SUCCESS, result;

    route to = sendbuf == MPI_IN_PLACE ? aip_layer_route_in_place(comm, fn, &err) : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        aip_layer_inside_ours = 1;
        err = aip_pmpi_alltoallv(fn, recvbuf, recvcounts, rdispls, recvtype, comm, &plan);
        aip_layer_inside_ours = 0;
        if (kept(err, plan, fn, comm, request, &result))
            return result;
    }
    return PMPI_PERSISTENT(Alltoallv_init)(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                           recvcounts, rdispls, recvtype, comm, info, request);
}

int PERSISTENT(Alltoallw_init)(const void *sendbuf, const int sendcounts[], const int sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf,
                               const int recvcounts[], const int rdispls[],
                               const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    static const char fn[] = PERSISTENT_NAME(Alltoallw_init);
    aip_plan *plan = NULL;
    int err = MPI_SUCCESS, result;

    route to = sendbuf == MPI_IN_PLACE ? aip_layer_route_in_place(comm, fn, &err) : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        aip_layer_inside_ours = 1;
        err = aip_pmpi_alltoallw(fn, recvbuf, recvcounts, rdispls, recvtypes, comm, &plan);
        aip_layer_inside_ours = 0;
        if (kept(err, plan, fn, comm, request, &result))
            return result;
    }
    return PMPI_PERSISTENT(Alltoallw_init)(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                           recvcounts, rdispls, recvtypes, comm, info, request);
}
#endif /* PERSISTENT */

/* ---- MPI_Ialltoall ------------------------------------------------------------------ */

/* Once the call's agreement is in: whether the settings, agreed meanwhile, let ours run. */
static int route_at_conclusion(void *context, aip_call *call)
{
    our_request *r = context;
    return r->settings ? aip_layer_pending_route(r->settings, call) : MPI_SUCCESS;
}

/* The bytes [*lo, *hi) of buf that n elements of type cover. */
static void span_of(MPI_Datatype type, MPI_Aint n, MPI_Aint *lo, MPI_Aint *hi)
{
    MPI_Aint lb, extent, true_lb, true_extent;

    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    MPI_Aint last = (n - 1) * extent;
    *lo = (last < 0 ? last : 0) + true_lb;
    *hi = (last > 0 ? last : 0) + true_lb + true_extent;
}

/* MPI's semantics for a declined MPI_Ialltoall, on the plan's job: every other block sent
 * from a copy of the buffer and received in place, all posted at once on the plan's
 * private communicator and tag, as MPI's own in-place algorithms copy the buffer: the one
 * path of the layer whose memory grows with the message, for the calls ours cannot serve.
 * Without memory for the copy, this rank sends its blocks empty, receives the others', and
 * returns MPI_ERR_NO_MEM; its partners, which find the empty messages, MPI_ERR_OTHER. */
static int decline_ialltoall(aip_plan *plan, void *context)
{
    our_request *r = context;
    declined *d = &r->declined;
    int p = plan->call.size, rank = plan->call.rank, n = 0, failed = MPI_SUCCESS, err;
    MPI_Count size = 0;
    MPI_Aint lb, extent, lo = 0, hi = 0;

    if (rank == 0 && aip_env_debug())
        fprintf(stderr,
                "alltoall_inplace: %s: MPI's semantics, by the layer's messages from a copy (a "
                "datatype is not contiguous bytes, MPI_DATATYPE_NULL at a zero count, or "
                "AIP_PMPI_IN_PLACE=0)\n",
                plan->call.fn);
    if (d->count > 0 && d->type != MPI_DATATYPE_NULL)
        PMPI_Type_size_x(d->type, &size);
    if (size > 0) {
        PMPI_Type_get_extent(d->type, &lb, &extent);
        span_of(d->type, (MPI_Aint)p * d->count, &lo, &hi);
        d->requests = malloc(2 * (size_t)p * sizeof *d->requests);
        d->expected = malloc(2 * (size_t)p * sizeof *d->expected);
        d->statuses = malloc(2 * (size_t)p * sizeof *d->statuses);
        d->indices = malloc(2 * (size_t)p * sizeof *d->indices);
        if (!d->requests || !d->expected || !d->statuses || !d->indices)
            return MPI_ERR_NO_MEM; /* O(p): before any message, on this rank alone */
        if ((d->copy = malloc((size_t)(hi - lo))))
            memcpy(d->copy, (char *)d->buf + lo, (size_t)(hi - lo));
        else
            failed = MPI_ERR_NO_MEM;
    }
    char *sent = d->copy ? d->copy - lo : NULL; /* where the copy's element 0 would be */
    for (int j = 0; size > 0 && j < p; j++) {
        MPI_Aint at = (MPI_Aint)j * d->count * extent;
        if (j == rank)
            continue; /* in place: rank's own block stays */
        d->expected[n] = (MPI_Aint)((MPI_Count)d->count * size);
        if ((err = MPI_Irecv((char *)d->buf + at, d->count, d->type, j, plan->space.tag,
                             plan->private_comm, &d->requests[n])) != MPI_SUCCESS)
            break;
        d->expected[++n] = 0;
        err = failed ? MPI_Isend(NULL, 0, MPI_BYTE, j, plan->space.tag, plan->private_comm,
                                 &d->requests[n])
                     : MPI_Isend(sent + at, d->count, d->type, j, plan->space.tag,
                                 plan->private_comm, &d->requests[n]);
        if (err != MPI_SUCCESS)
            break;
        n++;
    }
    if (size > 0 && n < 2 * (p - 1)) { /* MPI refused one: those posted are given up */
        aip_give_up(n, d->requests);
        return err;
    }
    aip_exchange_begin_gate(&plan->job, d->requests, n,
                            &(aip_gate_space){ .expected = d->expected,
                                               .statuses = d->statuses,
                                               .indices = d->indices },
                            &plan->space, failed);
    return MPI_SUCCESS;
}

int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ialltoall";
    aip_pending_settings *settings = NULL;
    int err = MPI_SUCCESS;

    route to = sendbuf == MPI_IN_PLACE
                   ? aip_layer_route_nonblocking(comm, fn, &err, &settings)
                   : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_MPI)
        return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                              request);
    our_request *r = request ? calloc(1, sizeof *r) : NULL;
    if (!r) {
        aip_layer_pending_release(settings);
        return aip_raise(comm, request ? MPI_ERR_NO_MEM : MPI_ERR_ARG, fn,
                         request ? "cannot allocate the request" : "request is NULL");
    }
    r->settings = settings;
    r->declined = (declined){ .buf = recvbuf, .count = recvcount, .type = MPI_DATATYPE_NULL };
    /* Before anything is issued, so that a failure leaves nothing under way: the handle, and
     * a duplicate of a valid datatype for a decline (an invalid one is the front end's to
     * report; the program may free its own before the completion) */
    aip_type_info info;
    if (recvtype != MPI_DATATYPE_NULL && aip_type_info_get(recvtype, &info) == MPI_SUCCESS &&
        (err = PMPI_Type_dup(recvtype, &r->declined.type)) != MPI_SUCCESS) {
        release_request(r);
        return aip_raise(comm, MPI_ERR_NO_MEM, fn, "cannot keep the datatype");
    }
    if ((err = enter(r)) != MPI_SUCCESS) {
        release_request(r);
        return aip_raise(comm, MPI_ERR_NO_MEM, fn, "cannot keep the request");
    }
    aip_conclusion conclusion = { route_at_conclusion, decline_ialltoall, r };
    aip_layer_inside_ours = 1;
    err = aip_pmpi_ialltoall(fn, recvbuf, recvcount, recvtype, comm, &conclusion, &r->plan);
    aip_layer_inside_ours = 0;
    if (err != MPI_SUCCESS) { /* raised */
        PMPI_Request_free(&r->handle);
        forget(r);
        return err;
    }
    r->phase = EXCHANGING;
    started++;
    *request = r->handle;
    return MPI_SUCCESS;
}

/* ---- Start and free ---------------------------------------------------------------- */

int MPI_Start(MPI_Request *request)
{
    our_request *r = table_count && request ? find(*request) : NULL;
    return r ? start(r) : PMPI_Start(request);
}

/* In order: collectives start in the same order on every rank. */
int MPI_Startall(int count, MPI_Request requests[])
{
    int err = MPI_SUCCESS;

    if (!table_count)
        return PMPI_Startall(count, requests);
    for (int i = 0; i < count && err == MPI_SUCCESS; i++) {
        our_request *r = find(requests[i]);
        err = r ? start(r) : PMPI_Start(&requests[i]);
    }
    return err;
}

int MPI_Request_free(MPI_Request *request)
{
    our_request *r = table_count && request ? find(*request) : NULL;

    if (!r)
        return PMPI_Request_free(request);
    if (r->phase == EXCHANGING)
        return request_error(r, "MPI_Request_free",
                             "the all-to-all is still exchanging: complete it with "
                             "MPI_Wait or MPI_Test before freeing it");
    if (r->phase == DONE)
        started--;
    int err = PMPI_Request_free(request);
    forget(r);
    return err;
}

int MPI_Cancel(MPI_Request *request)
{
    our_request *r = table_count && request ? find(*request) : NULL;
    return r ? request_error(r, "MPI_Cancel", "a collective cannot be cancelled")
             : PMPI_Cancel(request);
}

/* ---- Completion -------------------------------------------------------------------- */

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    our_request *r = must_look() && request ? started_request(*request) : NULL;

    if (!r)
        return PMPI_Wait(request, status);
    wait_for(r);
    return complete(r, status, request);
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    our_request *r = must_look() && request ? started_request(*request) : NULL;

    if (!r)
        return PMPI_Test(request, flag, status);
    advance(r);
    *flag = r->phase == DONE;
    return *flag ? complete(r, status, request) : MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    our_request *r = must_look() ? started_request(request) : NULL;

    if (!r)
        return PMPI_Request_get_status(request, flag, status);
    advance(r);
    *flag = r->phase == DONE;
    if (*flag && status != MPI_STATUS_IGNORE) /* the inactive request's empty status */
        PMPI_Request_get_status(request, flag, status);
    return *flag ? r->result : MPI_SUCCESS;
}

/* Ours first, then MPI's: ours are inactive to MPI by then. */
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (!must_look())
        return PMPI_Waitall(count, requests, statuses);
    int *ours = results_for(count, "MPI_Waitall"); /* O(count), as the array itself */
    if (!ours)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < count; i++) {
        our_request *r = started_request(requests[i]);
        if (r) {
            wait_for(r);
            ours[i] = complete(r, MPI_STATUS_IGNORE, &requests[i]);
        }
    }
    int err = combine(PMPI_Waitall(count, requests, statuses), ours, count, statuses);
    free(ours);
    return err;
}

/* Complete only if every request is: ours done, then MPI's tested. */
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    int all_ours_done = 1;

    if (!must_look())
        return PMPI_Testall(count, requests, flag, statuses);
    for (int i = 0; i < count; i++) {
        our_request *r = started_request(requests[i]);
        if (r) {
            advance(r);
            all_ours_done &= r->phase == DONE;
        }
    }
    if (!all_ours_done) {
        *flag = 0; /* none is completed, as MPI_Testall leaves them */
        return MPI_SUCCESS;
    }
    int *ours = results_for(count, "MPI_Testall");
    if (!ours)
        return MPI_ERR_NO_MEM;
    int err = PMPI_Testall(count, requests, flag, statuses);
    if (*flag) {
        for (int i = 0; i < count; i++) {
            our_request *r = started_request(requests[i]);
            if (r)
                ours[i] = complete(r, MPI_STATUS_IGNORE, &requests[i]);
        }
        err = combine(err, ours, count, statuses);
    }
    free(ours);
    return err;
}

/* One pass of Waitany: ours that are done first, then MPI's without waiting.  *pending:
 * some request of ours in the array is still exchanging. */
static int test_any(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status,
                    int *pending)
{
    *pending = 0;
    for (int i = 0; i < count; i++) {
        our_request *r = started_request(requests[i]);
        if (!r)
            continue;
        advance(r);
        if (r->phase == DONE) {
            *index = i;
            *flag = 1;
            return complete(r, status, &requests[i]);
        }
        *pending = 1;
    }
    int err = PMPI_Testany(count, requests, index, flag, status);
    if (*flag && *index == MPI_UNDEFINED && *pending)
        *flag = 0; /* MPI saw none active; ours are */
    return err;
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    int flag = 0, pending, err;

    if (!must_look())
        return PMPI_Waitany(count, requests, index, status);
    do
        err = test_any(count, requests, index, &flag, status, &pending);
    while (err == MPI_SUCCESS && !flag);
    return err;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    int pending;

    if (!must_look())
        return PMPI_Testany(count, requests, index, flag, status);
    return test_any(count, requests, index, flag, status, &pending);
}

/* One pass of Waitsome: ours that are done, then MPI's, into indices and statuses. */
static int test_some(int count, MPI_Request requests[], int *outcount, int indices[],
                     MPI_Status statuses[], int *pending)
{
    int done = 0, mpi_done = 0;
    int *ours = results_for(count, "MPI_Testsome");

    if (!ours)
        return MPI_ERR_NO_MEM;
    *pending = 0;
    for (int i = 0; i < count; i++) {
        our_request *r = started_request(requests[i]);
        if (!r)
            continue;
        advance(r);
        if (r->phase != DONE) {
            *pending = 1;
            continue;
        }
        indices[done] = i;
        ours[done] = complete(r, statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                 : &statuses[done],
                              &requests[i]);
        done++;
    }
    int err = PMPI_Testsome(count, requests, &mpi_done, indices + done,
                            statuses == MPI_STATUSES_IGNORE ? MPI_STATUSES_IGNORE
                                                            : statuses + done);
    if (mpi_done == MPI_UNDEFINED) /* MPI has no active request in the array */
        *outcount = done > 0 || *pending ? done : MPI_UNDEFINED;
    else
        *outcount = done + mpi_done;
    if (*outcount != MPI_UNDEFINED)
        err = combine(err, ours, *outcount, statuses);
    free(ours);
    return err;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    int pending, err;

    if (!must_look())
        return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    do
        err = test_some(incount, requests, outcount, indices, statuses, &pending);
    while (err == MPI_SUCCESS && *outcount == 0);
    return err;
}

int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    int pending;

    if (!must_look())
        return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    return test_some(incount, requests, outcount, indices, statuses, &pending);
}
