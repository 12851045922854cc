/*
 * nodes.c - which ranks share a node, found once per communicator.
 *
 * The node-aware exchanges need two communicators besides the caller's: the
 * ranks of this rank's node (MPI_COMM_TYPE_SHARED, or nodes of k consecutive
 * ranks when told so) and, when all nodes have the same number of ranks, the
 * ranks with this rank's local rank, one per node.  Splitting costs
 * collective operations, so the result is cached as an attribute of the
 * caller's communicator, freed with it, and rebuilt only when a call asks for
 * a different grouping (ranks_per_node).  One MPI_Allgather gives every rank
 * the whole map, rank -> (node, local rank), which the layouts need.
 *
 * The build is collective, and comes after the pipeline's agreement: its
 * memory is therefore reserved before it (aip_nodes_reserve, in step 1), so
 * that running out of it is agreed on like any other error instead of
 * leaving the other ranks in the build's collectives.  A plan holds a
 * reference to the nodes it runs on, so that a later call that replaces the
 * cache (another grouping) does not free them under it.
 */
#include <pthread.h>
#include <stdlib.h>

#include "node/node_aware.h"

static int nodes_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static void nodes_free(aip_nodes *nodes)
{
    if (nodes->node_comm != MPI_COMM_NULL)
        MPI_Comm_free(&nodes->node_comm);
    if (nodes->peer_comm != MPI_COMM_NULL)
        MPI_Comm_free(&nodes->peer_comm);
    free(nodes->tables);
    free(nodes);
}

void aip_nodes_release(const aip_nodes *nodes)
{
    aip_nodes *held = (aip_nodes *)nodes; /* const for the algorithms, not for its owners */
    if (held && atomic_fetch_sub(&held->references, 1) == 1)
        nodes_free(held);
}

static int delete_nodes(MPI_Comm comm, int keyval, void *attribute, void *extra_state)
{
    (void)comm;
    (void)keyval;
    (void)extra_state;
    aip_nodes *nodes = attribute;
    aip_cache_untrack(&nodes->cached);
    aip_nodes_release(nodes);
    return MPI_SUCCESS;
}

static void free_keyval(void)
{
    MPI_Comm_free_keyval(&nodes_keyval);
}

static void create_keyval(void)
{
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_nodes, &nodes_keyval, NULL) ==
        MPI_SUCCESS)
        aip_at_finalize(free_keyval);
}

/* The map from the node communicators: every rank computes the same tables. */
static int map_ranks(aip_nodes *nodes, MPI_Comm private_comm, int rank, int p)
{
    aip_shape *shape = &nodes->shape;
    int *pairs, *node_of, *local_of, *rank_at, *by_local, *node_size, err;
    int lowest; /* of my node: names it */

    if ((err = MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, nodes->node_comm)) !=
        MPI_SUCCESS)
        return err;
    /* node_of, local_of, rank_at, by_local, and room for the pairs and the node sizes
     * (AIP_NODE_TABLE_INTS, reserved) */
    node_of = nodes->tables;
    local_of = node_of + p;
    rank_at = local_of + p;
    by_local = rank_at + p;
    pairs = by_local + p;      /* 2p: (lowest rank of the node, local rank) of each rank */
    node_size = pairs;         /* reuses the pairs once they are read */
    int mine[2] = { lowest, nodes->local };
    if ((err = MPI_Allgather(mine, 2, MPI_INT, pairs, 2, MPI_INT, private_comm)) != MPI_SUCCESS)
        return err;

    /* Node a is the a-th node in order of lowest rank; a node's lowest rank
     * is its local rank 0, so a = number of local ranks 0 below that rank. */
    int *node_of_lowest = rank_at; /* scratch until rank_at is filled */
    int n = 0;
    for (int j = 0; j < p; j++)
        if (pairs[2 * j + 1] == 0)
            node_of_lowest[j] = n++;
    for (int j = 0; j < p; j++) {
        local_of[j] = pairs[2 * j + 1];
        node_of[j] = node_of_lowest[pairs[2 * j]];
    }
    for (int a = 0; a < n; a++)
        node_size[a] = 0;
    for (int j = 0; j < p; j++)
        node_size[node_of[j]]++;
    shape->size = p;
    shape->nodes = n;
    shape->per_node = shape->smallest = node_size[0];
    for (int a = 1; a < n; a++) {
        if (node_size[a] > shape->per_node)
            shape->per_node = node_size[a];
        if (node_size[a] < shape->smallest)
            shape->smallest = node_size[a];
    }
    shape->node_of = node_of;
    shape->local_of = local_of;
    shape->rank_at = shape->by_local = NULL;
    if (shape->smallest == shape->per_node) {
        aip_shape_rank_tables(shape, rank_at, by_local);
        shape->rank_at = rank_at;
        shape->by_local = by_local;
    }
    nodes->node = node_of[rank];
    return MPI_SUCCESS;
}

/* The ints of the tables of p ranks. */
#define AIP_NODE_TABLE_INTS(p) (6 * (size_t)(p))

/* Whether comm's cache holds the nodes of this grouping. */
static int cached_nodes(MPI_Comm comm, int ranks_per_node, aip_nodes **cached)
{
    int found;

    pthread_once(&keyval_once, create_keyval);
    if (nodes_keyval == MPI_KEYVAL_INVALID ||
        MPI_Comm_get_attr(comm, nodes_keyval, cached, &found) != MPI_SUCCESS)
        return 0;
    return found && (*cached)->ranks_per_node == ranks_per_node;
}

int aip_nodes_reserve(MPI_Comm comm, int ranks_per_node, int size, aip_nodes **spare)
{
    aip_nodes *cached, *nodes;

    *spare = NULL;
    if (cached_nodes(comm, ranks_per_node, &cached))
        return MPI_SUCCESS;
    if (!(nodes = aip_calloc(1, sizeof *nodes)))
        return MPI_ERR_NO_MEM;
    nodes->node_comm = nodes->peer_comm = MPI_COMM_NULL;
    atomic_init(&nodes->references, 1);
    if (!(nodes->tables = aip_malloc(sizeof(int) * AIP_NODE_TABLE_INTS(size)))) {
        nodes_free(nodes);
        return MPI_ERR_NO_MEM;
    }
    *spare = nodes;
    return MPI_SUCCESS;
}

/* Build the nodes in reserved memory; frees it on error. */
static int nodes_build(MPI_Comm private_comm, int ranks_per_node, aip_nodes *nodes)
{
    int rank, p, err;

    nodes->ranks_per_node = ranks_per_node;
    MPI_Comm_rank(private_comm, &rank);
    MPI_Comm_size(private_comm, &p);
    err = ranks_per_node > 0
              ? MPI_Comm_split(private_comm, rank / ranks_per_node, rank, &nodes->node_comm)
              : MPI_Comm_split_type(private_comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                    &nodes->node_comm);
    if (err == MPI_SUCCESS)
        err = MPI_Comm_rank(nodes->node_comm, &nodes->local);
    if (err == MPI_SUCCESS)
        err = map_ranks(nodes, private_comm, rank, p);
    /* Every rank knows whether the nodes are equal: all split, or none. */
    if (err == MPI_SUCCESS && nodes->shape.rank_at)
        err = MPI_Comm_split(private_comm, nodes->local, nodes->node, &nodes->peer_comm);
    if (err != MPI_SUCCESS)
        nodes_free(nodes);
    return err;
}

int aip_nodes_get(MPI_Comm comm, MPI_Comm private_comm, int ranks_per_node, aip_nodes **spare,
                  const aip_nodes **nodes)
{
    aip_nodes *cached, *built = *spare;
    int err;

    *nodes = NULL;
    if (cached_nodes(comm, ranks_per_node, &cached)) {
        atomic_fetch_add(&cached->references, 1);
        *nodes = cached;
        return MPI_SUCCESS;
    }
    if (nodes_keyval == MPI_KEYVAL_INVALID)
        return MPI_ERR_INTERN;
    /* All ranks get here alike: ranks_per_node was agreed, and the cache is
     * the same on all (built and replaced by the same calls), so all reserved. */
    if (!built)
        return MPI_ERR_INTERN;
    *spare = NULL;
    if ((err = nodes_build(private_comm, ranks_per_node, built)) != MPI_SUCCESS)
        return err;
    atomic_fetch_add(&built->references, 1); /* the cache's */
    if ((err = MPI_Comm_set_attr(comm, nodes_keyval, built)) != MPI_SUCCESS) { /* frees the old */
        nodes_free(built);
        return err;
    }
    aip_cache_track(&built->cached, comm, nodes_keyval);
    *nodes = built;
    return MPI_SUCCESS;
}
