/*
 * bcast_rma.c - AIP_Bcast_rma: MPI_Bcast over MPI-3 one-sided communication,
 * after Abuelsoud & Paznikov, "Improving the MPI remote memory access model
 * by a one-sided broadcast" (../shared/papers/002).
 *
 * The paper moves the data with MPI_Put into the receivers' window memory,
 * within a node through a shared-memory window, along one of three trees
 * (bcast_tree.h: linear, binomial, binary).  It leaves open how a receiver
 * learns that its data has arrived, and how a window is reused without
 * overwriting data someone still reads; and its window holds the whole
 * message.  Here:
 *
 * Two levels.  The trees run among nodes (bcast_windows.c): on each node
 * one copy of the data, in a segment at the node's leader, exposed to the
 * other nodes' puts and read directly by the node's ranks through a
 * shared-memory window.  The root is its own node's source (it writes the
 * segment, or puts straight from its buffer when it is alone on its node);
 * on every other node the leader receives.  The leaders forward, the root's
 * node's from its segment once the node's barrier has passed: the tree and
 * its window are the leaders' alone (bcast_windows.c says why).
 *
 * Bounded memory.  The segment has AIP_BCAST_SLOTS = 3 slots of one chunk
 * (from the aux budget, not the message); chunk c of the communicator's
 * history uses slot c mod 3.  A leader receives chunk c + 1 into one slot
 * while it forwards chunk c from another and its node's ranks may still read
 * chunk c - 1 from the third: tree levels pipeline.
 *
 * Arrival and reuse by post-start-complete-wait (MPI-3.1 Sect. 11.5.2).  A
 * leader opens an exposure epoch for its parent (MPI_Win_post) only when the
 * slot the next chunk goes to is free; the parent's access epoch
 * (MPI_Win_start, its puts, MPI_Win_complete) cannot deliver before that,
 * and the leader's MPI_Win_wait returns only when the puts have completed at
 * it.  So the post is the "slot is free" notice and the wait the "data has
 * arrived" one, both synchronisations MPI defines in the separate memory
 * model as well as the unified one (Sect. 11.7: after MPI_Win_wait the
 * target's private copy holds what was put; MPI_Win_test, with which we
 * poll, completes the epoch the same way).  The alternative, the paper's
 * lock/put/unlock followed by a flag, needs a flush between data and flag (a
 * round trip: puts are not ordered), polling the flag with atomics, and a
 * flag back for reuse: PSCW's messages, built by hand.  Sending data and
 * flag as accumulates, which MPI orders by default, would save the round
 * trip (about one message per edge instead of PSCW's completion after the
 * put), at the price of element-typed data and atomic polling: the next
 * step for small messages, not taken here.  PSCW matches epochs pairwise in
 * order, so each leader's post names its parent for this call alone: the
 * root may change from call to call.
 *
 * Within a node, one MPI_Barrier per chunk, framed by MPI_Win_sync on the
 * shared window (the MPI-3 shared-memory idiom): the source syncs and enters
 * the barrier once the chunk is in the segment; the others leave it, sync,
 * and copy the chunk out while the leader forwards it (a leader that is not
 * the source forwards after its sync, and copies after its puts are
 * complete).  A rank enters the barrier of chunk c + 1 only after it copied
 * (and put) chunk c.  So when the source
 * has passed barrier c + 1, chunk c - 1 has been read by everyone and its
 * slot, (c + 2) mod 3, is free: that is when a leader posts for chunk c + 2
 * (after receiving c + 1), and when the root writes it.  Chunks are numbered
 * over the communicator's history, so this holds across calls, whatever
 * their roots.
 *
 * Errors.  Everything checkable is agreed on before any byte moves (the
 * pipeline's check.c).  An error MPI returns during the broadcast is
 * returned by the rank that saw it, and ranks waiting for it may wait on, as
 * after an error in MPI's own collectives: unlike the exchanges' messages
 * (exchange.h), open epochs cannot be wound down by sending empty ones.
 *
 * Cost: per tree edge and chunk a post message, the put and a completion
 * message; the post of the next chunk is sent before the current one is
 * forwarded, so in the pipeline only the put and the completion are on the
 * path.  MPI_Bcast's binomial tree sends one message per edge: for small
 * messages the one-sided broadcast pays the synchronisation MPI-3 RMA makes
 * explicit (bench/bcast_sweep measures how much).
 */
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "bcast/bcast.h"
#include "bcast/bcast_tree.h"
#include "call/options.h"
#include "pipeline/pipeline.h"

/*
 * Waiting politely, as the exchanges do (exchange.c): test, and give the core
 * away between tests.  Where ranks outnumber cores, MPICH's busy waiting in
 * MPI_Barrier and MPI_Win_wait burns the time slice of the rank waited for:
 * 9 ranks on 2 cores take 55 ms per MPI_Barrier, 0.3 ms per polled
 * MPI_Ibarrier.  AIP_BLOCKING_WAIT (tunables.h) makes them block.
 */
static int node_barrier(MPI_Comm node_comm)
{
    MPI_Request request;
    int done = 0, err;
    if (AIP_BLOCKING_WAIT)
        return MPI_Barrier(node_comm);
    if ((err = MPI_Ibarrier(node_comm, &request)) != MPI_SUCCESS)
        return err;
    while ((err = MPI_Test(&request, &done, MPI_STATUS_IGNORE)) == MPI_SUCCESS && !done)
        sched_yield();
    return err;
}

/* (Open MPI 4.1's MPI_Win_test drives opal_progress, not its osc ucx
 * worker; its MPI_Win_wait spins on that worker without yielding, which on
 * 4 ranks of 2 cores is worse: 15 ms a call on the test bed against 0.14 or
 * 5-10 ms with the test, depending on the run.) */
static int wait_for_puts(MPI_Win win)
{
    int done = 0, err;
    if (AIP_BLOCKING_WAIT)
        return MPI_Win_wait(win);
    while ((err = MPI_Win_test(win, &done)) == MPI_SUCCESS && !done)
        sched_yield();
    return err;
}

/* This rank's part in one broadcast. */
typedef struct bcast_role {
    int is_root;
    int is_source;        /* fills its node's segment: the root, or a leader of another node */
    int direct;           /* the root puts from its own buffer (bytewise, alone on its node) */
    MPI_Group parent;     /* the leader that puts to me, if a leader of another node */
    MPI_Group children;   /* the leaders I put to, if a leader */
    int nchildren;
} bcast_role;

static int role_of(bcast_role *role, aip_bcast_windows *w, AIP_Bcast_algorithm tree, int rank,
                   int root, const aip_bcast_stream *stream)
{
    int n = w->nodes, root_node = w->node_of[root], my_node = w->node_of[rank];
    int member = (my_node - root_node + n) % n; /* relative to the root's node */
    int leader = rank == w->leader_of[my_node], err = MPI_SUCCESS;

    memset(role, 0, sizeof *role);
    role->parent = role->children = MPI_GROUP_EMPTY;
    role->is_root = rank == root;
    role->is_source = rank == root || (member != 0 && leader);
    role->direct = role->is_root && stream->bytewise && w->node_size == 1;
    if (!leader || n == 1) /* the tree is the leaders' (tree_win: rank n leads node n) */
        return MPI_SUCCESS;
    if (member != 0) {
        int up = (aip_bcast_parent(tree, member, n) + root_node) % n;
        err = MPI_Group_incl(w->group, 1, &up, &role->parent);
    }
    role->nchildren = aip_bcast_children(tree, member, n, w->children);
    for (int i = 0; i < role->nchildren; i++)
        w->children[i] = (w->children[i] + root_node) % n;
    if (err == MPI_SUCCESS && role->nchildren > 0)
        err = MPI_Group_incl(w->group, role->nchildren, w->children, &role->children);
    return err;
}

static void role_free(bcast_role *role)
{
    if (role->parent != MPI_GROUP_EMPTY)
        MPI_Group_free(&role->parent);
    if (role->children != MPI_GROUP_EMPTY)
        MPI_Group_free(&role->children);
}

/* The chunks, in order (see the opening comment for the synchronisation). */
static int broadcast(aip_bcast_windows *w, const bcast_role *role, aip_bcast_stream *stream,
                     MPI_Count bytes)
{
    const size_t slot_bytes = w->slot_bytes;
    const MPI_Count nchunks = (bytes + (MPI_Count)slot_bytes - 1) / (MPI_Count)slot_bytes;
    const int receives = role->is_source && !role->is_root;
    int err = MPI_SUCCESS;

    if (receives)
        err = MPI_Win_post(role->parent, 0, w->tree_win);
    for (MPI_Count k = 0; k < nchunks && err == MPI_SUCCESS; k++) {
        const MPI_Aint slot = (MPI_Aint)((w->chunks_done + (unsigned long long)k) %
                                         AIP_BCAST_SLOTS) * (MPI_Aint)slot_bytes;
        const MPI_Count from = k * (MPI_Count)slot_bytes;
        const size_t len = (size_t)(bytes - from < (MPI_Count)slot_bytes ? bytes - from
                                                                         : (MPI_Count)slot_bytes);
        const char *origin = w->segment + slot;

        if (role->direct)
            origin = stream->buf + stream->info.true_lb + from;
        else if (role->is_root)
            err = aip_bcast_stream_pack(stream, from, len, w->segment + slot);
        if (err == MPI_SUCCESS && receives) {
            err = wait_for_puts(w->tree_win);
            if (err == MPI_SUCCESS && k + 1 < nchunks)
                err = MPI_Win_post(role->parent, 0, w->tree_win);
        }
        if (err == MPI_SUCCESS && w->node_size > 1) { /* the node reads while we forward */
            if (role->is_source)
                err = MPI_Win_sync(w->shared_win);
            if (err == MPI_SUCCESS)
                err = node_barrier(w->node_comm);
            if (err == MPI_SUCCESS && !role->is_source)
                err = MPI_Win_sync(w->shared_win);
        }
        if (err == MPI_SUCCESS && role->nchildren > 0) {
            err = MPI_Win_start(role->children, 0, w->tree_win);
            for (int i = 0; i < role->nchildren && err == MPI_SUCCESS; i++)
                err = MPI_Put(origin, (int)len, MPI_BYTE, w->children[i], slot, (int)len,
                              MPI_BYTE, w->tree_win);
            if (err == MPI_SUCCESS)
                err = MPI_Win_complete(w->tree_win);
        }
        if (err == MPI_SUCCESS && !role->is_root)
            err = aip_bcast_stream_unpack(stream, from, len, w->segment + slot);
    }
    w->chunks_done += (unsigned long long)nchunks;
    return err;
}

static void print_decision(const aip_call *call, const aip_bcast_windows *w,
                           AIP_Bcast_algorithm tree, AIP_Bcast_algorithm asked, MPI_Count bytes)
{
    fprintf(stderr,
            "alltoall_inplace: %s on %d ranks, %d nodes: %s%s, %lld bytes in chunks of %zu, "
            "%zu-byte window per node\n",
            call->fn, call->size, w->nodes, AIP_Bcast_algorithm_name(tree),
            asked == AIP_BCAST_AUTO ? " (auto)" : "", (long long)bytes, w->slot_bytes,
            AIP_BCAST_SLOTS * w->slot_bytes);
}

/* Local checks of the arguments, recorded in call. */
static void check_arguments(aip_call *call, aip_bcast_stream *stream, void *buf, int count,
                            MPI_Datatype datatype, int root, long long budget)
{
    if (root < 0 || root >= call->size)
        aip_call_error(call, MPI_ERR_ROOT, "root = %d is not a rank of the communicator (0..%d)",
                       root, call->size - 1);
    else if (count < 0)
        aip_call_error(call, MPI_ERR_COUNT, "count = %d is negative", count);
    /* The stream is cut into chunks alike on all ranks, or not at all (agreed below). */
    int streams = aip_bcast_stream_begin(stream, call, buf, count, datatype, budget);
    call->block_bytes = streams ? 0 : -1;
    if (call->error != MPI_SUCCESS)
        return;
    MPI_Count bytes = (MPI_Count)count * stream->info.size;
    if (bytes > 0 && (!buf || buf == MPI_IN_PLACE))
        aip_call_error(call, MPI_ERR_BUFFER, "buf is %s but the message has %lld bytes",
                       buf ? "MPI_IN_PLACE" : "NULL", (long long)bytes);
    /* The sizes: checked like a general exchange's, the root sending to every rank. */
    for (int j = 0; j < call->size; j++)
        if (call->rank == root && j != root)
            call->blocks[j].bytes = bytes;
    if (call->rank != root)
        call->recv_blocks[root].bytes = bytes;
    if (streams && aip_bcast_stream_reserve(stream) != MPI_SUCCESS)
        aip_call_error(call, MPI_ERR_NO_MEM, "cannot allocate one element of the datatype");
}

int AIP_Bcast_rma_opt(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      const AIP_Options *options)
{
    static const char fn[] = "AIP_Bcast_rma";
    aip_call call;
    aip_bcast_stream stream;
    AIP_Options resolved;
    aip_agreement agreement;
    aip_bcast_windows *windows;
    bcast_role role;
    MPI_Comm private_comm;
    long long *report = NULL;
    char why[320];
    int inter, err;

    if (comm != MPI_COMM_NULL && MPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter)
        return aip_raise(comm, MPI_ERR_COMM, fn,
                         "intercommunicators are not supported (use MPI_Bcast)");
    if ((err = aip_call_begin(&call, fn, buf, 1, comm, 1)) != MPI_SUCCESS)
        return err;
    memset(&stream, 0, sizeof stream);
    if (aip_options_resolve(options, &resolved, why, sizeof why) != MPI_SUCCESS)
        aip_call_error(&call, MPI_ERR_ARG, "%s", why);
    long long budget = aip_budget_of(&resolved);
    if (call.error == MPI_SUCCESS)
        check_arguments(&call, &stream, buf, count, datatype, root, budget);
    if (call.error == MPI_SUCCESS && !(report = aip_malloc(2 * (size_t)call.size * sizeof *report)))
        aip_call_error(&call, MPI_ERR_NO_MEM, "cannot allocate %d sizes", 2 * call.size);

    aip_choices choices = { .bcast_algorithm = resolved.bcast_algorithm,
                            .ranks_per_node = resolved.ranks_per_node,
                            .root = root };
    if ((err = aip_private_comm(comm, &private_comm)) != MPI_SUCCESS) {
        err = aip_raise_mpi_error(&call, err, "duplicating the communicator failed");
        goto out;
    }
    if ((err = aip_agree(&call, private_comm, &choices, budget, report, &agreement)) !=
        MPI_SUCCESS)
        goto out;

    MPI_Count bytes = (MPI_Count)count * stream.info.size;
    int debug = call.rank == 0 && aip_env_debug();
    if (bytes == 0 || call.size == 1)
        goto out;
    windows = NULL;
    if (agreement.contiguous && /* every rank can cut its datatype into chunks */
        (err = aip_bcast_windows_get(comm, private_comm, agreement.min_aux_bytes,
                                     agreement.choices.ranks_per_node, &windows)) !=
            MPI_SUCCESS) {
        err = aip_raise_mpi_error(&call, err, "making the broadcast's windows failed");
        goto out;
    }
    if (!windows || windows->no_rma) {
        static int told_osc; /* the same on every communicator: said once */
        if (windows && windows->osc_unsafe && told_osc)
            windows->warned = 1;
        if (debug || (windows && !windows->warned && call.rank == 0))
            fprintf(stderr, "alltoall_inplace: %s: MPI_Bcast, as %s\n", fn,
                    !windows ? "an element of some rank's datatype is larger than its budget "
                               "or not packed as its bytes"
                    : windows->osc_unsafe
                        ? "Open MPI < 5's osc/rdma may mix up windows made at the same time "
                          "on other communicators (OMPI_MCA_osc=sm,pt2pt keeps one-sided "
                          "communication)"
                        : "MPI cannot make the windows on this communicator");
        if (windows) {
            windows->warned = 1;
            told_osc |= windows->osc_unsafe;
        }
        if ((err = MPI_Bcast(buf, count, datatype, root, private_comm)) != MPI_SUCCESS)
            err = aip_raise_mpi_error(&call, err, "MPI_Bcast failed");
        goto out;
    }
    AIP_Bcast_algorithm asked = (AIP_Bcast_algorithm)agreement.choices.bcast_algorithm;
    AIP_Bcast_algorithm tree = asked == AIP_BCAST_AUTO ? AIP_BCAST_AUTO_TREE : asked;
    if (debug)
        print_decision(&call, windows, tree, asked, bytes);
    if ((err = role_of(&role, windows, tree, call.rank, root, &stream)) == MPI_SUCCESS)
        err = broadcast(windows, &role, &stream, bytes);
    role_free(&role);
    if (err != MPI_SUCCESS)
        err = aip_raise_mpi_error(&call, err, "the broadcast failed");
out:
    aip_bcast_stream_end(&stream);
    free(report);
    aip_call_free(&call);
    return err;
}

int AIP_Bcast_rma(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return AIP_Bcast_rma_opt(buf, count, datatype, root, comm, NULL);
}
