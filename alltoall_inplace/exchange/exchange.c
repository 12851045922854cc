/*
 * exchange.c - the executor: runs a schedule of pairwise exchanges over the
 * user's buffer with bounded extra memory.
 *
 * Each pairwise exchange replaces this rank's block for the partner by the
 * partner's block for this rank.  MPI_Sendrecv_replace would do it, but
 * MPICH and Open MPI both copy the whole message into a temporary buffer
 * inside it, so memory would grow with the block.  Instead every block is
 * cut into chunks of at most chunk_bytes (the same cut on both partners) and
 * each chunk is copied out into the auxiliary buffer, sent from there with
 * MPI_Isend while MPI_Irecv receives the partner's chunk straight into the
 * place it vacated.
 *
 * Sect. 3.4 of Hofmann & Ruenger 2013 ("usage of additional memory"): the
 * auxiliary buffer is a ring, and as long as it has room, further chunks
 * (of the same or of later exchanges) are started without waiting; when it
 * is full, the oldest transfer is completed first, which frees its space.
 * With a budget of one chunk this is a sequence of blocking exchanges; with
 * a budget as large as the data, all exchanges are in flight at once.
 *
 * The same job runs where a peer's data is a list of equal blocks spread
 * over the buffer (aip_exchange_begin_segments; sa and rd, node_exchange.c):
 * blocks smaller than a chunk travel several to a message, gathered into aux
 * on the way out and scattered into their places by an indexed datatype on
 * the way in, so that aggregation costs no extra pass over the data.  A job
 * may chain such exchanges (its `then`: sa's second step begins where its
 * first completes), so that a nonblocking execution of several steps
 * advances through all of them in the background.
 *
 * A routed job (aip_exchange_begin_routed) sends each step's list of blocks
 * to one rank while receiving the list of another into the same places: the
 * stages of the hypercube all-to-all (alltoall_hypercube.c), one job each,
 * chained by `then`, since a stage sends what the one before received.
 *
 * An MPI error on one rank does not strand its partners: the rank winds
 * down, posting the rest of its chunks empty (wind_down.c), and returns
 * the first error once everything it posted has completed.
 *
 * Why it cannot deadlock: every rank posts its chunks in schedule order, and
 * partners agree on the step of each exchange and on its chunks (schedule.h).
 * A rank only ever waits for a transfer it has already posted, i.e. for its
 * partner to reach that step.  Take a waiting rank whose awaited step is the
 * earliest of all waiting ranks: its partner has either passed that step
 * (its matching operations are posted, so the transfer completes) or is
 * still before it and not waiting, so it advances.  Messages of one pair are
 * matched in order (MPI's non-overtaking rule), so one tag suffices.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "call/plan.h"
#include "exchange/exchange.h"
#include "schedule/schedule.h"

#if AIP_SAMPLED_SIMULATION /* tunables.h: the harness's hooks */
void sim_sample_begin(int steps);
int sim_sample_step(int step);
void sim_sample_end(void);
#else
#define sim_sample_begin(steps) ((void)0)
#define sim_sample_step(step) 1
#define sim_sample_end() ((void)0)
#endif

typedef struct transfer {
    MPI_Request requests[2]; /* receive into place, send from the copy */
    MPI_Status statuses[2];  /* theirs once complete (aip_test) */
    size_t aux_offset;       /* where the copy lives in the aux buffer */
    size_t bytes;            /* of each message: the partner's has as many */
} transfer;

typedef aip_window window; /* plan.h: it outlives a call in a job */

static transfer *ring_at(const window *w, int i)
{
    return (transfer *)w->ring + i % w->capacity;
}

/* A window over the workspace, starting with the call's first error so far. */
static window window_of(const aip_workspace *space, int error)
{
    return (window){ .aux = space->aux, .aux_bytes = space->aux_bytes, .ring = space->ring,
                     .capacity = space->capacity, .tag = space->tag, .error = error };
}

/*
 * Retire the oldest transfer: complete it if it is done (may_wait 0: a
 * nonblocking execution's test), or wait until it is, politely
 * (aip_complete): test, and give the core away between tests.  A pairwise
 * exchange needs both partners running; where ranks outnumber cores,
 * MPICH's busy waiting would burn the time slice the partner needs (4 ranks
 * on 2 cores: 300 ms instead of 84 ms per 64 MiB).  On a core of its own,
 * sched_yield returns at once.  Built with AIP_BLOCKING_WAIT (tunables.h)
 * it waits in MPI_Waitall instead.  The entry leaves the ring only once
 * both requests are complete: after an error, MPI may still be writing into
 * the place and reading the copy.  *retired says whether it left; returns
 * MPI's error once a retry failed too (the caller gives up).
 */
static int retire_oldest(window *w, int may_wait, int *retired)
{
    transfer *t = ring_at(w, w->first);
    /* A receive that an earlier test completed is MPI_REQUEST_NULL, its status
     * kept in t->statuses[0]: MPI_Waitall would write an empty one over it. */
    int skip = t->requests[0] == MPI_REQUEST_NULL;
    int err = may_wait ? aip_complete(2 - skip, t->requests + skip, t->statuses + skip,
                                      !AIP_BLOCKING_WAIT, &w->error)
                       : aip_test(2, t->requests, t->statuses, retired, &w->error);

    if (err != MPI_SUCCESS)
        return err;
    if (may_wait)
        *retired = 1;
    if (!*retired)
        return MPI_SUCCESS;
    aip_check_arrival(&t->statuses[0], (MPI_Count)t->bytes, &w->error);
    w->first = (w->first + 1) % w->capacity;
    if (--w->count == 0)
        w->head = 0;
    return MPI_SUCCESS;
}

static int complete_oldest(window *w)
{
    int retired;
    return retire_oldest(w, 1, &retired);
}

/* MPI failed twice: cancel and complete what is in flight. */
static void give_up(window *w)
{
    for (; w->count > 0; w->count--, w->first = (w->first + 1) % w->capacity)
        aip_give_up(2, ring_at(w, w->first)->requests);
}

/* Where in aux `bytes` fit next to the copies in flight; -1 if nowhere now. */
static ptrdiff_t find_space(const window *w, size_t bytes)
{
    if (w->count == w->capacity)
        return -1;
    if (w->count == 0)
        return bytes <= w->aux_bytes ? 0 : -1;
    size_t tail = ring_at(w, w->first)->aux_offset; /* start of the oldest copy */
    if (w->head > tail) {                       /* in use: [tail, head) */
        if (w->head + bytes <= w->aux_bytes)
            return (ptrdiff_t)w->head;
        return bytes <= tail ? 0 : -1; /* wrap around */
    }
    /* wrapped, in use: [tail, end of ring) and [0, head) */
    return w->head + bytes <= tail ? (ptrdiff_t)w->head : -1;
}

/* Room in aux for `bytes`, and a ring entry: the oldest transfers are
 * retired until there is (may_wait), or while they are done (else *t is
 * NULL if there is no room yet).  The copy goes to w->aux + (*t)->aux_offset,
 * then post(). */
static int reserve(window *w, size_t bytes, int may_wait, transfer **t)
{
    ptrdiff_t at;
    int err, retired;

    *t = NULL;
    while ((at = find_space(w, bytes)) < 0) {
        if (w->count == 0) /* a chunk larger than the buffer: the caller's sizing is wrong */
            return MPI_ERR_INTERN;
        if ((err = retire_oldest(w, may_wait, &retired)) != MPI_SUCCESS || !retired)
            return err;
    }
    *t = ring_at(w, w->first + w->count);
    (*t)->aux_offset = (size_t)at;
    return MPI_SUCCESS;
}

/* Where a transfer's chunks go and come from: one partner in a pairwise
 * exchange, two ranks in a hypercube stage of other than a power of two. */
typedef struct route {
    int to, from;
} route;

/* Start the reserved transfer: the chunk from `from` into `place` as (count,
 * type), ours of `bytes` from its copy in aux to `to` (empty once an error is
 * noted). */
static int post(window *w, transfer *t, size_t bytes, void *place, int count, MPI_Datatype type,
                route peers, MPI_Comm comm)
{
    int err;

    if ((err = aip_post_receive(place, count, type, peers.from, w->tag, comm, &t->requests[0],
                                &w->error)) != MPI_SUCCESS)
        return err;
    if ((err = aip_post_data(w->aux + t->aux_offset, (int)bytes, MPI_BYTE, peers.to, w->tag,
                             comm, &t->requests[1], &w->error)) != MPI_SUCCESS) {
        aip_give_up(1, &t->requests[0]);
        return err;
    }
    t->bytes = bytes;
    w->count++;
    w->head = t->aux_offset + bytes;
    return MPI_SUCCESS;
}

/* Several whole blocks as one chunk, in the reserved transfer t: ours
 * gathered from src into aux, the partner's scattered by MPI into the same
 * places of buf. */
static int post_gathered(window *w, transfer *t, char *buf, const char *src, const int *positions,
                         int count, size_t block_bytes, MPI_Aint *displacements, route peers,
                         MPI_Comm comm)
{
    size_t bytes = (size_t)count * block_bytes;
    MPI_Datatype scattered = MPI_DATATYPE_NULL;
    int consecutive = 1, err;
    char *copy = w->aux + t->aux_offset;
    for (int k = 0; k < count; k++) {
        displacements[k] = (MPI_Aint)positions[k] * (MPI_Aint)block_bytes;
        memcpy(copy + (size_t)k * block_bytes, src + displacements[k], block_bytes);
        consecutive &= positions[k] == positions[0] + k;
    }
    if (consecutive)
        return post(w, t, bytes, buf + displacements[0], (int)bytes, MPI_BYTE, peers, comm);
    err = MPI_Type_create_hindexed_block(count, (int)block_bytes, displacements, MPI_BYTE,
                                         &scattered);
    if (err == MPI_SUCCESS && (err = MPI_Type_commit(&scattered)) == MPI_SUCCESS)
        err = post(w, t, bytes, buf, 1, scattered, peers, comm);
    else { /* wind down: our chunk goes empty, the partner's lands in its copy's room */
        aip_note_error(&w->error, err);
        err = post(w, t, bytes, copy, (int)bytes, MPI_BYTE, peers, comm);
    }
    if (scattered != MPI_DATATYPE_NULL)
        MPI_Type_free(&scattered); /* the posted receive keeps what it needs */
    return err;
}

int aip_workspace_alloc(aip_workspace *space, size_t aux_bytes, int ring,
                        size_t max_chunk_bytes, int comm_size)
{
    /* Entries to fill aux with full chunks, plus one short last chunk per peer.  If the
     * agreed chunks turn out smaller, the ring fills by count first: correct, less overlap. */
    size_t full_chunks = max_chunk_bytes ? aux_bytes / max_chunk_bytes : 0;
    if (full_chunks > AIP_MAX_CHUNKS_IN_FLIGHT)
        full_chunks = AIP_MAX_CHUNKS_IN_FLIGHT;
    space->capacity = ring ? (int)full_chunks + comm_size + 1 : 0;
    space->aux_bytes = aux_bytes;
    space->ring_bytes = sizeof(transfer) * (size_t)space->capacity;
    space->aux = aux_bytes ? aip_malloc(aux_bytes) : NULL;
    space->ring = ring ? aip_malloc(space->ring_bytes) : NULL;
    if ((aux_bytes && !space->aux) || (ring && !space->ring)) {
        aip_workspace_free(space);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void aip_workspace_free(aip_workspace *space)
{
    free(space->aux);
    free(space->ring);
    space->aux = NULL;
    space->ring = NULL;
}

/* Complete what is still in flight (err: the posting gave up); returns the first error. */
static int finish(window *w, int err)
{
    while (err == MPI_SUCCESS && w->count > 0)
        err = complete_oldest(w);
    if (err != MPI_SUCCESS) {
        aip_note_error(&w->error, err);
        give_up(w);
    }
    return w->error;
}

/* Whether the job's peer has data to exchange. */
static int has_data(const aip_exchange_job *job, int peer)
{
    if (job->segments.positions)
        return job->segments.per_peer > 0 && job->segments.block_bytes > 0;
    return job->blocks[peer].bytes > 0;
}

/* Move the job to the next step with data to post, past idle steps, empty
 * blocks and the steps a sampled simulation leaves out. */
static void next_step(aip_exchange_job *job)
{
    job->listed = 0;
    job->posted = 0;
    while (++job->step < job->nsteps) {
        int peer = job->peers[job->step];
        if (sim_sample_step(job->step) && peer != AIP_IDLE && has_data(job, peer))
            return;
    }
}

/* A job begun afresh, but for its link in the list of jobs in flight and its being
 * advanced: a step's then begins the next step on a job that is both. */
static void begin(aip_exchange_job *job, aip_exchange_job fresh)
{
    fresh.next_in_flight = job->next_in_flight;
    fresh.busy = job->busy;
    *job = fresh;
    sim_sample_begin(job->nsteps);
    next_step(job);
}

void aip_exchange_begin(aip_exchange_job *job, char *buf, const aip_block *blocks,
                        const int *peers, int nsteps, const aip_workspace *space,
                        size_t chunk_bytes, MPI_Comm comm, int error)
{
    begin(job, (aip_exchange_job){ .window = window_of(space, error), .buf = buf, .src = buf,
                                   .blocks = blocks, .peers = peers, .nsteps = nsteps,
                                   .chunk_bytes = chunk_bytes, .comm = comm, .step = -1 });
}

void aip_exchange_begin_segments(aip_exchange_job *job, char *buf, const char *src,
                                 const aip_segments *segments, const int *peers, int nsteps,
                                 const aip_workspace *space, size_t chunk_bytes, MPI_Comm comm,
                                 int error)
{
    begin(job, (aip_exchange_job){ .window = window_of(space, error), .buf = buf, .src = src,
                                   .segments = *segments, .peers = peers, .nsteps = nsteps,
                                   .chunk_bytes = chunk_bytes, .comm = comm, .step = -1 });
}

void aip_exchange_begin_routed(aip_exchange_job *job, char *buf, const aip_segments *segments,
                               const int *to, const int *from, int nsteps,
                               const aip_workspace *space, size_t chunk_bytes, MPI_Comm comm,
                               int error)
{
    aip_exchange_begin_segments(job, buf, buf, segments, to, nsteps, space, chunk_bytes, comm,
                                error);
    job->sources = from;
}

void aip_exchange_begin_gate(aip_exchange_job *job, MPI_Request *requests, int count,
                             const aip_gate_space *gate, const aip_workspace *space, int error)
{
    begin(job, (aip_exchange_job){ .window = window_of(space, error), .gate = requests,
                                   .gate_count = count, .gate_left = count, .gate_space = *gate,
                                   .step = -1 });
}

/* The jobs of nonblocking executions that are not complete yet. */
static aip_exchange_job *in_flight;

void aip_exchange_in_flight(aip_exchange_job *job)
{
    job->next_in_flight = in_flight;
    in_flight = job;
}

static void leave_in_flight(aip_exchange_job *job)
{
    for (aip_exchange_job **at = &in_flight; *at; at = &(*at)->next_in_flight)
        if (*at == job) {
            *at = job->next_in_flight;
            return;
        }
}

void aip_exchange_advance_in_flight(void)
{
    aip_exchange_job *job = in_flight, *next;
    int complete;

    for (; job; job = next) {
        next = job->next_in_flight; /* before the job may leave the list */
        if (!job->busy)
            aip_exchange_advance(job, 0, &complete);
    }
}

/* Post the next chunk of the current step's peer's block: into t (NULL: no room yet). */
static int post_block_chunk(aip_exchange_job *job, int may_wait, transfer **t)
{
    window *w = &job->window;
    int peer = job->peers[job->step];
    size_t left = (size_t)job->blocks[peer].bytes - job->posted;
    size_t len = left < job->chunk_bytes ? left : job->chunk_bytes;
    int err = reserve(w, len, may_wait, t);

    if (err != MPI_SUCCESS || !*t)
        return err;
    char *place = job->buf + job->blocks[peer].offset + job->posted;
    memcpy(w->aux + (*t)->aux_offset, place, len);
    if ((err = post(w, *t, len, place, (int)len, MPI_BYTE, (route){ peer, peer }, job->comm)) ==
            MPI_SUCCESS &&
        (job->posted += len) == (size_t)job->blocks[peer].bytes)
        next_step(job);
    return err;
}

/* Post the next chunk of the current step's peer's list: several whole blocks where they are
 * smaller than a chunk, else a chunk of one block.  Into t (NULL: no room yet). */
static int post_list_chunk(aip_exchange_job *job, int may_wait, transfer **t)
{
    window *w = &job->window;
    const aip_segments *list = &job->segments;
    int peer = job->peers[job->step], err;
    const int *positions =
        list->positions + (size_t)(list->by_step ? job->step : peer) * (size_t)list->per_peer;
    size_t block = list->block_bytes;
    route peers = { peer, job->sources ? job->sources[job->step] : peer };

    if (block < job->chunk_bytes) {
        int per_chunk = (int)(job->chunk_bytes / block), left = list->per_peer - job->listed;
        int count = left < per_chunk ? left : per_chunk;
        if ((err = reserve(w, (size_t)count * block, may_wait, t)) != MPI_SUCCESS || !*t)
            return err;
        err = post_gathered(w, *t, job->buf, job->src, positions + job->listed, count, block,
                            list->displacements, peers, job->comm);
        job->listed += count;
    } else {
        size_t at = (size_t)positions[job->listed] * block + job->posted;
        size_t len = block - job->posted < job->chunk_bytes ? block - job->posted
                                                            : job->chunk_bytes;
        if ((err = reserve(w, len, may_wait, t)) != MPI_SUCCESS || !*t)
            return err;
        memcpy(w->aux + (*t)->aux_offset, job->src + at, len);
        err = post(w, *t, len, job->buf + at, (int)len, MPI_BYTE, peers, job->comm);
        if ((job->posted += len) == block) {
            job->listed++;
            job->posted = 0;
        }
    }
    if (err == MPI_SUCCESS && job->listed == list->per_peer)
        next_step(job);
    return err;
}

/* Complete what has arrived of the gate's messages, or (may_wait) all of them, politely
 * as aip_complete; *open once all have.  MPI's error once a retry failed too, or the
 * error of an `arrived` (the gate's messages are then given up). */
static int pass_gate(aip_exchange_job *job, int may_wait, int *open)
{
    const aip_gate_space *gate = &job->gate_space;
    window *w = &job->window;

    for (;;) {
        int done, err;
        int (*some)(int, MPI_Request *, int *, int *, MPI_Status *) =
            may_wait && AIP_BLOCKING_WAIT ? MPI_Waitsome : MPI_Testsome;
        if ((err = some(job->gate_count, job->gate, &done, gate->indices, gate->statuses)) !=
            MPI_SUCCESS) {
            aip_note_error(&w->error, err); /* what it completed is MPI_REQUEST_NULL now */
            err = some(job->gate_count, job->gate, &done, gate->indices, gate->statuses);
        }
        for (int k = 0; err == MPI_SUCCESS && done != MPI_UNDEFINED && k < done; k++) {
            int i = gate->indices[k];
            MPI_Aint bytes = gate->expected ? gate->expected[i] : gate->each;
            if (bytes > 0)
                aip_check_arrival(&gate->statuses[k], (MPI_Count)bytes, &w->error);
            if (gate->arrived)
                err = gate->arrived(job, i);
        }
        if (err != MPI_SUCCESS) {
            aip_give_up(job->gate_count, job->gate);
            job->gate_left = 0;
            return err;
        }
        job->gate_left = done == MPI_UNDEFINED ? 0 : job->gate_left - done;
        *open = job->gate_left == 0;
        if (*open || !may_wait)
            return MPI_SUCCESS;
        aip_exchange_advance_in_flight();
        sched_yield();
    }
}

/* Post and retire what can be without waiting (or, may_wait, everything). */
static int advance(aip_exchange_job *job, int may_wait, int *complete)
{
    window *w = &job->window;
    int err = MPI_SUCCESS, retired, open = 1;
    transfer *t = NULL;

    *complete = 0;
    if (job->gate_left > 0 && (err = pass_gate(job, may_wait, &open)) == MPI_SUCCESS && !open)
        return MPI_SUCCESS; /* still under way */
    while (err == MPI_SUCCESS && job->step < job->nsteps) {
        err = job->segments.positions ? post_list_chunk(job, may_wait, &t)
                                      : post_block_chunk(job, may_wait, &t);
        if (err != MPI_SUCCESS || !t)
            break; /* MPI failed twice, or no room until a transfer completes */
    }
    if (err == MPI_SUCCESS && !may_wait) { /* retire what is done, in order */
        while (w->count > 0 && (err = retire_oldest(w, 0, &retired)) == MPI_SUCCESS && retired)
            ;
        if (err == MPI_SUCCESS && (w->count > 0 || job->step < job->nsteps))
            return MPI_SUCCESS; /* still under way */
    }
    err = finish(w, err);
    sim_sample_end();
    *complete = 1;
    return err;
}

int aip_exchange_advance(aip_exchange_job *job, int may_wait, int *complete)
{
    if (job->complete) {
        *complete = 1;
        return job->result;
    }
    job->busy = 1;
    int err = advance(job, may_wait, complete);
    while (*complete && job->then && job->then(job, err)) /* the next step, on this job */
        err = advance(job, may_wait, complete);
    job->busy = 0;
    if (*complete) {
        job->complete = 1;
        job->result = err;
        leave_in_flight(job);
    }
    return err;
}

int aip_exchange(char *buf, const aip_block *blocks, const int *peers, int nsteps,
                 const aip_workspace *space, size_t chunk_bytes, MPI_Comm comm, int error)
{
    aip_exchange_job job = { .next_in_flight = NULL }; /* begin keeps the link: none */
    int complete;

    aip_exchange_begin(&job, buf, blocks, peers, nsteps, space, chunk_bytes, comm, error);
    return aip_exchange_advance(&job, 1, &complete);
}

/* ---- The schedule rows and the index space of the others. ---- */

int aip_steps_allocate(const aip_schedule *schedule, const aip_call *call, aip_steps **steps)
{
    int nsteps = schedule->nsteps(call->size);
    if (!(*steps = aip_malloc(aip_steps_bytes(call, NULL))))
        return MPI_ERR_NO_MEM;
    (*steps)->nsteps = nsteps;
    schedule->fill(call->rank, call->size, (*steps)->peers);
    return MPI_SUCCESS;
}

/* Room for the longest schedule, MPICH's 2p - 1 steps. */
size_t aip_steps_bytes(const aip_call *call, const void *steps)
{
    (void)steps;
    return sizeof(aip_steps) + 2 * (size_t)call->size * sizeof(int);
}

size_t aip_exchange_aux_bytes(const aip_call *call, size_t budget)
{
    size_t outgoing = 0;
    for (int j = 0; j < call->size; j++)
        if (j != call->rank)
            outgoing += (size_t)call->blocks[j].bytes;
    return outgoing < budget ? outgoing : budget;
}

int aip_start_schedule(aip_plan *plan, char *buf, const char *sendbuf)
{
    const aip_call *call = &plan->call;
    const aip_steps *steps = plan->state;

    if (sendbuf) /* out of place: the exchange works in place on a copy */
        for (int j = 0; j < call->size; j++)
            memcpy(buf + call->blocks[j].offset, sendbuf + call->blocks[j].offset,
                   (size_t)call->blocks[j].bytes);
    aip_exchange_begin(&plan->job, buf, call->blocks, steps->peers, steps->nsteps, &plan->space,
                       plan->chunk_bytes, plan->private_comm, MPI_SUCCESS);
    return MPI_SUCCESS;
}

/* One allocation: the struct, then the arrays in decreasing alignment. */
int aip_index_space_allocate(const struct aip_algorithm_row *row, const aip_call *call,
                             void **space)
{
    size_t p = (size_t)call->size;
    aip_index_space *s = aip_malloc(aip_index_space_bytes(call, NULL));
    (void)row;
    if (!(*space = s))
        return MPI_ERR_NO_MEM;
    s->blocks = (aip_block *)(s + 1);
    s->displacements = (MPI_Aint *)(s->blocks + p);
    s->peers = (int *)(s->displacements + p);
    return MPI_SUCCESS;
}

size_t aip_index_space_bytes(const aip_call *call, const void *space)
{
    size_t p = (size_t)call->size;
    (void)space;
    return sizeof(aip_index_space) + p * (sizeof(aip_block) + sizeof(MPI_Aint)) +
           2 * p * sizeof(int);
}
