/*
 * exchange.h - the executor: runs a schedule of pairwise exchanges over the
 * caller's buffer through a bounded auxiliary buffer (exchange.c explains
 * how, and why it cannot deadlock).
 */
#ifndef AIP_EXCHANGE_H
#define AIP_EXCHANGE_H

#include "call/plan.h"
#include "schedule/schedule.h"

struct aip_algorithm_row;

/* The plan's workspace (call/plan.h); ring: whether the executor's ring of
 * transfers is needed (the general algorithm uses aux alone). */
int aip_workspace_alloc(aip_workspace *space, size_t aux_bytes, int ring,
                        size_t max_chunk_bytes, int comm_size);
void aip_workspace_free(aip_workspace *space);

/*
 * Errors during an exchange (wind_down.c).  What a call promises once the
 * agreement has passed and MPI itself fails on some rank (a send, receive
 * or completion returns an error):
 *   - no rank waits forever, as long as the failed operation succeeds when
 *     tried again once: the failing rank winds down, posting the rest of its
 *     messages with its data messages empty, and so does every rank that
 *     receives an empty one;
 *   - the failing rank returns the class of MPI's error; a rank that
 *     received an empty message returns MPI_ERR_OTHER (aip_partner_failed,
 *     whose string says so); every other rank returns MPI_SUCCESS, its
 *     exchange complete and exact;
 *   - where an error is returned the buffer is undefined (partly exchanged:
 *     in place, what was sent away cannot be restored);
 *   - no request is left active on memory the call frees, and the next call
 *     on the communicator finds no message of this one.
 * If MPI fails again while a rank winds down, it gives up: it cancels and
 * completes its requests and returns the error; its partners may then wait,
 * as after an error in one of MPI's own collectives.  Errors inside MPI's
 * collectives that the library calls (the agreement's MPI_Allreduce, l's
 * gather and scatter, the node tables' splits) are MPI's to report.
 *
 * *error holds the first error of the call so far (MPI's, or
 * aip_partner_failed()); the functions note theirs in it.  They return
 * MPI_SUCCESS, or MPI's error when the retry failed too: then give up.
 */
int aip_partner_failed(void);
/* The error of a rank that received a data message of another size than its
 * plan expects (erroneous use: the ranks execute different plans); it winds
 * down like any other error, so its partners learn of it too. */
int aip_size_mismatch(void);
void aip_note_error(int *error, int err);
/* Post a receive, or a send whose content the protocol needs (retried alike). */
int aip_post_receive(void *buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
                     MPI_Request *request, int *error);
int aip_post_send(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request, int *error);
/* Post a data message (count > 0), or an empty one once *error is set. */
int aip_post_data(const void *buf, int count, MPI_Datatype type, int peer, int tag,
                  MPI_Comm comm, MPI_Request *request, int *error);
/* A completed data receive of expected_bytes: an empty message means its
 * sender failed, another size that the ranks' plans differ. */
void aip_check_arrival(const MPI_Status *status, MPI_Count expected_bytes, int *error);
/* Complete `count` requests: MPI_Waitall, or politely aip_test with
 * sched_yield between the tests (exchange.c says why; so at most
 * AIP_TEST_MAX requests then).  MPI_Waitall writes an empty status for a
 * request already MPI_REQUEST_NULL: pass only the active ones. */
int aip_complete(int count, MPI_Request *requests, MPI_Status *statuses, int politely,
                 int *error);
/* Test the requests (at most AIP_TEST_MAX: a transfer's receive and send),
 * retried once if MPI fails (*error notes it): *done says whether all have
 * completed.  statuses[i] is written when request i completes, so keep
 * statuses until *done. */
enum { AIP_TEST_MAX = 2 };
int aip_test(int count, MPI_Request *requests, MPI_Status *statuses, int *done, int *error);
/* Cancel and complete (or at least free) what is still active. */
void aip_give_up(int count, MPI_Request *requests);

/* Exchange peers[s]'s block of buf with it, for s < nsteps (AIP_IDLE: none).
 * error: the call's first error so far (MPI_SUCCESS: none), with which the
 * exchange starts winding down; returns the first error. */
int aip_exchange(char *buf, const aip_block *blocks, const int *peers, int nsteps,
                 const aip_workspace *space, size_t chunk_bytes, MPI_Comm comm, int error);
/* The same as a job that stops and resumes: begin posts nothing; advance
 * posts what the aux buffer has room for and retires the transfers that
 * are done, in order, and returns with *complete 0 where it would have to
 * wait, unless may_wait (then it returns complete).  Once complete it
 * returns the first error, as aip_exchange does; before, MPI_SUCCESS (or
 * MPI's error, having given up: complete too).  The job reads blocks and
 * peers, and holds space, until complete. */
void aip_exchange_begin(aip_exchange_job *job, char *buf, const aip_block *blocks,
                        const int *peers, int nsteps, const aip_workspace *space,
                        size_t chunk_bytes, MPI_Comm comm, int error);
int aip_exchange_advance(aip_exchange_job *job, int may_wait, int *complete);
/*
 * Nonblocking executions (AIP_Plan_start) put their job in flight: from
 * then on every test and wait of this process advances it, and so does the
 * executor whenever it waits politely for a transfer (aip_complete), until
 * it is complete.  So partners may complete their executions in any order,
 * as MPI's nonblocking collectives may: a rank waiting for one still posts
 * the chunks of the others that its partners wait for.  The list is the
 * process's: while executions are in flight, one thread at a time may call
 * the library.
 */
void aip_exchange_in_flight(aip_exchange_job *job);
/* Advance every job in flight as far as it goes without waiting. */
void aip_exchange_advance_in_flight(void);

/* aip_exchange_begin where peer i's data is a list of blocks (segments,
 * call/plan.h): ours read from src (buf, or a send buffer), the peer's
 * written into the same positions of buf.  Blocks smaller than a chunk
 * travel several to a message: gathered into aux, scattered by a datatype.
 * The job's link in the list of jobs in flight is kept: a step's then may
 * begin the next step on a job in flight. */
void aip_exchange_begin_segments(aip_exchange_job *job, char *buf, const char *src,
                                 const aip_segments *segments, const int *peers, int nsteps,
                                 const aip_workspace *space, size_t chunk_bytes, MPI_Comm comm,
                                 int error);

/* aip_exchange_begin_segments in place where a step's data goes to one rank
 * and comes from another: step s sends the blocks at segments->positions
 * (by_step: the step's list) to to[s] and receives from[s]'s into the same
 * places, in the same order.  to and from are read until the job is complete. */
void aip_exchange_begin_routed(aip_exchange_job *job, char *buf, const aip_segments *segments,
                               const int *to, const int *from, int nsteps,
                               const aip_workspace *space, size_t chunk_bytes, MPI_Comm comm,
                               int error);

/* A job that lets messages already posted complete, requests[0 .. count): a
 * receive that brings another size than gate->expected says is an error noted as
 * any arrival's (empty: its sender failed), and gate->arrived runs as each
 * completes.  Then the job is complete, or its then begins the next step. */
void aip_exchange_begin_gate(aip_exchange_job *job, MPI_Request *requests, int count,
                             const aip_gate_space *gate, const aip_workspace *space, int error);

/* ---- Rows of the algorithm table (select.h) that run on the executor. ---- */

/* The schedule rows.  Their state: the schedule as this rank runs it. */
typedef struct aip_steps {
    int nsteps;
    int peers[]; /* nsteps of them */
} aip_steps;
int aip_steps_allocate(const aip_schedule *schedule, const aip_call *call, aip_steps **steps);
size_t aip_steps_bytes(const aip_call *call, const void *steps);
/* The aux buffer a schedule's exchange uses: what this rank sends, within
 * the budget (the other rows' too wherever they move whole blocks). */
size_t aip_exchange_aux_bytes(const aip_call *call, size_t budget);
/* Begin the plan's schedule (its aip_steps) over its blocks in plan->job;
 * out of place the blocks are first copied from sendbuf into buf. */
int aip_start_schedule(aip_plan *plan, char *buf, const char *sendbuf);

/* The state of the rows that exchange lists of blocks (node-aware and
 * hypercube): index space for p blocks, p displacements and 2p peers. */
typedef struct aip_index_space {
    aip_block *blocks;
    MPI_Aint *displacements;
    int *peers;
    int stage; /* the hypercube's stage under way */
} aip_index_space;
int aip_index_space_allocate(const struct aip_algorithm_row *row, const aip_call *call,
                             void **space);
size_t aip_index_space_bytes(const aip_call *call, const void *space);

/* The hypercube all-to-all (alltoall_hypercube.c); its state an aip_index_space.
 * Its stages run as one job (aip_exchange_advance advances it). */
size_t aip_hypercube_aux_bytes(const aip_call *call, size_t budget);
int aip_start_hypercube(aip_plan *plan, char *buf, const char *sendbuf);

#endif /* AIP_EXCHANGE_H */
