/*
 * bcast_windows.c - the windows AIP_Bcast_rma puts into, made once per
 * communicator.
 *
 * Making a window is collective and costs several synchronisations (and,
 * across nodes, registering memory), so the windows are made by the first
 * broadcast on a communicator and cached as an attribute of it, freed with
 * it; a call with another budget or grouping replaces them.  Their size is
 * fixed by the budget (AIP_BCAST_SLOTS slots of one chunk), not by the
 * messages: that is what bounds the broadcast's memory.
 *
 * Each node's segment is allocated once, at its leader, in a shared-memory
 * window of the node (MPI_Win_allocate_shared), so that the node's ranks
 * read the data from that one copy.  The same memory is exposed to the
 * other nodes through a second window over the leaders alone
 * (MPI_Win_create), into which the leaders of other nodes put; the other
 * ranks take no part in it (a leader forwards for its node, the root's
 * included).  A window of one rank per host is also the cheaper to make,
 * and it keeps Open MPI 4's osc/rdma safe (below).  The shared window stays
 * in a passive-target epoch (MPI_Win_lock_all) for its whole life, as
 * MPI_Win_sync requires.
 *
 * A communicator the user never frees, MPI_COMM_WORLD first of all, keeps
 * its windows until MPI_Finalize; they must be freed when it begins, while
 * one-sided communication still works, not when MPI deletes
 * MPI_COMM_WORLD's attributes (call/comm.c): the attribute is tracked.
 *
 * Open MPI before 5.0: its osc/rdma component, where ranks of a window share
 * a host, keeps the window's state in a file named after the host, the job
 * and the context id of the window's communicator (/dev/shm/osc_rdma.<host>
 * .<job>.<cid>; Open MPI 5 adds the creating process's pid, open-mpi/ompi
 * #9492, #9495).  Context ids are unique only among communicators that
 * share a process: the halves of an MPI_Comm_split may get the same one.
 * Two such windows made at the same time on one host then share that file,
 * and puts land in the other window's memory or never complete (wrong data
 * or a hang: tests/mpi/bcast_split_test).  A host with one leader (nodes as
 * MPI finds them) has no such file: osc/rdma keeps the state of a window
 * with one local rank in private memory.  Where ranks_per_node cuts a host
 * into several nodes, its leaders share it; the library cannot know what
 * other communicators do, so where that component may be chosen for the
 * window between nodes and some host holds two leaders, no window is made
 * and the broadcasts are MPI_Bcast's (no_rma), agreed where the windows
 * would have been made.  The choice is read from the "osc" control variable
 * (MPI_T; set by --mca osc or OMPI_MCA_osc): a list that leaves rdma out
 * keeps the one-sided broadcast (sm,pt2pt; with UCX, ucx,sm; sm makes the
 * shared window).  That window alone (one node) is osc/sm's, whose file
 * names carry the creating rank since Open MPI 3.1: it is made.
 *
 * MPICH's ch4 device (4.0.2, and its source since) names a window in its
 * messages, PSCW posts and completions included, by the context id of the
 * communicator it was made on and a count of the windows made on that one
 * (MPIDIG_generate_win_id, ch4_impl.c).  Freeing the communicator while
 * the window lives, which MPI allows, frees the context id; the next
 * communicator to get it counts from 0 again, and a window made on it gets
 * the same id.  One window then takes the other's posts and completions,
 * and an epoch waits for good: broadcasts hung so beside another
 * communicator's windows (tests/mpi/win_id_reuse_test shows it with MPI
 * alone).  So the leaders' communicator is kept until the window between
 * nodes is freed, on every MPI, at the cost of a context id; the node's
 * communicator, the shared window's, is kept anyway.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bcast/bcast.h"

static int windows_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

size_t aip_bcast_slot_bytes(long long budget)
{
    long long slot = budget / AIP_BCAST_SLOTS;
    if (slot > AIP_BCAST_CHUNK_BYTES_MAX)
        slot = AIP_BCAST_CHUNK_BYTES_MAX;
    slot -= slot % 64; /* cache lines: a slot never shares one with the next */
    return slot < 64 ? 64 : (size_t)slot;
}

static void windows_free(aip_bcast_windows *windows)
{
    if (!windows)
        return;
    if (windows->tree_win != MPI_WIN_NULL)
        MPI_Win_free(&windows->tree_win);
    if (windows->leaders != MPI_COMM_NULL) /* only now: the opening comment says why */
        MPI_Comm_free(&windows->leaders);
    if (windows->shared_win != MPI_WIN_NULL) {
        MPI_Win_unlock_all(windows->shared_win);
        MPI_Win_free(&windows->shared_win);
    }
    if (windows->group != MPI_GROUP_NULL)
        MPI_Group_free(&windows->group);
    if (windows->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&windows->node_comm);
    free(windows->ints);
    free(windows);
}

static int delete_windows(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)comm;
    (void)keyval;
    (void)extra_state;
    aip_bcast_windows *windows = attribute;
    aip_cache_untrack(&windows->cached);
    windows_free(windows);
    return MPI_SUCCESS;
}

static void free_keyval(void)
{
    MPI_Comm_free_keyval(&windows_keyval);
}

static void create_keyval(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_windows, &windows_keyval, NULL) ==
        MPI_SUCCESS)
        aip_at_finalize(free_keyval);
}

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
/* Whether Open MPI's component list `list` ("a,b", or "^a,b" for all but
 * those; empty: all) admits rdma. */
static int list_admits_rdma(const char *list)
{
    int negated = list[0] == '^', named = 0;
    const char *at = list + negated;
    while (*at) {
        size_t len = strcspn(at, ",");
        const char *name = at, *end = at + len;
        while (name < end && *name == ' ')
            name++;
        while (end > name && end[-1] == ' ')
            end--;
        named |= end - name == 4 && strncmp(name, "rdma", 4) == 0;
        at += len + (at[len] == ',');
    }
    return negated || !list[0] ? !named : named;
}

static int rdma_admitted = 1; /* what we cannot read: admitted */
static pthread_once_t osc_once = PTHREAD_ONCE_INIT;

/* No allocation (the fault hook's count of a call stays what it was). */
static void read_osc_list(void)
{
    int provided, index, count;
    char list[4096] = "";
    MPI_T_cvar_handle handle;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_cvar_get_index("osc", &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) == MPI_SUCCESS) {
        if (count >= 0 && count < (int)sizeof list &&
            MPI_T_cvar_read(handle, list) == MPI_SUCCESS)
            rdma_admitted = list_admits_rdma(list);
        MPI_T_cvar_handle_free(&handle);
    }
    MPI_T_finalize();
}

/* Whether this process's Open MPI may give the window between nodes to osc/rdma. */
static int osc_rdma_possible(void)
{
    pthread_once(&osc_once, read_osc_list);
    return rdma_admitted;
}
#define OSC_RDMA_NAMES_BY_CID 1
#else
#define OSC_RDMA_NAMES_BY_CID 0
static int osc_rdma_possible(void)
{
    return 0;
}
#endif

/* The nodes: node_comm, and node_of / leader_of numbered by lowest rank. */
static int find_nodes(aip_bcast_windows *w, MPI_Comm private_comm, int ranks_per_node)
{
    int rank, p, lowest, host_size, err;
    MPI_Comm shared;

    MPI_Comm_rank(private_comm, &rank);
    MPI_Comm_size(private_comm, &p);
    int *node_of = w->ints, *leader_of = w->ints + p;
    if ((err = MPI_Comm_split_type(private_comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                   &shared)) != MPI_SUCCESS)
        return err;
    MPI_Comm_size(shared, &host_size);
    w->host_nodes = ranks_per_node > 0 ? (host_size + ranks_per_node - 1) / ranks_per_node : 1;
    if (ranks_per_node > 0) { /* groups of k consecutive ranks within the shared domain */
        int shared_rank;
        MPI_Comm_rank(shared, &shared_rank);
        err = MPI_Comm_split(shared, shared_rank / ranks_per_node, shared_rank, &w->node_comm);
        MPI_Comm_free(&shared);
        if (err != MPI_SUCCESS)
            return err;
    } else {
        w->node_comm = shared;
    }
    MPI_Comm_size(w->node_comm, &w->node_size);
    if ((err = MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, w->node_comm)) != MPI_SUCCESS ||
        (err = MPI_Allgather(&lowest, 1, MPI_INT, node_of, 1, MPI_INT, private_comm)) !=
            MPI_SUCCESS)
        return err;
    /* node_of[j] holds j's lowest rank, <= j: already numbered when j is reached. */
    w->nodes = 0;
    for (int j = 0; j < p; j++) {
        if (node_of[j] == j)
            leader_of[w->nodes++] = j;
        node_of[j] = j == node_of[j] ? w->nodes - 1 : node_of[node_of[j]];
    }
    w->node_of = node_of;
    w->leader_of = leader_of;
    return MPI_SUCCESS;
}

/* Whether `failed` is true on any rank; an MPI error as MPI_ERR_OTHER's "yes". */
static int any_rank(int failed, MPI_Comm comm)
{
    int any = 1;
    return MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS || any;
}

/*
 * The two windows, each agreed on: MPI_Win_free is collective, so a window
 * MPI made on some ranks only cannot be freed; it is left to MPI_Finalize
 * (and the broadcast is MPI_Bcast's: no_rma).
 */
static int make_windows(aip_bcast_windows *w, MPI_Comm private_comm)
{
    int node_rank, disp_unit, err;
    MPI_Aint segment_bytes = (MPI_Aint)(AIP_BCAST_SLOTS * w->slot_bytes), size;
    void *mine;
    MPI_Win shared = MPI_WIN_NULL, tree = MPI_WIN_NULL;

    MPI_Comm_rank(w->node_comm, &node_rank);
    if (OSC_RDMA_NAMES_BY_CID && w->nodes > 1 &&
        any_rank(w->host_nodes > 1 && osc_rdma_possible(), private_comm)) {
        w->no_rma = w->osc_unsafe = 1; /* the opening comment says why */
        return MPI_SUCCESS;
    }
    err = MPI_Win_allocate_shared(node_rank == 0 ? segment_bytes : 0, 1, MPI_INFO_NULL,
                                  w->node_comm, &mine, &shared);
    if (err == MPI_SUCCESS) {
        MPI_Win_set_errhandler(shared, MPI_ERRORS_RETURN);
        if ((err = MPI_Win_shared_query(shared, 0, &size, &disp_unit, &w->segment)) ==
            MPI_SUCCESS)
            err = MPI_Win_lock_all(MPI_MODE_NOCHECK, shared);
    }
    if (any_rank(err != MPI_SUCCESS, private_comm)) {
        w->no_rma = 1;
        return MPI_SUCCESS;
    }
    if (w->nodes > 1) { /* the leaders, in the order of their nodes */
        MPI_Comm leaders = MPI_COMM_NULL;
        err = MPI_Comm_split(private_comm, node_rank == 0 ? 0 : MPI_UNDEFINED, 0, &leaders);
        if (err == MPI_SUCCESS && leaders != MPI_COMM_NULL &&
            (err = MPI_Win_create(w->segment, segment_bytes, 1, MPI_INFO_NULL, leaders,
                                  &tree)) == MPI_SUCCESS)
            err = MPI_Comm_group(leaders, &w->group);
        if (any_rank(err != MPI_SUCCESS, private_comm)) {
            /* A window made here is left to MPI_Finalize (above), with its communicator. */
            if (leaders != MPI_COMM_NULL && tree == MPI_WIN_NULL)
                MPI_Comm_free(&leaders);
            MPI_Win_unlock_all(shared);
            MPI_Win_free(&shared);
            w->no_rma = 1;
            return MPI_SUCCESS;
        }
        if (tree != MPI_WIN_NULL)
            MPI_Win_set_errhandler(tree, MPI_ERRORS_RETURN);
        w->leaders = leaders;
    }
    w->shared_win = shared;
    w->tree_win = tree;
    return MPI_SUCCESS;
}

int aip_bcast_windows_get(MPI_Comm comm, MPI_Comm private_comm, long long budget,
                          int ranks_per_node, aip_bcast_windows **windows)
{
    aip_bcast_windows *w;
    void *cached;
    int found, p, failed, any_failed, err;

    *windows = NULL;
    pthread_once(&keyval_once, create_keyval);
    if (windows_keyval == MPI_KEYVAL_INVALID)
        return MPI_ERR_INTERN;
    if ((err = MPI_Comm_get_attr(comm, windows_keyval, &cached, &found)) != MPI_SUCCESS)
        return err;
    if (found && ((aip_bcast_windows *)cached)->budget == budget &&
        ((aip_bcast_windows *)cached)->ranks_per_node == ranks_per_node) {
        *windows = cached;
        return MPI_SUCCESS;
    }
    if (found && (err = MPI_Comm_delete_attr(comm, windows_keyval)) != MPI_SUCCESS)
        return err;

    MPI_Comm_size(private_comm, &p);
    w = aip_calloc(1, sizeof *w);
    if (w && !(w->ints = aip_malloc(3 * (size_t)p * sizeof(int)))) {
        free(w);
        w = NULL;
    }
    failed = !w;
    if ((err = MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, private_comm)) !=
        MPI_SUCCESS || any_failed) {
        free(w ? w->ints : NULL);
        free(w);
        return err != MPI_SUCCESS ? err : MPI_ERR_NO_MEM;
    }
    w->budget = budget;
    w->ranks_per_node = ranks_per_node;
    w->node_comm = w->leaders = MPI_COMM_NULL;
    w->shared_win = w->tree_win = MPI_WIN_NULL;
    w->group = MPI_GROUP_NULL;
    w->slot_bytes = aip_bcast_slot_bytes(budget);
    w->children = w->ints + 2 * p;
    if ((err = find_nodes(w, private_comm, ranks_per_node)) != MPI_SUCCESS) {
        windows_free(w);
        return err;
    }
    if ((err = make_windows(w, private_comm)) != MPI_SUCCESS ||
        (err = MPI_Comm_set_attr(comm, windows_keyval, w)) != MPI_SUCCESS) {
        windows_free(w);
        return err;
    }
    aip_cache_track(&w->cached, comm, windows_keyval);
    *windows = w;
    return MPI_SUCCESS;
}
