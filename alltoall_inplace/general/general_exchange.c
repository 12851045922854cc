/*
 * general_exchange.c - the general in-place all-to-all (AIP_Alltoallv_general,
 * and any call run with AIP_ALGORITHM=general): the algorithm of
 *
 *     M. Hofmann and G. Ruenger, "An In-place Algorithm for Irregular
 *     All-to-All Communication with Limited Memory", EuroMPI 2010,
 *
 * Algorithm 1: a sequence of phases, each of
 *   1. determine, for every source j, how many of its bytes can be
 *      received: those that fit in the free bottom of the receive set R_j,
 *      plus room in the auxiliary buffer (general_sets.c, general_aux.c);
 *   2. exchange requests: tell each source how many bytes to send;
 *   3. exchange data: the requested bytes, lowest first, one message per
 *      pair, gathered from and scattered to their pieces by an hindexed
 *      datatype (a message may span several send subsets, and land partly
 *      in place and partly in the auxiliary buffer);
 *   4. update the index sets: push unsent data to the top of each R_j to
 *      join its free space, and move data waiting in the auxiliary buffer in.
 * Extra memory: the budget (the auxiliary buffer) and O(p) integers.
 *
 * Requests (step 2).  The paper used one MPI_Alltoall per phase: p messages
 * per process and phase even when a process exchanges with a few peers,
 * and a global step that every process waits for until the last one is
 * done.  AIP_REQUESTS=p2p (the default) sends a request only to the
 * sources that still have data for me, and expects one only from the
 * ranks I still have data for: both sides know when a pair is done, so
 * each process stops as soon as its own exchanges are complete, and a
 * sparse pattern costs messages in proportion to its peers.  The
 * benchmark (docs/results.md) compares the two.
 *
 * Why the phases end.  Let U be the bytes not sent yet, summed over all
 * processes; each process knows exactly how many bytes each source still
 * owes it, and never asks for more, so every phase in which some process
 * asks for a byte lowers U.  It remains to show that while U > 0 some
 * process asks for a byte.  After an update, the free bytes of each R_j
 * are one range at its bottom, and data from j waiting in the auxiliary
 * buffer has moved into them: for each j, either nothing from j waits
 * (A_j = 0) or R_j has no free byte.  Summing over processes and sources,
 * U = sum of (|R_j| - A_j) = F + O - A, where F counts free bytes of
 * receive sets, O unsent bytes lying in receive sets, A waiting bytes; and
 * U = O + N, N counting unsent bytes outside every receive set.  So
 * F = N + A.  If N + A > 0, some R_j has free bytes, so A_j = 0 and j owes
 * at least as many bytes as are free there (they are part of R_j): j is
 * asked for at least one.  If N = A = 0, every auxiliary buffer is empty,
 * and a process still owed data asks for at least a byte of auxiliary room
 * (every buffer has a byte: a budget of 0 stands for the minimum, and
 * never more static buffers than bytes).  Before the first update A = 0
 * as well.  So every phase moves a byte, and the exchange ends after at
 * most U phases (in practice about the data over the budget).  When U = 0
 * nothing occupies any R_j, and the last update moves every waiting byte
 * in.  This is Siegel & Siegel's argument (EuroPVM/MPI 2009) restated for
 * receive sets that are the only usable free space, as Sect. 3.1 asks.  A
 * phase cannot deadlock either: requests are non-blocking, and each data
 * message waits only for the request of its own phase.
 *
 * With requests between pairs (p2p), the phases run as one job of the
 * executor, each phase three steps chained by the job's `then`: post the
 * requests and the receives, serve each request as it arrives (its data
 * sent at once), complete the phase's messages and update the sets.  So a
 * nonblocking execution (AIP_Plan_start) advances in the background.  With
 * one MPI_Alltoall of requests per phase the phases run to the end inside
 * the start: blocking collectives on the shared private communicator must
 * be called in the same order on every rank, which tests and waits do not
 * keep.
 *
 * An MPI error on one rank (exchange.h): the rank goes on with its phases,
 * requests carrying their values but data messages empty, so that every
 * message its partners expect still comes; a rank that receives an empty
 * data message does the same.  The index sets advance as if the data had
 * arrived, so the phases end as they would have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange/exchange.h"
#include "general/general.h"

/* The exchange of one call: the index sets and the O(p) arrays of messages. */
typedef struct general_exchange {
    aip_general sets;
    int tag; /* the execution's first tag, of requests; data go on tag + 1 */
    MPI_Aint *ask;       /* per source: what I ask of it this phase */
    MPI_Aint *asked;     /* per dest: what it asks of me */
    MPI_Aint *words;     /* AIP_REQUESTS=alltoall: 2 per rank, out and in */
    MPI_Request *wait_requests; /* requests of dests, to serve as they come */
    int *wait_peer;
    MPI_Request *other;  /* request sends and data messages */
    MPI_Aint *expected;  /* per entry of other: a data receive's bytes, else 0 */
    int nwait, nother;   /* posted this phase */
    MPI_Status *statuses; /* MPI_Testsome's room for other (3p), and its indices */
    int *indices;
    aip_piece *pieces;
    int *lengths;
    MPI_Aint *displs;
    size_t held_bytes; /* of the arrays above */
} general_exchange;

static int exchange_alloc(general_exchange *x, int rank, int size)
{
    size_t p = (size_t)size, npieces = 3 * p + 1;
    int err = aip_general_alloc(&x->sets, rank, size);
    x->ask = aip_malloc_held(p * sizeof *x->ask, &x->held_bytes);
    x->asked = aip_malloc_held(p * sizeof *x->asked, &x->held_bytes);
    x->words = aip_malloc_held(4 * p * sizeof *x->words, &x->held_bytes);
    x->wait_requests = aip_malloc_held(p * sizeof *x->wait_requests, &x->held_bytes);
    x->wait_peer = aip_malloc_held(p * sizeof *x->wait_peer, &x->held_bytes);
    x->other = aip_malloc_held(3 * p * sizeof *x->other, &x->held_bytes);
    x->expected = aip_malloc_held(3 * p * sizeof *x->expected, &x->held_bytes);
    x->statuses = aip_malloc_held(3 * p * sizeof *x->statuses, &x->held_bytes);
    x->indices = aip_malloc_held(3 * p * sizeof *x->indices, &x->held_bytes);
    x->pieces = aip_malloc_held(npieces * sizeof *x->pieces, &x->held_bytes);
    x->lengths = aip_malloc_held(npieces * sizeof *x->lengths, &x->held_bytes);
    x->displs = aip_malloc_held(npieces * sizeof *x->displs, &x->held_bytes);
    if (err != MPI_SUCCESS || !x->ask || !x->asked || !x->words || !x->wait_requests ||
        !x->wait_peer || !x->other || !x->expected || !x->statuses ||
        !x->indices || !x->pieces || !x->lengths || !x->displs)
        return MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

static void exchange_free(general_exchange *x)
{
    aip_general_free(&x->sets);
    free(x->ask);
    free(x->asked);
    free(x->words);
    free(x->wait_requests);
    free(x->wait_peer);
    free(x->other);
    free(x->expected);
    free(x->statuses);
    free(x->indices);
    free(x->pieces);
    free(x->lengths);
    free(x->displs);
}

/* Post one data message over its pieces (a derived datatype if more than one)
 * into x->other; a send goes empty once *error is set. */
static int post_data(general_exchange *x, int receive, int npieces, int peer, MPI_Comm comm,
                     int *error)
{
    MPI_Request *request = &x->other[x->nother];
    MPI_Datatype type = MPI_DATATYPE_NULL;
    void *start = x->pieces[0].address;
    int count = (int)x->pieces[0].bytes, err = MPI_SUCCESS; /* <= AIP_GENERAL_MESSAGE_MAX */
    MPI_Aint bytes = 0;

    for (int k = 0; k < npieces; k++)
        bytes += x->pieces[k].bytes;

    if (npieces > 1) {
        for (int k = 0; k < npieces; k++) {
            MPI_Get_address(x->pieces[k].address, &x->displs[k]);
            x->lengths[k] = (int)x->pieces[k].bytes;
        }
        if ((err = MPI_Type_create_hindexed(npieces, x->lengths, x->displs, MPI_BYTE, &type)) ==
                MPI_SUCCESS &&
            (err = MPI_Type_commit(&type)) == MPI_SUCCESS) {
            start = MPI_BOTTOM;
            count = 1;
        } else { /* wind down; a receive takes the message in 0 bytes (MPI truncates it) */
            aip_note_error(error, err);
            count = 0;
        }
    }
    MPI_Datatype used = type != MPI_DATATYPE_NULL && count == 1 ? type : MPI_BYTE;
    int tag = x->tag + 1;
    err = receive ? aip_post_receive(start, count, used, peer, tag, comm, request, error)
                  : aip_post_data(start, count, used, peer, tag, comm, request, error);
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type); /* freed when the message completes */
    if (err == MPI_SUCCESS)
        x->expected[x->nother++] = receive ? bytes : 0;
    return err;
}

static int post_receive(general_exchange *x, int source, MPI_Comm comm, int *error)
{
    int n = aip_general_recv_pieces(&x->sets, source, x->pieces);
    return post_data(x, 1, n, source, comm, error);
}

static int post_send(general_exchange *x, int dest, MPI_Comm comm, int *error)
{
    int n = aip_general_send_pieces(&x->sets, dest, x->asked[dest], x->pieces);
    return post_data(x, 0, n, dest, comm, error);
}

/* A send of the protocol (a request), whose value must arrive whatever failed. */
static int post_request(general_exchange *x, int source, MPI_Comm comm, int *error)
{
    int err = aip_post_send(&x->ask[source], 1, MPI_AINT, source, x->tag, comm,
                            &x->other[x->nother], error);
    if (err == MPI_SUCCESS)
        x->expected[x->nother++] = 0;
    return err;
}

/* MPI failed twice (err): cancel and complete what the phase posted. */
static int give_up(general_exchange *x, int err, int *error)
{
    aip_note_error(error, err);
    aip_give_up(x->nwait, x->wait_requests);
    aip_give_up(x->nother, x->other);
    x->nwait = x->nother = 0;
    return *error;
}

/* The exchange is over (error: its first): the plan's debug line. */
static void report(const aip_plan *plan, const general_exchange *x, int error)
{
    const aip_call *call = &plan->call;
    const AIP_Options *opt = &plan->options;

    if (error == MPI_SUCCESS && plan->debug)
        fprintf(stderr,
                "alltoall_inplace: %s on %d ranks: requests %s, aux %s (%d arenas) of %zu "
                "bytes on rank 0: %lld phases, %lld bytes moved within the buffer\n",
                call->fn, call->size, AIP_Requests_name(opt->requests),
                AIP_Aux_strategy_name(opt->aux_strategy), x->sets.aux.narenas,
                plan->space.aux_bytes, x->sets.phases, x->sets.moved_bytes);
}

/* ---- Steps 2-4 with requests between the pairs still exchanging (a job). ---- */

static int serve_request(aip_exchange_job *job, int k);
static int phase_messages(aip_exchange_job *job, int error);
static int phase_end(aip_exchange_job *job, int error);

/* The job waits for msgs[0 .. count) (aip_exchange_begin_gate), then goes on with next;
 * expected: each message's bytes, or NULL for requests (one MPI_Aint each). */
static void wait_for(aip_plan *plan, MPI_Request *msgs, int count, const MPI_Aint *expected,
                     int (*arrived)(aip_exchange_job *, int), int error,
                     int (*next)(aip_exchange_job *, int))
{
    general_exchange *x = plan->state;
    aip_gate_space gate = { expected, (MPI_Aint)sizeof(MPI_Aint), arrived, x->statuses,
                            x->indices };
    aip_exchange_begin_gate(&plan->job, msgs, count, &gate, &plan->space, error);
    plan->job.then = next;
    plan->job.context = plan;
}

/* Step 2 of a phase, and step 3's receives: returns 0 once no phase is left (the
 * exchange complete), else 1 with the job waiting for this phase's requests. */
static int phase_begin(aip_plan *plan, int error)
{
    general_exchange *x = plan->state;
    aip_general *g = &x->sets;
    MPI_Comm comm = plan->private_comm;
    int p = g->size, err = MPI_SUCCESS;

    if (!aip_general_active(g)) {
        report(plan, x, error);
        return 0;
    }
    x->nwait = x->nother = 0;
    aip_general_requests(g, x->ask);
    for (int i = 0; i < p && err == MPI_SUCCESS; i++) {
        x->asked[i] = 0;
        if (aip_general_owes(g, i)) {
            x->wait_peer[x->nwait] = i;
            err = aip_post_receive(&x->asked[i], 1, MPI_AINT, i, x->tag, comm,
                                   &x->wait_requests[x->nwait], &error);
            x->nwait += err == MPI_SUCCESS;
        }
    }
    for (int j = 0; j < p && err == MPI_SUCCESS; j++) {
        if (!aip_general_expects(g, j))
            continue;
        if (x->ask[j] > 0)
            err = post_receive(x, j, comm, &error);
        if (err == MPI_SUCCESS)
            err = post_request(x, j, comm, &error);
    }
    if (err != MPI_SUCCESS) /* complete at once, with the error */
        wait_for(plan, NULL, 0, NULL, NULL, give_up(x, err, &error), NULL);
    else
        wait_for(plan, x->wait_requests, x->nwait, NULL, serve_request, error,
                 phase_messages);
    return 1;
}

/* A dest's request (wait_requests[k]) arrived: its data goes at once. */
static int serve_request(aip_exchange_job *job, int k)
{
    aip_plan *plan = job->context;
    general_exchange *x = plan->state;
    int dest = x->wait_peer[k], err = MPI_SUCCESS;

    if (x->asked[dest] > 0 && (err = post_send(x, dest, plan->private_comm,
                                               &job->window.error)) != MPI_SUCCESS) {
        aip_give_up(x->nother, x->other); /* the job gives the requests up */
        x->nother = 0;
    }
    return err;
}

/* Every request served: wait for the phase's messages. */
static int phase_messages(aip_exchange_job *job, int error)
{
    aip_plan *plan = job->context;
    general_exchange *x = plan->state;
    wait_for(plan, x->other, x->nother, x->expected, NULL, error, phase_end);
    return 1;
}

/* Step 4, then the next phase. */
static int phase_end(aip_exchange_job *job, int error)
{
    aip_plan *plan = job->context;
    general_exchange *x = plan->state;
    aip_general_update(&x->sets, x->asked);
    return phase_begin(plan, error);
}

/* ---- Steps 2-4 with one MPI_Alltoall of requests per phase, which also tells
 * every process whether any is still exchanging (to the end, in the start). ---- */

/* Step 3's sends of this phase are posted: wait for every message, then step 4. */
static int complete_phase(general_exchange *x, int *error)
{
    int err = aip_complete(x->nother, x->other, x->statuses, 0, error);
    if (err != MPI_SUCCESS)
        return err;
    for (int m = 0; m < x->nother; m++)
        if (x->expected[m] > 0)
            aip_check_arrival(&x->statuses[m], (MPI_Count)x->expected[m], error);
    aip_general_update(&x->sets, x->asked);
    x->nwait = x->nother = 0;
    return MPI_SUCCESS;
}

static int phases_alltoall(general_exchange *x, MPI_Comm comm)
{
    aip_general *g = &x->sets;
    int p = g->size, err = MPI_SUCCESS, error = MPI_SUCCESS;
    MPI_Aint *out = x->words, *in = x->words + 2 * (size_t)p;

    x->nwait = x->nother = 0;
    while (err == MPI_SUCCESS) {
        int anyone = 0, active = aip_general_active(g);
        aip_general_requests(g, x->ask);
        for (int j = 0; j < p; j++) {
            out[2 * j] = x->ask[j];
            out[2 * j + 1] = active;
        }
        if ((err = MPI_Alltoall(out, 2, MPI_AINT, in, 2, MPI_AINT, comm)) != MPI_SUCCESS)
            break;
        for (int i = 0; i < p; i++) {
            x->asked[i] = in[2 * i];
            anyone |= in[2 * i + 1] != 0;
        }
        if (!anyone)
            break;
        for (int j = 0; j < p && err == MPI_SUCCESS; j++)
            if (x->ask[j] > 0)
                err = post_receive(x, j, comm, &error);
        for (int i = 0; i < p && err == MPI_SUCCESS; i++)
            if (x->asked[i] > 0)
                err = post_send(x, i, comm, &error);
        if (err == MPI_SUCCESS)
            err = complete_phase(x, &error);
    }
    return err == MPI_SUCCESS ? error : give_up(x, err, &error);
}

size_t aip_general_aux_bytes(const aip_call *call, size_t budget)
{
    size_t incoming = 0;
    for (int j = 0; j < call->size; j++)
        incoming += (size_t)call->recv_blocks[j].bytes;
    return incoming < budget ? incoming : budget;
}

int aip_general_allocate(const struct aip_algorithm_row *row, const aip_call *call,
                         void **state)
{
    general_exchange *x = aip_calloc(1, sizeof *x);
    (void)row;
    *state = x;
    return x ? exchange_alloc(x, call->rank, call->size) : MPI_ERR_NO_MEM;
}

void aip_general_release(void *state)
{
    general_exchange *x = state;
    if (!x)
        return;
    exchange_free(x);
    free(x);
}

size_t aip_general_bytes(const aip_call *call, const void *state)
{
    const general_exchange *x = state;
    (void)call;
    return sizeof *x + x->held_bytes + x->sets.held_bytes + x->sets.aux.held_bytes;
}

int aip_start_general(aip_plan *plan, char *buf, const char *sendbuf)
{
    const aip_call *call = &plan->call;
    const AIP_Options *opt = &plan->options;
    general_exchange *x = plan->state;
    int p = call->size;

    if (sendbuf) /* out of place: the exchange works in place on a copy */
        for (int j = 0; j < p; j++)
            memcpy(buf + call->blocks[j].offset, sendbuf + call->blocks[j].offset,
                   (size_t)call->blocks[j].bytes);
    x->tag = plan->space.tag;
    int nbuffers = opt->aux_buffers > 0 ? opt->aux_buffers : p / 8 > 1 ? p / 8 : 1;
    aip_general_start(&x->sets, buf, call->blocks, call->recv_blocks, plan->space.aux,
                      (MPI_Aint)plan->space.aux_bytes, opt->aux_strategy, nbuffers);
    if (opt->requests == AIP_REQUESTS_ALLTOALL) {
        int error = phases_alltoall(x, plan->private_comm);
        report(plan, x, error);
        wait_for(plan, NULL, 0, NULL, NULL, error, NULL); /* complete, with its error */
    } else if (!phase_begin(plan, MPI_SUCCESS))
        wait_for(plan, NULL, 0, NULL, NULL, MPI_SUCCESS, NULL); /* nothing to exchange */
    return MPI_SUCCESS;
}
