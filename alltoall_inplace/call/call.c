/*
 * call.c - the path every call takes once its front end has described the
 * blocks: local checks, the collective agreement (check.c), the choice of
 * algorithm and buffer sizes, and the exchange (exchange.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aip_internal.h"

int aip_call_begin(aip_call *call, const char *fn, void *buf, MPI_Comm comm, int general)
{
    int inter;

    memset(call, 0, sizeof *call);
    call->fn = fn;
    call->buf = buf;
    call->comm = comm;
    call->error = MPI_SUCCESS;
    call->block_bytes = -1;
    /* Errors of the communicator itself are the same on all ranks: no agreement needed. */
    if (comm == MPI_COMM_NULL)
        return aip_raise(MPI_COMM_NULL, MPI_ERR_COMM, fn, "the communicator is MPI_COMM_NULL");
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return aip_raise(MPI_COMM_NULL, MPI_ERR_COMM, fn, "the communicator is not valid");
    if (inter)
        return aip_raise(comm, MPI_ERR_COMM, fn,
                         "intercommunicators are not supported (MPI has no in-place "
                         "all-to-all on them either)");
    MPI_Comm_rank(comm, &call->rank);
    MPI_Comm_size(comm, &call->size);
    if (!(call->blocks = calloc((size_t)call->size, sizeof *call->blocks)) ||
        (general && !(call->recv_blocks = calloc((size_t)call->size, sizeof *call->blocks))))
        aip_call_error(call, MPI_ERR_NO_MEM, "cannot allocate %d block descriptors", call->size);
    return MPI_SUCCESS;
}

void aip_call_free(aip_call *call)
{
    free(call->blocks);
    free(call->recv_blocks);
    call->blocks = call->recv_blocks = NULL;
}

void aip_call_set_block(aip_call *call, aip_block *blocks, int peer, int count,
                        const aip_type_info *type, MPI_Aint displacement, const char *what)
{
    MPI_Count bytes = (MPI_Count)count * type->size;

    if (call->error != MPI_SUCCESS || bytes == 0)
        return;
    if (!type->dense || (count > 1 && type->extent != (MPI_Aint)type->size)) {
        aip_call_error(call, MPI_ERR_TYPE,
                       "%s (the block for rank %d) has gaps between or inside its elements, or "
                       "places them out of order; in place, only datatypes whose elements are "
                       "contiguous bytes are supported",
                       what, peer);
        return;
    }
    if (!call->buf || call->buf == MPI_IN_PLACE) {
        aip_call_error(call, MPI_ERR_BUFFER, "buf is %s but the block for rank %d has %lld bytes",
                       call->buf ? "MPI_IN_PLACE" : "NULL", peer, (long long)bytes);
        return;
    }
    blocks[peer].offset = displacement + type->true_lb;
    blocks[peer].bytes = bytes;
}

static size_t min_size(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Chunks for a budget: AIP_PIPELINE_DEPTH of them fit, none larger than the cap. */
static size_t chunk_bytes_for(long long budget)
{
    long long chunk = budget / AIP_PIPELINE_DEPTH;
    return chunk < 1 ? 1 : chunk > AIP_CHUNK_BYTES_MAX ? (size_t)AIP_CHUNK_BYTES_MAX : (size_t)chunk;
}

int aip_raise_mpi_error(aip_call *call, int err, const char *what)
{
    char text[MPI_MAX_ERROR_STRING];
    int length, error_class;

    MPI_Error_string(err, text, &length);
    MPI_Error_class(err, &error_class);
    snprintf(call->message, sizeof call->message, "%.60s: %.250s", what, text);
    return aip_raise(call->comm, error_class, call->fn, call->message);
}

int aip_call_agree(aip_call *call, long long choice, const char *choice_name, long long aux_bytes,
                   MPI_Comm *private_comm, aip_agreement *agreement)
{
    int err;

    if ((err = aip_private_comm(call->comm, private_comm)) != MPI_SUCCESS ||
        (err = aip_check_collective(call, *private_comm, choice, choice_name, aux_bytes,
                                    agreement)) != MPI_SUCCESS)
        return aip_raise_mpi_error(call, err, "the argument check failed");
    if (agreement->error != MPI_SUCCESS) {
        if (agreement->mismatch)
            aip_report_mismatch(call, *private_comm);
        return aip_raise(call->comm, agreement->error, call->fn,
                         call->error != MPI_SUCCESS ? call->message : NULL);
    }
    return MPI_SUCCESS;
}

/* What all ranks must ask for alike: the algorithm and the grouping into nodes. */
static long long choice_of(const AIP_Options *opt)
{
    return (long long)opt->ranks_per_node << 8 | (long long)opt->algorithm;
}

/* Whether the call may run a node-aware algorithm: AIP_Alltoall's contiguous
 * blocks, something to move, and an algorithm that is or may be one. */
static int node_aware_candidate(const aip_call *call, AIP_Algorithm asked)
{
    return call->block_bytes > 0 && call->size > 1 &&
           (asked == AIP_ALGORITHM_AUTO || aip_algorithm_node_aware(asked));
}

/* The algorithm to run and, for a node-aware one, the nodes; `why` says why
 * it is not the one asked for. */
static int choose(const aip_call *call, long long agreed, MPI_Comm private_comm,
                  long long min_aux_bytes, AIP_Algorithm *algorithm, const aip_nodes **nodes,
                  const char **why)
{
    AIP_Algorithm asked = (AIP_Algorithm)(agreed & 0xff);
    int err;

    *nodes = NULL;
    *why = NULL;
    if (!node_aware_candidate(call, asked)) {
        *algorithm = asked == AIP_ALGORITHM_AUTO ? aip_decide(call->size) : asked;
        if (aip_algorithm_node_aware(asked)) { /* nothing to move, or not AIP_Alltoall's blocks */
            *algorithm = AIP_ALGORITHM_HSA;
            if (call->block_bytes < 0)
                *why = "only AIP_Alltoall with blocks of contiguous bytes runs node-aware";
        }
        return MPI_SUCCESS;
    }
    if ((err = aip_nodes_get(call->comm, private_comm, (int)(agreed >> 8), nodes)) !=
        MPI_SUCCESS)
        return err;
    *algorithm = aip_decide_node_aware(asked, &(*nodes)->shape, (size_t)call->block_bytes,
                                       min_aux_bytes, why);
    return MPI_SUCCESS;
}

static void print_decision(const aip_call *call, AIP_Algorithm asked, AIP_Algorithm algorithm,
                           const aip_nodes *nodes, const char *why, size_t aux_bytes,
                           size_t chunk_bytes)
{
    char shape[64] = "";

    if (nodes)
        snprintf(shape, sizeof shape, ", %d nodes of %s%d ranks", nodes->shape.nodes,
                 nodes->shape.smallest == nodes->shape.per_node ? "" : "up to ",
                 nodes->shape.per_node);
    fprintf(stderr,
            "alltoall_inplace: %s on %d ranks%s: %s%s, aux buffer %zu bytes on rank 0, chunks "
            "of %zu bytes\n",
            call->fn, call->size, shape, AIP_Algorithm_name(algorithm),
            asked == AIP_ALGORITHM_AUTO ? " (auto)" : "", aux_bytes, chunk_bytes);
    if (why)
        fprintf(stderr, "alltoall_inplace: %s instead of %s: %s\n", AIP_Algorithm_name(algorithm),
                AIP_Algorithm_name(asked), why);
}

/* Out of place with a schedule: the exchange works in place on a copy. */
static void copy_send_blocks(const aip_call *call)
{
    for (int j = 0; j < call->size; j++)
        memcpy(call->buf + call->blocks[j].offset, call->sendbuf + call->blocks[j].offset,
               (size_t)call->blocks[j].bytes);
}

static int run_node_aware(aip_call *call, AIP_Algorithm algorithm, aip_node_call *node_call)
{
    node_call->buf = call->buf + call->first_offset;
    node_call->sendbuf = call->sendbuf ? call->sendbuf + call->first_offset : NULL;
    node_call->block_bytes = (size_t)call->block_bytes;
    switch (algorithm) {
    case AIP_ALGORITHM_SA: return aip_alltoall_sa(node_call);
    case AIP_ALGORITHM_RD: return aip_alltoall_rd(node_call);
    default: return aip_alltoall_l(node_call);
    }
}

int aip_call_run(aip_call *call, const AIP_Options *options)
{
    AIP_Options opt;
    aip_agreement agreement;
    MPI_Comm private_comm;
    aip_workspace space = { NULL, 0, NULL, 0 };
    aip_node_call node_call = { 0 };
    char why_options[320];
    int *peers = NULL, err;
    size_t total = 0;

    if (aip_options_resolve(options, &opt, why_options, sizeof why_options) != MPI_SUCCESS)
        aip_call_error(call, MPI_ERR_ARG, "%s", why_options);
    if (call->error == MPI_SUCCESS)
        aip_check_overlap(call, call->blocks, "");

    /* Everything that can fail locally is done before the agreement. */
    long long budget = opt.aux_bytes > 0 ? opt.aux_bytes : AIP_AUX_BYTES_MIN;
    for (int j = 0; call->error == MPI_SUCCESS && j < call->size; j++)
        if (j != call->rank)
            total += (size_t)call->blocks[j].bytes;
    size_t aux_bytes = min_size((size_t)budget, total);
    int node_aware = call->error == MPI_SUCCESS && node_aware_candidate(call, opt.algorithm);
    if (node_aware && aip_may_choose_leader(opt.algorithm, (size_t)call->block_bytes))
        /* a leader of l holds its node's data: more than its own */
        aux_bytes = min_size((size_t)budget,
                             2 * aip_leader_bytes(call->size, call->size,
                                                  (size_t)call->block_bytes));
    if (call->error == MPI_SUCCESS &&
        (!(peers = malloc(sizeof(int) * 2 * (size_t)call->size)) ||
         aip_workspace_alloc(&space, aux_bytes, chunk_bytes_for(budget), call->size) !=
             MPI_SUCCESS ||
         (node_aware && aip_node_arrays_alloc(&node_call, call->size) != MPI_SUCCESS)))
        aip_call_error(call, MPI_ERR_NO_MEM, "cannot allocate the %zu-byte auxiliary buffer",
                       aux_bytes);

    if ((err = aip_call_agree(call, choice_of(&opt),
                              "algorithms or nodes (AIP_ALGORITHM, AIP_RANKS_PER_NODE or "
                              "options)",
                              budget, &private_comm, &agreement)) != MPI_SUCCESS)
        goto out;

    AIP_Algorithm asked = (AIP_Algorithm)(agreement.choice & 0xff), algorithm;
    const aip_nodes *nodes;
    const char *why;
    size_t chunk_bytes = chunk_bytes_for(agreement.min_aux_bytes);
    if ((err = choose(call, agreement.choice, private_comm, agreement.min_aux_bytes, &algorithm,
                      &nodes, &why)) != MPI_SUCCESS) {
        err = aip_raise_mpi_error(call, err, "finding the nodes failed");
        goto out;
    }
    if (call->rank == 0 && aip_env_debug())
        print_decision(call, asked, algorithm, nodes, why, aux_bytes, chunk_bytes);

    if (aip_algorithm_node_aware(algorithm)) {
        node_call.nodes = nodes;
        node_call.peers = peers;
        node_call.space = &space;
        node_call.chunk_bytes = chunk_bytes;
        err = run_node_aware(call, algorithm, &node_call);
    } else {
        const aip_schedule *schedule = aip_algorithm_schedule(algorithm);
        if (call->sendbuf)
            copy_send_blocks(call);
        schedule->fill(call->rank, call->size, peers);
        err = aip_exchange(call->buf, call->blocks, peers, schedule->nsteps(call->size),
                           &space, chunk_bytes, private_comm);
    }
    if (err != MPI_SUCCESS)
        err = aip_raise_mpi_error(call, err, "the exchange failed");

out:
    aip_node_arrays_free(&node_call);
    aip_workspace_free(&space);
    free(peers);
    aip_call_free(call);
    return err;
}
