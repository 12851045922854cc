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
    MPI_Status *statuses;      /* of other */
    MPI_Aint *expected;        /* per entry of other: a data receive's bytes, else 0 */
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
    x->statuses = aip_malloc_held(3 * p * sizeof *x->statuses, &x->held_bytes);
    x->expected = aip_malloc_held(3 * p * sizeof *x->expected, &x->held_bytes);
    x->pieces = aip_malloc_held(npieces * sizeof *x->pieces, &x->held_bytes);
    x->lengths = aip_malloc_held(npieces * sizeof *x->lengths, &x->held_bytes);
    x->displs = aip_malloc_held(npieces * sizeof *x->displs, &x->held_bytes);
    if (err != MPI_SUCCESS || !x->ask || !x->asked || !x->words || !x->wait_requests ||
        !x->wait_peer || !x->other || !x->statuses || !x->expected || !x->pieces ||
        !x->lengths || !x->displs)
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
    free(x->statuses);
    free(x->expected);
    free(x->pieces);
    free(x->lengths);
    free(x->displs);
}

/* The requests a phase has posted, for completing or cancelling them. */
typedef struct phase {
    int nwait, nother; /* x->wait_requests, x->other */
    int error;         /* the call's first error (exchange.h) */
} phase;

/* Post one data message over its pieces (a derived datatype if more than one);
 * a send goes empty once an error is noted. */
static int post_data(general_exchange *x, phase *ph, int receive, int npieces, int peer,
                     MPI_Comm comm)
{
    MPI_Request *request = &x->other[ph->nother];
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
            aip_note_error(&ph->error, err);
            count = 0;
        }
    }
    MPI_Datatype used = type != MPI_DATATYPE_NULL && count == 1 ? type : MPI_BYTE;
    int tag = x->tag + 1;
    err = receive ? aip_post_receive(start, count, used, peer, tag, comm, request, &ph->error)
                  : aip_post_data(start, count, used, peer, tag, comm, request, &ph->error);
    if (type != MPI_DATATYPE_NULL)
        MPI_Type_free(&type); /* freed when the message completes */
    if (err == MPI_SUCCESS)
        x->expected[ph->nother++] = receive ? bytes : 0;
    return err;
}

static int post_receive(general_exchange *x, phase *ph, int source, MPI_Comm comm)
{
    int n = aip_general_recv_pieces(&x->sets, source, x->pieces);
    return post_data(x, ph, 1, n, source, comm);
}

static int post_send(general_exchange *x, phase *ph, int dest, MPI_Comm comm)
{
    int n = aip_general_send_pieces(&x->sets, dest, x->asked[dest], x->pieces);
    return post_data(x, ph, 0, n, dest, comm);
}

/* A send of the protocol (a request), whose value must arrive whatever failed. */
static int post_request(general_exchange *x, phase *ph, int source, MPI_Comm comm)
{
    int err = aip_post_send(&x->ask[source], 1, MPI_AINT, source, x->tag, comm,
                            &x->other[ph->nother], &ph->error);
    if (err == MPI_SUCCESS)
        x->expected[ph->nother++] = 0;
    return err;
}

/* Step 3's sends of this phase are posted: wait for every message, then step 4. */
static int complete_phase(general_exchange *x, phase *ph)
{
    int err = aip_complete(ph->nother, x->other, x->statuses, 0, &ph->error);
    if (err != MPI_SUCCESS)
        return err;
    for (int m = 0; m < ph->nother; m++)
        if (x->expected[m] > 0)
            aip_check_arrival(&x->statuses[m], x->expected[m], &ph->error);
    aip_general_update(&x->sets, x->asked);
    ph->nwait = ph->nother = 0;
    return MPI_SUCCESS;
}

/* MPI failed twice (err): cancel and complete what the phase posted. */
static int give_up(general_exchange *x, phase *ph, int err)
{
    aip_note_error(&ph->error, err);
    aip_give_up(ph->nwait, x->wait_requests);
    aip_give_up(ph->nother, x->other);
    return ph->error;
}

/* The next request from a dest: which one (an index of wait_requests). */
static int next_request(general_exchange *x, phase *ph, int *k)
{
    *k = MPI_UNDEFINED; /* what an error that concerns no request leaves */
    int err = MPI_Waitany(ph->nwait, x->wait_requests, k, MPI_STATUS_IGNORE);
    if (err == MPI_SUCCESS)
        return *k == MPI_UNDEFINED ? MPI_ERR_INTERN : MPI_SUCCESS;
    aip_note_error(&ph->error, err);
    if (*k != MPI_UNDEFINED)
        return err; /* that request failed: its value is lost */
    *k = MPI_UNDEFINED;
    err = MPI_Waitany(ph->nwait, x->wait_requests, k, MPI_STATUS_IGNORE);
    return err == MPI_SUCCESS && *k == MPI_UNDEFINED ? MPI_ERR_INTERN : err;
}

/* Steps 2-4 with requests between the pairs still exchanging. */
static int phases_p2p(general_exchange *x, MPI_Comm comm, int error)
{
    aip_general *g = &x->sets;
    int p = g->size, err = MPI_SUCCESS;
    phase ph = { 0, 0, error };

    while (err == MPI_SUCCESS && aip_general_active(g)) {
        aip_general_requests(g, x->ask);
        for (int i = 0; i < p && err == MPI_SUCCESS; i++) {
            x->asked[i] = 0;
            if (aip_general_owes(g, i)) {
                x->wait_peer[ph.nwait] = i;
                err = aip_post_receive(&x->asked[i], 1, MPI_AINT, i, x->tag, comm,
                                       &x->wait_requests[ph.nwait], &ph.error);
                ph.nwait += err == MPI_SUCCESS;
            }
        }
        for (int j = 0; j < p && err == MPI_SUCCESS; j++) {
            if (!aip_general_expects(g, j))
                continue;
            if (x->ask[j] > 0)
                err = post_receive(x, &ph, j, comm);
            if (err == MPI_SUCCESS)
                err = post_request(x, &ph, j, comm);
        }
        for (int left = ph.nwait; left > 0 && err == MPI_SUCCESS; left--) {
            int k;
            if ((err = next_request(x, &ph, &k)) == MPI_SUCCESS && x->asked[x->wait_peer[k]] > 0)
                err = post_send(x, &ph, x->wait_peer[k], comm);
        }
        if (err == MPI_SUCCESS)
            err = complete_phase(x, &ph);
    }
    return err == MPI_SUCCESS ? ph.error : give_up(x, &ph, err);
}

/* Steps 2-4 with one MPI_Alltoall of requests per phase, which also tells
 * every process whether any is still exchanging. */
static int phases_alltoall(general_exchange *x, MPI_Comm comm, int error)
{
    aip_general *g = &x->sets;
    int p = g->size, err = MPI_SUCCESS;
    phase ph = { 0, 0, error };
    MPI_Aint *out = x->words, *in = x->words + 2 * (size_t)p;

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
                err = post_receive(x, &ph, j, comm);
        for (int i = 0; i < p && err == MPI_SUCCESS; i++)
            if (x->asked[i] > 0)
                err = post_send(x, &ph, i, comm);
        if (err == MPI_SUCCESS)
            err = complete_phase(x, &ph);
    }
    return err == MPI_SUCCESS ? ph.error : give_up(x, &ph, err);
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

int aip_run_general(const aip_plan *plan, char *buf, const char *sendbuf)
{
    const aip_call *call = &plan->call;
    const AIP_Options *opt = &plan->options;
    general_exchange *x = plan->state;
    int p = call->size, err;

    if (sendbuf) /* out of place: the exchange works in place on a copy */
        for (int j = 0; j < p; j++)
            memcpy(buf + call->blocks[j].offset, sendbuf + call->blocks[j].offset,
                   (size_t)call->blocks[j].bytes);
    x->tag = plan->space.tag;
    int nbuffers = opt->aux_buffers > 0 ? opt->aux_buffers : p / 8 > 1 ? p / 8 : 1;
    aip_general_start(&x->sets, buf, call->blocks, call->recv_blocks, plan->space.aux,
                      (MPI_Aint)plan->space.aux_bytes, opt->aux_strategy, nbuffers);
    err = opt->requests == AIP_REQUESTS_ALLTOALL
              ? phases_alltoall(x, plan->private_comm, MPI_SUCCESS)
              : phases_p2p(x, plan->private_comm, MPI_SUCCESS);
    if (err == MPI_SUCCESS && plan->debug)
        fprintf(stderr,
                "alltoall_inplace: %s on %d ranks: requests %s, aux %s (%d arenas) of %zu "
                "bytes on rank 0: %lld phases, %lld bytes moved within the buffer\n",
                call->fn, p, AIP_Requests_name(opt->requests),
                AIP_Aux_strategy_name(opt->aux_strategy), x->sets.aux.narenas,
                plan->space.aux_bytes, x->sets.phases, x->sets.moved_bytes);
    return err;
}
