/*
 * general.h - the state of the general in-place MPI_Alltoallv on one
 * process (Hofmann & Ruenger, EuroMPI 2010), apart from the messages.
 *
 * general_sets.c keeps the index sets of the paper: the receive set R_j of
 * each source j (what is still to arrive, always a contiguous range since
 * data arrives lowest index first), the send sets S_i split at receive-set
 * borders into subsets S_i^k, each lying wholly in one receive set (its
 * rmatch) or in none, and answers the three questions of a phase: how much
 * to ask of each source (its free space and the auxiliary buffer's), where
 * the bytes asked of me come from, and where the bytes I receive go.  It
 * then updates the sets (Sect. 3.4): unsent data of each receive set is
 * pushed to its top so that its free space is one range at its bottom, and
 * data waiting in the auxiliary buffer moves in.  general_aux.c manages the
 * auxiliary buffer (Sect. 3.5).  general_exchange.c exchanges the
 * messages.  Nothing here calls MPI to communicate, so the whole algorithm
 * runs in a simulation of p processes in one program
 * (tests/unit/general_sim_test.c).
 *
 * Memory: O(p) integers (at most 3p subsets) and the auxiliary buffer.
 */
#ifndef AIP_GENERAL_H
#define AIP_GENERAL_H

#include <stddef.h>

#include <mpi.h>

#include "call/plan.h"

/* A run of memory, as messages are assembled from them. */
typedef struct aip_piece {
    char *address;
    MPI_Aint bytes;
} aip_piece;

/* Largest message of one pair in one phase, so that MPI's int counts hold
 * it.  A larger message only waits for a later phase. */
#define AIP_GENERAL_MESSAGE_MAX ((MPI_Aint)1 << 30)

/* ---- The auxiliary buffer (general_aux.c). ---- */

typedef struct aip_aux_need {
    MPI_Aint need;
    int source;
    int step; /* place in the order of service */
} aip_aux_need;

typedef struct aip_aux {
    char *base;
    MPI_Aint bytes;
    AIP_Aux_strategy strategy;
    int narenas;          /* static: b buffers; pool: 1 */
    int size;             /* sources */
    MPI_Aint *arena_end;  /* arena k is [arena_end[k-1], arena_end[k]) of base */
    MPI_Aint *arena_used; /* bytes at its start in use */
    int *head, *tail;     /* per arena: its pieces in address order (a list of sources) */
    int *next;            /* per source: the next piece of its arena, or -1 */
    MPI_Aint *offset;     /* per source: its piece, the data from it waiting here */
    MPI_Aint *held;       /* per source: bytes of that piece */
    aip_aux_need *order;  /* scratch of the pool's order of service */
    size_t held_bytes;    /* of these arrays */
} aip_aux;

int aip_aux_alloc(aip_aux *aux, int size);
void aip_aux_free(aip_aux *aux);
/* Use `bytes` at `base`, split as the strategy says (nbuffers: b of static). */
void aip_aux_start(aip_aux *aux, char *base, MPI_Aint bytes, AIP_Aux_strategy strategy,
                   int nbuffers);
/* Grant space to the sources: grant[j] <= need[j] bytes, appended to j's
 * piece (need[j] > 0 only for sources holding nothing here).  `first` is the
 * source served first where space is first come, first served. */
void aip_aux_grant(aip_aux *aux, const MPI_Aint *need, MPI_Aint *grant, int first);
/* Where the granted bytes of j arrive: the last `bytes` of its piece. */
char *aip_aux_tail_of(const aip_aux *aux, int source, MPI_Aint bytes);
/* Move up to `bytes` of j's waiting data, oldest first, to dest; returns how many. */
MPI_Aint aip_aux_drain(aip_aux *aux, int source, char *dest, MPI_Aint bytes);
/* Close the gaps drained pieces left, so that free space is at the end of each arena. */
void aip_aux_compact(aip_aux *aux);

/* ---- The index sets (general_sets.c). ---- */

/* A send subset S_i^k: unsent bytes [lo, hi) of the buffer for rank dest,
 * inside the receive set of source rmatch (-1: inside none). */
typedef struct aip_subset {
    MPI_Aint lo, hi;
    int dest;
    int rmatch;
} aip_subset;

/* Scratch of aip_general_start: a receive set or a subset, sortable. */
typedef struct aip_span {
    MPI_Aint lo, hi;
    int owner; /* the source of a receive set; the index of a subset */
    int key;   /* the rmatch of a subset */
} aip_span;

typedef struct aip_general {
    char *buf;
    int rank, size;

    /* receive side, per source j */
    MPI_Aint *rpos, *rend; /* R_j: bytes [rpos, rend) still to be filled */
    MPI_Aint *rtop;        /* lowest byte of R_j holding unsent data (rend if none) */
    MPI_Aint *missing;     /* bytes j has not sent me yet */
    MPI_Aint *take_buf;    /* this phase: bytes from j into [rpos, ...) */
    MPI_Aint *take_aux;    /* ... and then into the auxiliary buffer */
    MPI_Aint *need;        /* scratch: what j could still send into aux */
    MPI_Aint total_missing;

    /* send side */
    aip_subset *subsets; /* the S_i^k, grouped by dest, in address order within a dest */
    int nsubsets;
    int *dest_first;   /* subsets of dest i: [dest_first[i], dest_first[i+1]) */
    int *dest_next;    /* the first of them with unsent bytes */
    MPI_Aint *unsent;  /* per dest */
    MPI_Aint total_unsent;
    int *in_region;    /* subset indices by (rmatch, address); region j's are */
    int *region_first; /*   in_region[region_first[j] .. region_first[j+1]) */
    aip_span *spans;   /* scratch of aip_general_start */

    aip_aux aux;
    size_t held_bytes; /* of the arrays above, aux's not included */

    /* what happened, for AIP_DEBUG and the benchmark */
    long long phases;
    long long moved_bytes; /* within buf, to join free space, and out of aux */
} aip_general;

/* O(p) arrays, allocated before the collective check so that failure is agreed. */
int aip_general_alloc(aip_general *g, int rank, int size);
void aip_general_free(aip_general *g);

/* Build the sets of Sect. 3.2 from the regions (checked not to overlap within
 * send, nor within receive) and set up the auxiliary buffer. */
void aip_general_start(aip_general *g, char *buf, const aip_block *send,
                       const aip_block *recv, char *aux, MPI_Aint aux_bytes,
                       AIP_Aux_strategy strategy, int nbuffers);

/* Whether this process still has bytes to send or to receive. */
int aip_general_active(const aip_general *g);
/* Whether j still has bytes for me / I still have bytes for i. */
static inline int aip_general_expects(const aip_general *g, int j) { return g->missing[j] > 0; }
static inline int aip_general_owes(const aip_general *g, int i) { return g->unsent[i] > 0; }

/* Sect. 3.3: how many bytes to ask of each source this phase (request[j] is
 * 0 for sources that have nothing left for me); reserves auxiliary space. */
void aip_general_requests(aip_general *g, MPI_Aint *request);
/* The pieces of the next `bytes` bytes for dest i, lowest first; returns
 * their number (at most the number of i's subsets, < 3p). */
int aip_general_send_pieces(const aip_general *g, int dest, MPI_Aint bytes, aip_piece *pieces);
/* Where this phase's bytes from source j land: at most 2 pieces. */
int aip_general_recv_pieces(const aip_general *g, int source, aip_piece *pieces);
/* Sect. 3.4, once the phase's messages are complete: sent[i] bytes went to
 * each dest i, and the requested bytes arrived. */
void aip_general_update(aip_general *g, const MPI_Aint *sent);

/* ---- The exchange of messages (general_exchange.c). ---- */

/* The table's general row (select/algorithms.c).  Its state: the sets and
 * the O(p) message arrays of a plan; the auxiliary buffer, what this rank
 * receives within the budget, is the plan's. */
struct aip_algorithm_row;
size_t aip_general_aux_bytes(const aip_call *call, size_t budget);
int aip_general_allocate(const struct aip_algorithm_row *row, const aip_call *call,
                         void **state);
void aip_general_release(void *state);
size_t aip_general_bytes(const aip_call *call, const void *state);
/* Begins the exchange on the plan's job (aip_exchange_advance advances it). */
int aip_start_general(aip_plan *plan, char *buf, const char *sendbuf);

#endif /* AIP_GENERAL_H */
