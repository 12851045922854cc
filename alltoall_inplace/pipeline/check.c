/*
 * check.c - argument checks that need more than one rank's view.
 *
 * MPI leaves most in-place misuse undefined; an in-place exchange that went
 * ahead on bad arguments would destroy data.  Before any byte moves, every
 * call therefore agrees, in one MPI_Allreduce of a few words, on:
 *   - whether any rank found an error, and which class all ranks return;
 *   - whether every pair of ranks agrees on the size of the blocks they
 *     exchange (MPI's rule for MPI_IN_PLACE: equal type signatures), tested
 *     with a checksum: rank r adds key(r,j) * bytes(r->j) for j > r and
 *     subtracts it for j < r, key(r,j) = key(j,r) odd.  The sum over all
 *     ranks is sum over pairs of key * (bytes(r->j) - bytes(j->r)) mod 2^64:
 *     zero when all pairs match, and never zero when a single pair differs
 *     (an odd key is invertible mod 2^64); several differing pairs cancel
 *     only by a 2^-64 accident.  A general call (separate receive blocks)
 *     adds key(r,j) * sent(r->j) and subtracts key(j,r) * received(r<-j),
 *     with one odd key per ordered pair: the same argument;
 *   - the options all must choose alike (aip_choices: the algorithm, since
 *     ranks must run the same schedule, the grouping into nodes, the
 *     general algorithm's requests and a broadcast's root), each field by
 *     its minimum and maximum, and the smallest aux budget (partners must
 *     cut blocks into the same chunks);
 *   - whether every rank's blocks are contiguous (AIP_Alltoall's, with a
 *     datatype whose extent is its size; for a broadcast, whether its
 *     datatype can be cut into chunks, bcast_stream.c): the node-aware
 *     algorithms need that on all ranks, and ranks may describe the same
 *     bytes with datatypes of other extents, so one rank's view cannot
 *     decide.
 * Only when the checksum says "mismatch" does an MPI_Alltoall of the sizes
 * find the pairs to name.
 */
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "call/comm.h"
#include "pipeline/check.h"

/* ---- Blocks of one rank must not overlap (MPI: erroneous; here: corruption). ---- */

typedef struct placed_block {
    MPI_Aint offset;
    MPI_Count bytes;
    int peer;
} placed_block;

static int compare_offsets(const void *a, const void *b)
{
    MPI_Aint x = ((const placed_block *)a)->offset, y = ((const placed_block *)b)->offset;
    return (x > y) - (x < y);
}

void aip_check_overlap(aip_call *call, const aip_block *blocks, const char *kind)
{
    placed_block *sorted = aip_malloc(sizeof *sorted * (size_t)call->size);
    int n = 0;

    if (!sorted) {
        aip_call_error(call, MPI_ERR_NO_MEM, "cannot allocate %d block descriptors", call->size);
        return;
    }
    for (int j = 0; j < call->size; j++)
        if (blocks[j].bytes > 0)
            sorted[n++] = (placed_block){ blocks[j].offset, blocks[j].bytes, j };
    qsort(sorted, (size_t)n, sizeof *sorted, compare_offsets);
    for (int i = 1; i < n; i++) {
        const placed_block *prev = &sorted[i - 1], *next = &sorted[i];
        if (prev->offset + (MPI_Aint)prev->bytes > next->offset) {
            aip_call_error(call, MPI_ERR_ARG,
                           "the %sblocks for ranks %d (bytes %lld..%lld) and %d (bytes "
                           "%lld..%lld) overlap",
                           kind, prev->peer, (long long)prev->offset,
                           (long long)(prev->offset + prev->bytes) - 1, next->peer,
                           (long long)next->offset, (long long)(next->offset + next->bytes) - 1);
            break;
        }
    }
    free(sorted);
}

/* ---- The collective check. ---- */

/* Error classes in the order of precedence when ranks found different ones. */
static const int error_classes[] = { MPI_ERR_ARG,    MPI_ERR_ROOT,   MPI_ERR_COUNT, MPI_ERR_TYPE,
                                     MPI_ERR_BUFFER, MPI_ERR_NO_MEM, MPI_ERR_OTHER };
#define N_CLASSES ((int)(sizeof error_classes / sizeof error_classes[0]))

/* The fields of aip_choices, and what a message calls each. */
static const struct {
    size_t offset;
    const char *name;
    int error_class;
} choice_fields[] = {
    { offsetof(aip_choices, algorithm), "algorithms (AIP_ALGORITHM or options->algorithm)",
      MPI_ERR_ARG },
    { offsetof(aip_choices, bcast_algorithm),
      "broadcast trees (AIP_BCAST_ALGORITHM or options->bcast_algorithm)", MPI_ERR_ARG },
    { offsetof(aip_choices, ranks_per_node),
      "nodes (AIP_RANKS_PER_NODE or options->ranks_per_node)", MPI_ERR_ARG },
    { offsetof(aip_choices, requests), "request exchanges (AIP_REQUESTS or options->requests)",
      MPI_ERR_ARG },
    { offsetof(aip_choices, root), "roots", MPI_ERR_ROOT },
};
#define N_CHOICES ((int)(sizeof choice_fields / sizeof choice_fields[0]))

static int *choice_field(aip_choices *choices, int k)
{
    return (int *)((char *)choices + choice_fields[k].offset);
}

/* Layout of the reduced vector: sums first, then minima. */
enum {
    SUM_ERRORS = 0,                    /* N_CLASSES counters */
    SUM_CHECKSUM = SUM_ERRORS + N_CLASSES,
    SUM_UNMOVABLE,                     /* ranks whose datatypes cannot be moved as bytes */
    N_SUMS,
    MIN_AUX_BYTES = N_SUMS,
    MIN_CONTIGUOUS,                    /* 1 where call->block_bytes >= 0 */
    MIN_CHOICES,                       /* N_CHOICES fields (offset by INT_MAX: unsigned) */
    MIN_NEGATED_CHOICES = MIN_CHOICES + N_CHOICES, /* UINT64_MAX - field: minimum = maximum */
    N_WORDS = MIN_NEGATED_CHOICES + N_CHOICES
};

static void reduce_check(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const uint64_t *a = in;
    uint64_t *b = inout;
    (void)type;
    for (int i = 0; i < *len; i++) {
        int k = i % N_WORDS;
        if (k < N_SUMS)
            b[i] += a[i]; /* unsigned: wraps mod 2^64 */
        else if (a[i] < b[i])
            b[i] = a[i];
    }
}

/* The reduction is created once, on first use, and lives until MPI_Finalize. */
static MPI_Op check_op = MPI_OP_NULL;
static pthread_once_t check_op_once = PTHREAD_ONCE_INIT;

static void free_check_op(void)
{
    MPI_Op_free(&check_op);
}

static void create_check_op(void)
{
    if (MPI_Op_create(reduce_check, 1, &check_op) == MPI_SUCCESS)
        aip_at_finalize(free_check_op);
}

static uint64_t pair_key(uint64_t lo, uint64_t hi)
{
    uint64_t z = (lo << 32 | hi) + 0x9e3779b97f4a7c15ULL; /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (z ^ (z >> 31)) | 1;
}

_Static_assert(N_WORDS == AIP_CHECK_WORDS, "check.h's AIP_CHECK_WORDS must match the layout");

/* This rank's words of the agreement. */
static void fill_words(const aip_call *call, const aip_choices *choices, long long aux_bytes,
                       uint64_t words[N_WORDS])
{
    aip_choices mine = *choices;

    for (int i = 0; i < N_WORDS; i++)
        words[i] = 0;
    if (call->error != MPI_SUCCESS) {
        int c = 0; /* classes not in the table count as MPI_ERR_OTHER, the last */
        while (c < N_CLASSES - 1 && error_classes[c] != call->error)
            c++;
        words[SUM_ERRORS + c] = 1;
    }
    for (int j = 0; call->blocks && call->recv_blocks && j < call->size; j++) { /* NULL: reported */
        if (aip_call_general(call)) {
            words[SUM_CHECKSUM] += pair_key((uint64_t)call->rank, (uint64_t)j) *
                                       (uint64_t)call->blocks[j].bytes -
                                   pair_key((uint64_t)j, (uint64_t)call->rank) *
                                       (uint64_t)call->recv_blocks[j].bytes;
            continue;
        }
        if (j == call->rank)
            continue;
        uint64_t lo = (uint64_t)(j < call->rank ? j : call->rank);
        uint64_t hi = (uint64_t)(j < call->rank ? call->rank : j);
        uint64_t term = pair_key(lo, hi) * (uint64_t)call->blocks[j].bytes;
        words[SUM_CHECKSUM] += j > call->rank ? term : -term;
    }
    words[SUM_UNMOVABLE] = (uint64_t)call->unmovable;
    words[MIN_AUX_BYTES] = (uint64_t)aux_bytes;
    words[MIN_CONTIGUOUS] = call->block_bytes >= 0;
    for (int k = 0; k < N_CHOICES; k++) {
        uint64_t field = (uint64_t)((long long)*choice_field(&mine, k) + INT_MAX);
        words[MIN_CHOICES + k] = field;
        words[MIN_NEGATED_CHOICES + k] = UINT64_MAX - field;
    }
}

static MPI_Op the_check_op(void)
{
    pthread_once(&check_op_once, create_check_op);
    return check_op;
}

int aip_check_collective(aip_call *call, MPI_Comm private_comm, const aip_choices *choices,
                         long long aux_bytes, aip_agreement *agreement)
{
    uint64_t words[N_WORDS];
    MPI_Op op = the_check_op();

    if (op == MPI_OP_NULL)
        return MPI_ERR_INTERN;
    fill_words(call, choices, aux_bytes, words);
    int err = MPI_Allreduce(MPI_IN_PLACE, words, N_WORDS, MPI_UINT64_T, op, private_comm);
    if (err == MPI_SUCCESS)
        aip_check_conclude(call, words, agreement);
    return err;
}

int aip_check_begin(const aip_call *call, MPI_Comm comm, const aip_choices *choices,
                    long long aux_bytes, uint64_t words[AIP_CHECK_WORDS], MPI_Request *request)
{
    MPI_Op op = the_check_op();

    if (op == MPI_OP_NULL)
        return MPI_ERR_INTERN;
    fill_words(call, choices, aux_bytes, words);
    return MPI_Iallreduce(MPI_IN_PLACE, words, N_WORDS, MPI_UINT64_T, op, comm, request);
}

void aip_check_conclude(aip_call *call, const uint64_t words[AIP_CHECK_WORDS],
                        aip_agreement *agreement)
{
    agreement->error = MPI_SUCCESS;
    agreement->mismatch = 0;
    for (int c = 0; c < N_CLASSES && agreement->error == MPI_SUCCESS; c++)
        if (words[SUM_ERRORS + c])
            agreement->error = error_classes[c];
    agreement->min_aux_bytes = (long long)words[MIN_AUX_BYTES];
    agreement->contiguous = words[MIN_CONTIGUOUS] == 1;
    agreement->unmovable = words[SUM_UNMOVABLE] != 0;
    /* Choices before sizes: ranks that disagree on the root also disagree on sizes. */
    for (int k = 0; k < N_CHOICES; k++) {
        *choice_field(&agreement->choices, k) =
            (int)((long long)words[MIN_CHOICES + k] - INT_MAX);
        if (agreement->error == MPI_SUCCESS &&
            words[MIN_CHOICES + k] != UINT64_MAX - words[MIN_NEGATED_CHOICES + k]) {
            agreement->error = choice_fields[k].error_class;
            if (call->rank == 0)
                aip_call_error(call, choice_fields[k].error_class,
                               "the ranks gave different %s; all must give the same",
                               choice_fields[k].name);
        }
    }
    if (agreement->error == MPI_SUCCESS && words[SUM_CHECKSUM] != 0) {
        agreement->error = MPI_ERR_TYPE;
        agreement->mismatch = 1;
    }
}

/* Name the pairs whose blocks differ in size; only called once a mismatch is known. */
int aip_report_mismatch(aip_call *call, MPI_Comm private_comm, long long *scratch)
{
    long long *mine = scratch, *theirs = scratch + call->size;

    for (int j = 0; j < call->size; j++)
        mine[j] = (long long)call->blocks[j].bytes;
    int err = MPI_Alltoall(mine, 1, MPI_LONG_LONG, theirs, 1, MPI_LONG_LONG, private_comm);
    for (int j = 0; err == MPI_SUCCESS && aip_call_general(call) && j < call->size; j++)
        if (theirs[j] != (long long)call->recv_blocks[j].bytes) {
            aip_call_error(call, MPI_ERR_TYPE,
                           "rank %d sends me %lld bytes but my receive block for it has %lld "
                           "(the counts and datatypes of a pair must describe the same "
                           "number of bytes)",
                           j, theirs[j], (long long)call->recv_blocks[j].bytes);
            break;
        }
    for (int j = call->rank + 1; err == MPI_SUCCESS && !aip_call_general(call) && j < call->size;
         j++)
        if (mine[j] != theirs[j]) {
            aip_call_error(call, MPI_ERR_TYPE,
                           "my block for rank %d has %lld bytes but rank %d's block for me has "
                           "%lld (in place, the counts and datatypes of a pair must describe "
                           "the same number of bytes)",
                           j, mine[j], j, theirs[j]);
            break;
        }
    return err;
}
