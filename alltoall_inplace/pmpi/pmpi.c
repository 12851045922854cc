/*
 * pmpi.c - liballtoall_inplace_pmpi: bounded-memory in-place all-to-all for
 * programs that call MPI, not us.
 *
 * Through MPI's profiling interface (MPI-3.1 Sect. 14.2) this library
 * defines MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw.  Preloaded
 * (LD_PRELOAD) or linked before the MPI library, it receives a program's
 * calls of them: those with MPI_IN_PLACE on an intracommunicator run ours
 * (AIP_Alltoall, AIP_Alltoallv, AIP_Alltoallw: extra memory the aux budget,
 * $AIP_AUX_BYTES, where Open MPI's and MPICH's in-place algorithms allocate
 * a block or a whole message per call); every other call goes to PMPI_*
 * unchanged.  Every other MPI function is the MPI library's own.
 *
 * The promise is MPI's semantics for these calls:
 *   - same results, zero counts and one rank included (our front ends take
 *     MPI's arguments as they are: counts and displacements in elements,
 *     Alltoallw's in bytes, any datatypes of equal signatures);
 *   - datatypes that our executor cannot move as bytes (gaps, padding) are
 *     MPI's business: the front end agrees on that with every rank, before
 *     any byte moves, and every rank then calls MPI's own collective
 *     (AIP_DECLINED), so no rank is left in a different algorithm;
 *   - errors are raised on the communicator's error handler and returned,
 *     as MPI does, with the same class on every rank; intercommunicators and
 *     MPI_COMM_NULL go to MPI, which reports them in its own words;
 *   - MPI_BOTTOM in place runs ours, the blocks at the datatypes' absolute
 *     addresses; MPI_DATATYPE_NULL at a zero count, where the MPIs differ, is
 *     declined like a gapped datatype;
 *   - MPI calls that the library itself makes while it runs one of ours
 *     (its own out-of-place MPI_Alltoall of sizes, say) pass straight
 *     through: a thread-local flag, so threads of MPI_THREAD_MULTIPLE
 *     programs do not see each other's.
 * Out-of-place MPI_Alltoall runs ours only when asked ($AIP_PMPI_OUT_OF_PLACE,
 * tunables.h), and only with the same count and datatype on both sides
 * (AIP_Alltoall_oop lays out both buffers by one datatype): where a rank's
 * differ, the front end declines on every rank.  Every decision between ours
 * and MPI's is the same on all ranks: the settings are agreed once per
 * communicator (below), the rest in the front end's agreement.
 *
 * Fortran callers of MPICH reach these symbols (its bindings call MPI_*);
 * Open MPI's bindings call PMPI_* and get Fortran symbols of their own
 * (pmpi_fortran.c).  The in-place persistent variants (MPI_Alltoall_init,
 * ...) and MPI_Ialltoall are ours too, with the request functions that
 * complete them (pmpi_requests.c).  The large-count (_c) functions of MPI-4,
 * MPI_Ialltoallv and _w, and mpi_f08's bindings are not intercepted.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "call/call.h"
#include "call/comm.h"
#include "call/options.h"
#include "pmpi/pmpi.h"

/* ---- Settings (tunables.h) --------------------------------------------- */

enum {
#define SETTING_INDEX(field, env, fallback, help) SETTING_##field,
    AIP_PMPI_TUNABLES(SETTING_INDEX)
#undef SETTING_INDEX
        N_SETTINGS
};

static const struct {
    const char *env, *fallback, *help;
} settings[N_SETTINGS] = {
#define SETTING_ROW(field, env, fallback, help) { env, fallback, help },
    AIP_PMPI_TUNABLES(SETTING_ROW)
#undef SETTING_ROW
};

/* Each setting as this process read it, once, at the layer's first call: 0 or 1, or -1 if
 * it says something else (its text kept for the message).  Read once, so that every
 * communicator's agreement below sees the same values. */
static int setting_value[N_SETTINGS];
static char setting_text[N_SETTINGS][64];
static pthread_once_t settings_once = PTHREAD_ONCE_INIT;

static void read_settings(void)
{
    for (int k = 0; k < N_SETTINGS; k++) {
        const char *value = getenv(settings[k].env);
        if (!value || !*value)
            value = settings[k].fallback;
        snprintf(setting_text[k], sizeof setting_text[k], "%s", value);
        setting_value[k] = strcmp(value, "0") == 0 ? 0 : strcmp(value, "1") == 0 ? 1 : -1;
    }
}

/* ---- The settings agreed on a communicator ----------------------------- */

/* Whether a call runs ours or MPI's must be the same on every rank (a rank in MPI's own
 * collective while the others run ours would hang them all), and a bad setting must be
 * the same error on every rank (README, Errors).  So the ranks of a communicator agree on
 * the settings in one small MPI_Allreduce, at the first call on it that a setting governs,
 * and keep the result in an attribute of the communicator: later calls pay nothing (no
 * copy function: a duplicate agrees anew).  Per setting, what all ranks said: */
enum { AGREED_OFF = 0, AGREED_ON = 1, AGREED_BAD, AGREED_DIFFERENT, AGREED_BITS = 2 };

/* The attribute is the settings packed in an integer with bit 0 set, or, where the first
 * call was MPI_Ialltoall, which must not wait for the other ranks, this record of its
 * MPI_Iallreduce (a pointer: bit 0 clear), cached at that call so that every later call on
 * every rank finds it, and settled by whichever needs the outcome first. */
typedef struct pending_settings {
    int words[2 * N_SETTINGS]; /* the minima of the values and of their negations */
    MPI_Request request;       /* MPI_REQUEST_NULL once settled */
    intptr_t packed;
    atomic_int references;     /* the attribute's, and each MPI_Ialltoall's that waits for it */
} pending_settings;

static int agreed_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t agreed_keyval_once = PTHREAD_ONCE_INIT;

static void pack_words(int words[2 * N_SETTINGS])
{
    for (int k = 0; k < N_SETTINGS; k++) {
        words[k] = setting_value[k];
        words[N_SETTINGS + k] = -setting_value[k];
    }
}

static intptr_t packed_agreement(const int words[2 * N_SETTINGS])
{
    intptr_t packed = 1; /* bit 0: set, so that a stored value is never NULL */
    for (int k = 0; k < N_SETTINGS; k++) {
        int lowest = words[k], highest = -words[N_SETTINGS + k];
        intptr_t state = lowest < 0 ? AGREED_BAD : lowest != highest ? AGREED_DIFFERENT : lowest;
        packed |= state << (1 + AGREED_BITS * k);
    }
    return packed;
}

/* The outcome of a pending agreement, waiting for it the first time (every rank issued it
 * before any later collective on the communicator: see the callers). */
static int settle(pending_settings *pending, intptr_t *packed)
{
    if (pending->request != MPI_REQUEST_NULL) {
        int err = PMPI_Wait(&pending->request, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS)
            return err;
        pending->packed = packed_agreement(pending->words);
    }
    *packed = pending->packed;
    return MPI_SUCCESS;
}

static void release_pending(pending_settings *pending)
{
    intptr_t packed;
    if (atomic_fetch_sub(&pending->references, 1) != 1)
        return;
    settle(pending, &packed); /* MPI writes words until its request completes */
    free(pending);
}

static int delete_agreed(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)comm;
    (void)keyval;
    (void)extra_state;
    if (!((intptr_t)attribute & 1))
        release_pending(attribute);
    return MPI_SUCCESS;
}

static void free_agreed_keyval(void)
{
    PMPI_Comm_free_keyval(&agreed_keyval);
}

static void create_agreed_keyval(void)
{
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_agreed, &agreed_keyval, NULL) ==
        MPI_SUCCESS)
        aip_at_finalize(free_agreed_keyval);
}

static void unpack(intptr_t packed, int agreed[N_SETTINGS])
{
    for (int k = 0; k < N_SETTINGS; k++)
        agreed[k] = (int)((packed >> (1 + AGREED_BITS * k)) & ((1 << AGREED_BITS) - 1));
}

/* comm's attribute: *cached and *found as MPI_Comm_get_attr gives them. */
static int cached_agreement(MPI_Comm comm, void **cached, int *found)
{
    pthread_once(&settings_once, read_settings);
    pthread_once(&agreed_keyval_once, create_agreed_keyval);
    if (agreed_keyval == MPI_KEYVAL_INVALID)
        return MPI_ERR_INTERN;
    return PMPI_Comm_get_attr(comm, agreed_keyval, cached, found);
}

/* agreed[k] for every setting, from comm's attribute or, the first time, from the ranks. */
static int agree_settings(MPI_Comm comm, int agreed[N_SETTINGS])
{
    int words[2 * N_SETTINGS], found, err;
    void *cached;
    intptr_t packed;

    if ((err = cached_agreement(comm, &cached, &found)) != MPI_SUCCESS)
        return err;
    if (found && !((intptr_t)cached & 1)) {
        /* A blocking call comes at the same point on every rank: from here on the settings
         * are agreed for MPI_Ialltoall too, which then routes at its call again */
        if ((err = settle(cached, &packed)) != MPI_SUCCESS ||
            (err = PMPI_Comm_set_attr(comm, agreed_keyval, (void *)packed)) != MPI_SUCCESS)
            return err;
    } else if (found) {
        packed = (intptr_t)cached;
    } else {
        pack_words(words);
        if ((err = PMPI_Allreduce(MPI_IN_PLACE, words, 2 * N_SETTINGS, MPI_INT, MPI_MIN,
                                  comm)) != MPI_SUCCESS)
            return err;
        packed = packed_agreement(words);
        if ((err = PMPI_Comm_set_attr(comm, agreed_keyval, (void *)packed)) != MPI_SUCCESS)
            return err;
    }
    unpack(packed, agreed);
    return MPI_SUCCESS;
}

/* The same without waiting: agreed[k] where comm's settings are agreed (*pending NULL), or
 * the agreement under way, which the caller holds a reference to (first call: begun here,
 * an MPI_Iallreduce on comm). */
static int agree_settings_later(MPI_Comm comm, int agreed[N_SETTINGS], pending_settings **pending)
{
    int found, err;
    void *cached;

    *pending = NULL;
    if ((err = cached_agreement(comm, &cached, &found)) != MPI_SUCCESS)
        return err;
    if (found && ((intptr_t)cached & 1)) {
        unpack((intptr_t)cached, agreed);
        return MPI_SUCCESS;
    }
    pending_settings *record = cached;
    if (!found) {
        if (!(record = malloc(sizeof *record)))
            return MPI_ERR_NO_MEM;
        pack_words(record->words);
        atomic_init(&record->references, 1);
        if ((err = PMPI_Iallreduce(MPI_IN_PLACE, record->words, 2 * N_SETTINGS, MPI_INT,
                                   MPI_MIN, comm, &record->request)) != MPI_SUCCESS) {
            free(record);
            return err;
        }
        if ((err = PMPI_Comm_set_attr(comm, agreed_keyval, record)) != MPI_SUCCESS) {
            release_pending(record);
            return err;
        }
    }
    atomic_fetch_add(&record->references, 1);
    *pending = record;
    return MPI_SUCCESS;
}

/* ---- Which calls run ours ---------------------------------------------- */

_Thread_local int aip_layer_inside_ours;
#define inside_ours aip_layer_inside_ours

/* The route of setting k's agreed state on comm: TO_ERROR with the message this rank
 * prints (maybe none) where some rank's setting is neither 0 nor 1, or the ranks' differ. */
static route route_agreed(int k, int state, MPI_Comm comm, char *message, size_t size)
{
    int rank = 0;

    PMPI_Comm_rank(comm, &rank);
    switch (state) {
    case AGREED_OFF:
        return TO_MPI;
    case AGREED_ON:
        return TO_OURS;
    case AGREED_BAD: /* the ranks with a bad value say which; rank 0 says so in any case,
                      * in case the error handler ends the job before they can */
        if (setting_value[k] < 0)
            snprintf(message, size, "%s=%s: must be 0 or 1 (%s)", settings[k].env,
                     setting_text[k], settings[k].help);
        else if (rank == 0)
            snprintf(message, size, "%s is neither 0 nor 1 on some rank (%s)", settings[k].env,
                     settings[k].help);
        return TO_ERROR;
    default: /* AGREED_DIFFERENT */
        if (rank == 0)
            snprintf(message, size,
                     "the ranks gave different %s (0 on some, 1 on others); all must give the "
                     "same (%s)",
                     settings[k].env, settings[k].help);
        return TO_ERROR;
    }
}

/* What MPI_Comm_test_inter says is the same on every rank: no agreement needed, and none
 * is possible on MPI_COMM_NULL or an invalid communicator (MPI reports them). */
static int for_mpi_alone(MPI_Comm comm)
{
    int inter;
    return inside_ours || comm == MPI_COMM_NULL ||
           PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter;
}

/* An agreement that MPI failed: raised as *err. */
static route agreement_failed(int k, int e, MPI_Comm comm, const char *fn, int *err)
{
    char message[512];
    int error_class = MPI_ERR_OTHER;

    PMPI_Error_class(e, &error_class);
    snprintf(message, sizeof message, "agreeing on %s failed", settings[k].env);
    *err = aip_raise(comm, error_class, fn, message);
    return TO_ERROR;
}

/* Whether a call on comm that setting k governs runs ours, the same on every rank;
 * TO_ERROR after raising MPI_ERR_ARG (*err) on every rank if some rank's setting is
 * neither 0 nor 1, or the ranks' settings differ. */
static route route_of(int k, MPI_Comm comm, const char *fn, int *err)
{
    int agreed[N_SETTINGS], e;
    char message[512] = "";

    if (for_mpi_alone(comm))
        return TO_MPI;
    if ((e = agree_settings(comm, agreed)) != MPI_SUCCESS)
        return agreement_failed(k, e, comm, fn, err);
    route to = route_agreed(k, agreed[k], comm, message, sizeof message);
    if (to == TO_ERROR)
        *err = aip_raise(comm, MPI_ERR_ARG, fn, message);
    return to;
}

route aip_layer_route_nonblocking(MPI_Comm comm, const char *fn, int *err,
                                  aip_pending_settings **pending)
{
    int agreed[N_SETTINGS] = { 0 }, e;
    char message[512] = "";

    *pending = NULL;
    if (for_mpi_alone(comm))
        return TO_MPI;
    if ((e = agree_settings_later(comm, agreed, pending)) != MPI_SUCCESS)
        return agreement_failed(SETTING_in_place, e, comm, fn, err);
    if (*pending)
        return TO_OURS;
    route to = route_agreed(SETTING_in_place, agreed[SETTING_in_place], comm, message,
                            sizeof message);
    if (to == TO_ERROR)
        *err = aip_raise(comm, MPI_ERR_ARG, fn, message);
    return to;
}

int aip_layer_pending_route(aip_pending_settings *pending, aip_call *call)
{
    int agreed[N_SETTINGS], err;
    intptr_t packed;
    char message[512] = "";

    if ((err = settle(pending, &packed)) != MPI_SUCCESS)
        return aip_describe_mpi_error(call, err, "agreeing on the settings failed");
    unpack(packed, agreed);
    switch (route_agreed(SETTING_in_place, agreed[SETTING_in_place], call->comm, message,
                         sizeof message)) {
    case TO_OURS:
        return MPI_SUCCESS;
    case TO_MPI:
        return AIP_DECLINED;
    default:
        snprintf(call->message, sizeof call->message, "%s", message);
        return MPI_ERR_ARG;
    }
}

void aip_layer_pending_release(aip_pending_settings *pending)
{
    if (pending)
        release_pending(pending);
}

route aip_layer_route_in_place(MPI_Comm comm, const char *fn, int *err)
{
    return route_of(SETTING_in_place, comm, fn, err);
}

/* After one of ours ran: err, or MPI's own call (run by the caller) if ours declined. */
int aip_layer_declined(int err, const char *fn, MPI_Comm comm)
{
    int rank;

    if (err != AIP_DECLINED)
        return 0;
    if (aip_env_debug() && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank == 0)
        fprintf(stderr,
                "alltoall_inplace: %s: MPI's own (a datatype is not contiguous bytes, or "
                "arguments MPI's own must judge: MPI_DATATYPE_NULL at a zero count, MPI_BOTTOM "
                "out of place, send and receive layouts that differ)\n",
                fn);
    return 1;
}

/* ---- The entry points ---------------------------------------------------- */

int aip_layer_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoall";
    int in_place = sendbuf == MPI_IN_PLACE, err = MPI_SUCCESS;

    /* Out of place, AIP_Alltoall_oop lays out both buffers by one count and datatype; where
     * a rank's differ, the front end declines on every rank (a rank alone must not decide) */
    route to = route_of(in_place ? SETTING_in_place : SETTING_out_of_place, comm, fn, &err);
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        inside_ours = 1;
        err = in_place ? aip_pmpi_alltoall(fn, recvbuf, recvcount, recvtype, comm, NULL)
                       : aip_pmpi_alltoall_oop(fn, sendbuf, sendcount, sendtype, recvbuf,
                                               recvcount, recvtype, comm);
        inside_ours = 0;
        if (!aip_layer_declined(err, fn, comm))
            return err;
    }
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int aip_layer_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallv";
    int err = MPI_SUCCESS;

    route to = sendbuf == MPI_IN_PLACE ? route_of(SETTING_in_place, comm, fn, &err) : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        inside_ours = 1;
        err = aip_pmpi_alltoallv(fn, recvbuf, recvcounts, rdispls, recvtype, comm, NULL);
        inside_ours = 0;
        if (!aip_layer_declined(err, fn, comm))
            return err;
    }
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                          recvtype, comm);
}

int aip_layer_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallw";
    int err = MPI_SUCCESS;

    route to = sendbuf == MPI_IN_PLACE ? route_of(SETTING_in_place, comm, fn, &err) : TO_MPI;
    if (to == TO_ERROR)
        return err;
    if (to == TO_OURS) {
        inside_ours = 1;
        err = aip_pmpi_alltoallw(fn, recvbuf, recvcounts, rdispls, recvtypes, comm, NULL);
        inside_ours = 0;
        if (!aip_layer_declined(err, fn, comm))
            return err;
    }
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                          recvtypes, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return aip_layer_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    return aip_layer_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                               rdispls, recvtype, comm);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return aip_layer_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm);
}
