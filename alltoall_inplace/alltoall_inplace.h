/*
 * alltoall_inplace.h - in-place all-to-all exchanges with bounded extra memory.
 *
 * The calls below perform the exchange of MPI_Alltoall, MPI_Alltoallv and
 * MPI_Alltoallw with MPI_IN_PLACE semantics: block j of `buf` is sent to
 * rank j and replaced by the block rank j holds for this rank.  Unlike the
 * MPI libraries' own in-place collectives, the extra memory a call uses is
 * bounded by an auxiliary-buffer budget (default 1 MiB per process), not by
 * the size of the blocks.
 *
 * All calls are collective over `comm`, return an MPI error code and report
 * errors through the communicator's error handler, like MPI itself; the ranks
 * agree on errors before any data moves, so all return the same class.
 *
 * Blocks move as bytes: every element of a datatype must be a run of
 * consecutive bytes (predefined types without padding, and derived types
 * built so).  Datatypes with holes are refused with MPI_ERR_TYPE.
 *
 * The algorithms are the rows of the library's table: AIP_Algorithm_at
 * lists them with their kind, AIP_Algorithm_name names them, and the enum
 * below says where each comes from (the symmetric exchanges of Hofmann &
 * Ruenger, EuroMPI 2013; the node-aware ones of Kumar, Mamidala & Panda,
 * ICPP 2008; the general exchange of Hofmann & Ruenger, EuroMPI 2010; the
 * hypercube of Plimpton et al., Cluster 2006).  An unknown AIP_ALGORITHM
 * is an error whose message lists the names.
 *
 * And a broadcast over MPI-3 one-sided communication, AIP_Bcast_rma, whose
 * window memory is bounded by the same budget (below).
 *
 * Programs that call MPI_Alltoall, MPI_Alltoallv or MPI_Alltoallw with
 * MPI_IN_PLACE rather than this header get the same exchanges from
 * liballtoall_inplace_pmpi, preloaded or linked before MPI (README).
 */
#ifndef ALLTOALL_INPLACE_H
#define ALLTOALL_INPLACE_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AIP_VERSION_MAJOR 0
#define AIP_VERSION_MINOR 1

typedef enum AIP_Algorithm {
    AIP_ALGORITHM_DEFAULT = 0, /* $AIP_ALGORITHM if set, else auto */
    AIP_ALGORITHM_AUTO    = 1, /* the library chooses (select/decision.c) */
    /* Symmetric exchanges (Hofmann & Ruenger, "In-place Algorithms for the
     * Symmetric All-to-all Exchange with MPI", EuroMPI 2013). */
    AIP_ALGORITHM_MPICH   = 2,
    AIP_ALGORITHM_LSA     = 3,
    AIP_ALGORITHM_HSA     = 4,
    /* Node-aware exchanges of AIP_Alltoall (Kumar, Mamidala & Panda, "Scaling
     * Alltoall Collective on Multi-core Systems"); other calls run hsa. */
    AIP_ALGORITHM_SA      = 5, /* send-side aggregation: intra-node, then inter-node */
    AIP_ALGORITHM_L       = 6, /* one leader per node gathers, exchanges, scatters */
    AIP_ALGORITHM_RD      = 7, /* receive-side distribution: inter-node, then intra-node */
    /* The general exchange (Hofmann & Ruenger, EuroMPI 2010): what
     * AIP_Alltoallv_general always runs; the symmetric calls run it when asked. */
    AIP_ALGORITHM_GENERAL = 8,
    /* The hypercube all-to-all (Plimpton et al., Cluster 2006): ceil(log2 p)
     * stages of p/2 blocks each, for small blocks; AIP_Alltoall only. */
    AIP_ALGORITHM_HYPERCUBE = 9
} AIP_Algorithm;

/* What an algorithm is (AIP_Algorithm_at). */
typedef enum AIP_Algorithm_kind {
    AIP_KIND_CHOICE     = 0, /* default, auto: a rule that picks one of the others */
    AIP_KIND_SCHEDULE   = 1, /* a schedule of pairwise exchanges of the symmetric calls */
    AIP_KIND_NODE_AWARE = 2, /* two-level, AIP_Alltoall only (hsa elsewhere) */
    AIP_KIND_GENERAL    = 3, /* any layout: separate send and receive blocks */
    AIP_KIND_ROUTED     = 4  /* blocks forwarded through stages, AIP_Alltoall only */
} AIP_Algorithm_kind;

/* Value of AIP_Options.aux_bytes meaning "$AIP_AUX_BYTES if set, else 1 MiB". */
#define AIP_AUX_BYTES_DEFAULT (-1LL)

/* How AIP_Alltoallv_general shares its budget among the ranks it receives from. */
typedef enum AIP_Aux_strategy {
    AIP_AUX_STRATEGY_DEFAULT = 0, /* $AIP_AUX_STRATEGY if set, else pool */
    AIP_AUX_STRATEGY_STATIC  = 1, /* the paper's: b equal buffers, rank j uses buffer j mod b,
                                     first come, first served */
    AIP_AUX_STRATEGY_POOL    = 2  /* one pool, granted at each phase to the ranks with the
                                     most data still to come first */
} AIP_Aux_strategy;

/* How AIP_Alltoallv_general's processes ask each other for data at each phase. */
typedef enum AIP_Requests {
    AIP_REQUESTS_DEFAULT  = 0, /* $AIP_REQUESTS if set, else p2p */
    AIP_REQUESTS_P2P      = 1, /* a message to each rank that still has data for me */
    AIP_REQUESTS_ALLTOALL = 2  /* one MPI_Alltoall of all requests (the paper's) */
} AIP_Requests;

/* The trees of AIP_Bcast_rma (Abuelsoud & Paznikov), among nodes. */
typedef enum AIP_Bcast_algorithm {
    AIP_BCAST_DEFAULT  = 0, /* $AIP_BCAST_ALGORITHM if set, else auto */
    AIP_BCAST_AUTO     = 1, /* the library chooses (tunables.h) */
    AIP_BCAST_LINEAR   = 2, /* the root puts to every node */
    AIP_BCAST_BINOMIAL = 3, /* in round k, every node holding the data puts to node + 2^k */
    AIP_BCAST_BINARY   = 4  /* node r puts to nodes 2r + 1 and 2r + 2 */
} AIP_Bcast_algorithm;

/*
 * Per-call options.  Initialise with AIP_OPTIONS_INIT (or AIP_Options_init)
 * and change only what you need; fields left at their DEFAULT value (or 0)
 * follow the environment variables AIP_ALGORITHM, AIP_AUX_BYTES,
 * AIP_AUX_STRATEGY, AIP_AUX_BUFFERS and AIP_REQUESTS (README, tunables.h).
 *
 * aux_bytes: extra memory a call may use on this process, in bytes.  0 means
 * the smallest workable buffer.  Budgets may differ between processes; the
 * message chunk size of the symmetric exchanges follows the smallest one.
 *
 * AIP_Alltoallv_general only:
 * aux_strategy, aux_buffers: how the budget is shared (AIP_Aux_strategy);
 *   aux_buffers is b of the static strategy, 0 meaning $AIP_AUX_BUFFERS if
 *   set, else max(1, p/8).
 * requests: how requests travel (AIP_Requests); the same on every rank.
 *
 * Node-aware algorithms (sa, l, rd and auto) only:
 * ranks_per_node: 0 groups the ranks into nodes with MPI_COMM_TYPE_SHARED
 *   (or $AIP_RANKS_PER_NODE if set); k > 0 makes nodes of k consecutive
 *   ranks (the last one smaller if k does not divide p), for tests and for
 *   machines whose MPI does not know its nodes.  The same on every rank.
 */
typedef struct AIP_Options {
    AIP_Algorithm algorithm;
    long long aux_bytes;
    AIP_Aux_strategy aux_strategy;
    int aux_buffers;
    AIP_Requests requests;
    int ranks_per_node;
    AIP_Bcast_algorithm bcast_algorithm;
} AIP_Options;

#define AIP_OPTIONS_INIT                                                                      \
    { AIP_ALGORITHM_DEFAULT, AIP_AUX_BYTES_DEFAULT, AIP_AUX_STRATEGY_DEFAULT,                 \
      0, AIP_REQUESTS_DEFAULT, 0, AIP_BCAST_DEFAULT }

void AIP_Options_init(AIP_Options *options);

/*
 * The options a call would use: DEFAULT fields replaced from the environment
 * and built-in defaults ('auto' stays 'auto': it is decided per call).
 * Returns MPI_SUCCESS, or MPI_ERR_ARG if an option or environment variable is
 * invalid (nothing is printed; `resolved` is then unspecified).
 */
int AIP_Options_resolve(const AIP_Options *options, AIP_Options *resolved);

/* The library's algorithms, index 0, 1, ... in its order of preference where
 * nothing is measured; MPI_ERR_ARG past the last.  (The FFTW transposes
 * register a solver instance for each algorithm that is not a choice.) */
int AIP_Algorithm_at(int index, AIP_Algorithm *algorithm, AIP_Algorithm_kind *kind);
/* "mpich", "lsa", ... for an algorithm; NULL for an unknown value. */
const char *AIP_Algorithm_name(AIP_Algorithm algorithm);
/* The algorithm named `name` (as accepted by $AIP_ALGORITHM); MPI_ERR_ARG if unknown. */
int AIP_Algorithm_from_name(const char *name, AIP_Algorithm *algorithm);

/*
 * In-place MPI_Alltoall: `buf` holds p blocks of `count` elements of
 * `datatype`, block j at byte offset j * count * extent.
 */
int AIP_Alltoall(void *buf, int count, MPI_Datatype datatype, MPI_Comm comm);

/*
 * Out-of-place MPI_Alltoall with the same algorithms: block j of sendbuf
 * goes to rank j, the block from rank j lands in block j of recvbuf; both
 * hold p blocks of `count` elements of `datatype`, and must not overlap.
 * Extra memory: the aux budget, as in place.
 */
int AIP_Alltoall_oop(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Comm comm);

/*
 * In-place symmetric MPI_Alltoallv: block j has counts[j] elements at
 * buf + displs[j] * extent(datatype).  counts[j] on this rank must describe
 * as many bytes as counts[me] on rank j (MPI's rule for MPI_IN_PLACE).
 */
int AIP_Alltoallv(void *buf, const int counts[], const int displs[],
                  MPI_Datatype datatype, MPI_Comm comm);

/*
 * In-place symmetric MPI_Alltoallw: block j has counts[j] elements of
 * datatypes[j] at buf + displs[j] (displacements in bytes).
 */
int AIP_Alltoallw(void *buf, const int counts[], const int displs[],
                  const MPI_Datatype datatypes[], MPI_Comm comm);

/*
 * In-place general MPI_Alltoallv: the message for rank j is sendcounts[j]
 * elements at buf + sdispls[j] * extent(datatype); the message from rank j
 * replaces them, stored as recvcounts[j] elements at buf + rdispls[j] *
 * extent.  Counts and displacements are arbitrary (MPI_IN_PLACE only allows
 * the symmetric case): sendcounts[j] on this rank must describe as many
 * bytes as recvcounts[me] on rank j, displacements are >= 0, send regions
 * must not overlap each other, nor receive regions each other; a send region
 * may overlap any receive regions.  Bytes of buf in no receive region are
 * undefined afterwards; the others hold what was received.
 *
 * Extra memory: the aux budget plus O(p) integers, whatever the message
 * sizes (Hofmann & Ruenger, "An In-place Algorithm for Irregular All-to-All
 * Communication with Limited Memory", EuroMPI 2010).  options->algorithm is
 * not used: no other algorithm takes such layouts.
 */
int AIP_Alltoallv_general(void *buf, const int sendcounts[], const int sdispls[],
                          const int recvcounts[], const int rdispls[], MPI_Datatype datatype,
                          MPI_Comm comm);

/* The same with per-call options (NULL means AIP_OPTIONS_INIT). */
int AIP_Alltoall_opt(void *buf, int count, MPI_Datatype datatype, MPI_Comm comm,
                     const AIP_Options *options);
int AIP_Alltoall_oop_opt(const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, MPI_Comm comm, const AIP_Options *options);
int AIP_Alltoallv_opt(void *buf, const int counts[], const int displs[],
                      MPI_Datatype datatype, MPI_Comm comm, const AIP_Options *options);
int AIP_Alltoallw_opt(void *buf, const int counts[], const int displs[],
                      const MPI_Datatype datatypes[], MPI_Comm comm,
                      const AIP_Options *options);
int AIP_Alltoallv_general_opt(void *buf, const int sendcounts[], const int sdispls[],
                              const int recvcounts[], const int rdispls[],
                              MPI_Datatype datatype, MPI_Comm comm, const AIP_Options *options);

/*
 * Plans: a call's layout agreed on and its workspace allocated once, for
 * repeated exchanges of the same layout (MPI-4's persistent collectives,
 * without binding the buffer).  AIP_*_init is collective and checks
 * everything AIP_* checks, but buf; each AIP_Plan_execute (collective) then
 * runs the exchange on the buf it is given with no other communication: no
 * agreement, no allocation, no getenv.  The plan holds the aux buffer and
 * O(p) arrays (AIP_Plan_bytes) until AIP_Plan_free.
 */
typedef struct AIP_Plan_s *AIP_Plan;
int AIP_Alltoall_init(int count, MPI_Datatype datatype, MPI_Comm comm,
                      const AIP_Options *options, AIP_Plan *plan);
int AIP_Alltoallv_init(const int counts[], const int displs[], MPI_Datatype datatype,
                       MPI_Comm comm, const AIP_Options *options, AIP_Plan *plan);
int AIP_Alltoallw_init(const int counts[], const int displs[], const MPI_Datatype datatypes[],
                       MPI_Comm comm, const AIP_Options *options, AIP_Plan *plan);
int AIP_Alltoallv_general_init(const int sendcounts[], const int sdispls[],
                               const int recvcounts[], const int rdispls[],
                               MPI_Datatype datatype, MPI_Comm comm,
                               const AIP_Options *options, AIP_Plan *plan);
int AIP_Plan_execute(AIP_Plan plan, void *buf);

/*
 * Nonblocking execution (MPI-4's MPI_Start, MPI_Test and MPI_Wait on a
 * persistent collective): AIP_Plan_start begins the exchange on buf and
 * returns; the exchange advances only inside AIP_Plan_test and
 * AIP_Plan_wait (the library has no thread of its own), so a program that
 * computes meanwhile calls AIP_Plan_test now and then.  *flag becomes 1
 * once the exchange is complete; AIP_Plan_wait returns once it is.  Until
 * then buf belongs to the exchange: neither read nor write it.  The memory
 * is the plan's, as for AIP_Plan_execute (AIP_Plan_start allocates nothing).
 *
 * All ranks start the plans of a communicator in the same order, as MPI's
 * collectives; several may be in flight at once, on one communicator or
 * several, and other calls of the library and of MPI may run meanwhile.
 * Testing or waiting on a plan that is not executing returns at once with
 * *flag 1.  Starting or freeing a plan that is executing is an error
 * (MPI_ERR_REQUEST) that leaves it executing.  An error during the exchange
 * is returned by the test or wait that completes it, on every rank that
 * took part, as AIP_Plan_execute returns it.
 *
 * While executions are in flight, one thread at a time may call the library.
 *
 * Every algorithm advances in the background this way but the general
 * one with AIP_REQUESTS=alltoall, which runs the whole exchange inside
 * AIP_Plan_start, waiting for its partners there (so start those in the
 * same order on every rank, across communicators too).
 */
int AIP_Plan_start(AIP_Plan plan, void *buf);
int AIP_Plan_test(AIP_Plan plan, int *flag);
int AIP_Plan_wait(AIP_Plan plan);
/* Frees the plan and sets *plan to NULL (local). */
int AIP_Plan_free(AIP_Plan *plan);
/* The algorithm the plan runs, as chosen for its layout and nodes. */
AIP_Algorithm AIP_Plan_algorithm(AIP_Plan plan);
/* The memory the plan holds on this process: aux buffer and index arrays. */
size_t AIP_Plan_bytes(AIP_Plan plan);

/*
 * One-sided broadcast (Abuelsoud & Paznikov, "Improving the MPI remote
 * memory access model by a one-sided broadcast"): MPI_Bcast's result, the
 * data travelling by MPI_Put into the node leaders' window memory along a
 * tree of nodes, and read within a node from that one copy, which lives in
 * a shared-memory window.  The windows are made on the first call on `comm`
 * (collective, cached, freed with the communicator); their size is the aux
 * budget of that call, whatever the message size: larger messages are
 * pipelined through them in chunks.  Any datatype MPI_Bcast takes; errors
 * (root, count, datatype, mismatched sizes, options) are agreed on, so every
 * rank returns the same class.
 */
int AIP_Bcast_rma(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int AIP_Bcast_rma_opt(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      const AIP_Options *options);
/* "auto", "linear", "binomial", "binary"; NULL / MPI_ERR_ARG for unknown values. */
const char *AIP_Bcast_algorithm_name(AIP_Bcast_algorithm algorithm);
int AIP_Bcast_algorithm_from_name(const char *name, AIP_Bcast_algorithm *algorithm);

/* Names as the environment variables take them: "static", "pool"; "p2p",
 * "alltoall".  NULL / MPI_ERR_ARG for unknown values. */
const char *AIP_Aux_strategy_name(AIP_Aux_strategy strategy);
int AIP_Aux_strategy_from_name(const char *name, AIP_Aux_strategy *strategy);
const char *AIP_Requests_name(AIP_Requests requests);
int AIP_Requests_from_name(const char *name, AIP_Requests *requests);

#ifdef __cplusplus
}
#endif

#endif /* ALLTOALL_INPLACE_H */
