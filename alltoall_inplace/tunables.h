/*
 * tunables.h - every knob of the library, with its default and help text,
 * in one place.
 *
 * Environment variables change the defaults of calls that do not set the
 * option themselves (AIP_Options); they are read at each call, so the
 * library holds no mutable global configuration (the PMPI layer's two
 * switches below are the exception).  AIP_FAULT_ALLOC, a hook
 * for tests rather than an option, is read once per process (call/alloc.c).
 *
 *   X(field, environment variable, default, help)
 */
#ifndef AIP_TUNABLES_H
#define AIP_TUNABLES_H

#define AIP_FAULT_ALLOC_ENV "AIP_FAULT_ALLOC"

#define AIP_ENV_TUNABLES(X)                                                             \
    X(algorithm, "AIP_ALGORITHM", "auto",                                               \
      "exchange algorithm, a row of select/algorithms.c (node-aware ones and the "      \
      "hypercube run for AIP_Alltoall only, hsa elsewhere; AIP_Alltoallv_general "      \
      "always runs general)")                                                           \
    X(aux_bytes, "AIP_AUX_BYTES", "1M",                                                 \
      "extra memory per process and call, in bytes (suffix K, M or G for KiB, MiB, "    \
      "GiB); 0 = the smallest workable buffer")                                         \
    X(aux_strategy, "AIP_AUX_STRATEGY", "pool",                                         \
      "AIP_Alltoallv_general's use of the budget: static (b buffers, rank j in buffer "  \
      "j mod b) | pool (one buffer, the largest remaining message first)")              \
    X(aux_buffers, "AIP_AUX_BUFFERS", "0",                                              \
      "b, the number of buffers of the static strategy; 0 = max(1, p/8)")              \
    X(requests, "AIP_REQUESTS", "p2p",                                                  \
      "AIP_Alltoallv_general's request exchange: p2p (messages to the ranks still "     \
      "exchanging with me) | alltoall (one MPI_Alltoall per phase; a nonblocking "      \
      "execution then completes inside AIP_Plan_start)")                               \
    X(ranks_per_node, "AIP_RANKS_PER_NODE", "0",                                        \
      "nodes of the node-aware algorithms: k groups consecutive ranks into nodes of k; "  \
      "0 = the nodes MPI_COMM_TYPE_SHARED finds")                                      \
    X(bcast_algorithm, "AIP_BCAST_ALGORITHM", "auto",                                   \
      "AIP_Bcast_rma's tree among nodes: auto | linear | binomial | binary")            \
    X(debug, "AIP_DEBUG", "0",                                                          \
      "1: rank 0 prints each call's algorithm, budget and chunk size to stderr")        \
    X(fault_alloc, AIP_FAULT_ALLOC_ENV, "",                                             \
      "for tests, read once per process: r:k makes the k-th allocation of the library " \
      "on MPI_COMM_WORLD rank r fail; count prints each rank's number of allocations "  \
      "at exit")

/* The PMPI layer's switches (liballtoall_inplace_pmpi, pmpi/pmpi.c): 0 or 1, read
 * once per process, at the layer's first call, and agreed by the ranks of a communicator
 * at its first call they govern (a call goes to ours or to MPI's on all; a bad value on
 * any rank, or values that differ, is MPI_ERR_ARG on every rank).
 *   X(field, environment variable, default, help) */
#define AIP_PMPI_TUNABLES(X)                                                            \
    X(in_place, "AIP_PMPI_IN_PLACE", "1",                                               \
      "1: MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw with MPI_IN_PLACE run ours "    \
      "(extra memory: the aux budget); 0: MPI's own")                                  \
    X(out_of_place, "AIP_PMPI_OUT_OF_PLACE", "0",                                       \
      "1: out-of-place MPI_Alltoall with the same count and datatype on both sides "   \
      "runs ours too (AIP_Alltoall_oop: the node-aware algorithms on several nodes); "  \
      "0: MPI's own")

/* Built-in constants (compile time). */

/* The budget that "0 = smallest workable buffer" stands for: two chunks of
 * one cache line each.  Smaller chunks only add per-message overhead. */
#define AIP_AUX_BYTES_MIN 128

/* The budget is cut into this many chunks at least, so that copying the next
 * chunk out overlaps with the transfer of the previous one. */
#ifndef AIP_PIPELINE_DEPTH
#define AIP_PIPELINE_DEPTH 2
#endif

/* Largest message we send.  A larger budget buys more chunks in flight, not
 * larger ones: a chunk copied out should still be in cache when MPI reads it.
 * Measured (bench, 2 ranks, 64 MiB): 64 KiB to 1 GiB chunks are within noise
 * with a 1 MiB budget; with 16 MiB, 256 KiB chunks are ~10% faster than 8 MiB. */
#ifndef AIP_CHUNK_BYTES_MAX
#define AIP_CHUNK_BYTES_MAX (256LL << 10)
#endif

/* More transfers in flight than this add request handles, not speed. */
#define AIP_MAX_CHUNKS_IN_FLIGHT 4096

/* What AIP_ALGORITHM=auto runs for AIP_Alltoall on several nodes of several
 * ranks (decision.c): the leader-based exchange for blocks up to
 * AIP_AUTO_L_MAX_BYTES, SA up to AIP_AUTO_SA_MAX_BYTES, hsa above.
 * Measured with bench/smpi_sweep.sh on 8 nodes x 8 cores, simulated us
 * with our CPU time charged (NODES=8 CORES=8 MIN=1K MAX=8K METHODS=hsa,sa):
 * sa against hsa 451 against 578 at 1 KiB, 933 against 943 at 2 KiB, 1933
 * against 1793 at 4 KiB, as the paper saw SA ahead up to 2 KiB.  l 114-125
 * against sa 183-203 for 8-32 B (the first, permuting SA; MAX=1K).  Without
 * charged CPU time (smpi_scaling.sh's setting) sa is 4-10 us ahead of l
 * there: L's gain is the CPU time of one exchange instead of two, and on
 * offload NICs fewer concurrent senders (the paper). */
#define AIP_AUTO_L_MAX_BYTES 32
#define AIP_AUTO_SA_MAX_BYTES 2048

/* AIP_ALGORITHM=auto runs the hypercube for AIP_Alltoall on nodes of one
 * rank each, at least AIP_AUTO_HYPERCUBE_MIN_RANKS of them, with blocks of
 * at most AIP_AUTO_HYPERCUBE_MAX_BYTES (decision.c).  Measured with
 * bench/smpi_sweep.sh, plans (-plan methods: the exchange alone), CPU time
 * not charged (SMPI_CFG=--cfg=smpi/simulate-computation:no), simulated us,
 * hypercube against hsa: 8 x 1 ranks 6.7/7.0 at 8 B, 7.2/7.1 at 64 B (a tie
 * from 64 B); 16 x 1 9.1/15.0 at 8 B, 12.1/15.4 at 128 B, 15.3/15.8 at
 * 256 B; 64 x 1 14.5/63.1 at 8 B, 32.6/64.6 at 128 B, 52.0/66.2 at 256 B,
 * 90.8/69.5 at 512 B.  On 64 nodes x 8 ranks SA beats it (71.5 against 80.5
 * at 8 B): each byte crosses the node's shared link log2(64)/2 = 3 times,
 * so auto keeps SA and L there (bench/figures/hypercube/hypercube_*.dat). */
#define AIP_AUTO_HYPERCUBE_MIN_RANKS 16
#define AIP_AUTO_HYPERCUBE_MAX_BYTES 128

/* AIP_Bcast_rma cuts its window (the aux budget) into this many slots of
 * one chunk each: a leader receives chunk k + 1 into one while it forwards
 * chunk k from another and its node's ranks still read chunk k - 1 from the
 * third (bcast/bcast_rma.c). */
#define AIP_BCAST_SLOTS 3

/* AIP_Bcast_rma's largest chunk: smaller chunks let a deep tree start
 * forwarding sooner, larger ones pay fewer synchronisations per byte; 128 KiB
 * chunks keep the binary tree within 1.1x of SMPI's MPI_Bcast at 16 MiB on
 * 64 nodes of one rank (bench/figures/bcast/bcast_smpi_*). */
#define AIP_BCAST_CHUNK_BYTES_MAX (128LL << 10)

/* What AIP_BCAST_ALGORITHM=auto runs (bcast/bcast_rma.c): the binary tree,
 * the paper's fastest and the fastest of ours almost everywhere.  Measured
 * with bench/smpi_sweep.sh (SWEEP=bcast, CPU time not charged), simulated
 * us, linear / binomial / binary: 16 x 1 ranks 35.9 / 35.6 / 32.5 at 16 B;
 * 64 x 1 113 / 59.1 / 49.0 at 16 B, 39 000 / 4 930 / 2 021 at 1 MiB; 8
 * nodes x 8 ranks 50.2 / 60.3 / 58.7 at 4 KiB, 315 / 293 / 264 at 64 KiB.
 * Only on up to 8 nodes and below 16 KiB is the linear tree ahead (8 x 8:
 * 39.4 against 50.0 at 16 B), but on the namespace test bed (Open MPI over
 * UCX's TCP) its root's epoch to three one-rank hosts stalls for 5 ms at
 * every size, reproducibly, where the binary tree takes 120 us: auto does
 * not take it (bench/figures/ *bcast* tables). */
#define AIP_BCAST_AUTO_TREE AIP_BCAST_BINARY

/* 1: wait for transfers in MPI_Waitall instead of polling MPI_Testsome and
 * yielding the core (exchange.c).  For simulators: SimGrid's SMPI charges
 * every test simulated time and slows the simulation itself
 * (bench/smpi_sweep.sh builds with -DAIP_BLOCKING_WAIT=1). */
#ifndef AIP_BLOCKING_WAIT
#define AIP_BLOCKING_WAIT 0
#endif

/* 1: the executor runs only the steps that a simulation harness picks, and
 * tells it where each exchange begins and ends (aip_exchange and
 * aip_exchange_segments; the hooks are bench/smpi/sim_charge.h's).  For
 * sampled simulations of large runs (bench/fftw_smpi.sh SAMPLE=k), never for
 * use: the steps left out move no data. */
#ifndef AIP_SAMPLED_SIMULATION
#define AIP_SAMPLED_SIMULATION 0
#endif

/* Tags of our messages, on the library's private duplicate of the
 * communicator: each execution of a plan (a one-shot call's too) takes
 * AIP_TAGS_PER_EXECUTION of them, the next of AIP_EXECUTIONS_IN_FLIGHT
 * ranges from AIP_TAG on, so that executions in flight together on one
 * communicator keep their messages apart (call/comm.c): up to that many
 * may be in flight at once. */
#define AIP_TAG 6271
#define AIP_TAGS_PER_EXECUTION 2
#define AIP_EXECUTIONS_IN_FLIGHT 64

#endif /* AIP_TUNABLES_H */
