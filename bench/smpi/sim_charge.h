/*
 * sim_charge.h - FFTW's MPI transforms under SimGrid SMPI with their local
 * work charged, so that thousands of simulated ranks run the real MPI code
 * paths (FFTW's transpose solvers and ours) on one machine.
 *
 * What it does to the planner.  charge_install() wraps FFTW's planner: every
 * serial sub-plan that an MPI solver makes (the local FFTs of
 * rdft2-rank-geq2 and dft-rank1-bigvec, the local transposes of the
 * transpose solvers) comes back inside a proxy plan, which prints, wakes and
 * costs as the plan it holds, so the planner's choices are unchanged.  Each
 * distributed transpose that is not part of another one is wrapped in a
 * timer.  What a proxy does when the transform runs is the model:
 *
 *   CHARGE_RUN    the sub-plan runs, and SMPI charges the CPU time it
 *                 measures (smpi/simulate-computation on): the reference,
 *                 for small transforms whose arrays are real;
 *   CHARGE_MODEL  the sub-plan does not run; the rank is charged the time
 *                 that the first rank with the same sub-plans (rank 0, where
 *                 N0 divides by the ranks) measured for its own copy of it
 *                 (charge_calibrate), scaled to the simulated core.  Where
 *                 N0 does not divide, FFTW's blocks make a few kinds of
 *                 ranks (full blocks, the last one's rows, none), and one of
 *                 each measures.  The other ranks' arrays may be folded
 *                 (SMPI_SHARED_MALLOC): nothing reads them, and their pages
 *                 are real, so a folded rank can time a sub-plan on them.
 *
 * The exchange's own memory traffic (transpose-pairwise's copy of each
 * block into its buffer, our library's copy of each chunk into the ring) is
 * charged in CHARGE_MODEL by wrapping memcpy and memmove (a program that
 * links this file takes sim_charge.ldflags, the list of every --wrap it
 * needs: `smpicc ... @sim_charge.ldflags`): 2 bytes of traffic per byte
 * copied, at the simulated core's copy bandwidth.  In CHARGE_RUN SMPI
 * measures them with the rest of the CPU time.  SMPI's own copy of message
 * payloads is the network model's (links and loopback), not charged again.
 * The in-place permutations of tuples (our transposes' and pipelines' local
 * moves, tuple-cycles.c) are wrapped too (fftw_mpi_permute_tuples,
 * fftw_mpi_permute_tuple_cycles and their init functions): a cycle's
 * tuples lie far apart, and small ones ran up to 2x a memcpy of their
 * bytes, so in CHARGE_MODEL each is charged the time it took here on an
 * array of its own, per real moved, instead of running; charge_calibrate
 * times those planned (sim_charge.c).
 *
 * Times are split into the categories below; "exchange" is the time inside
 * the distributed transposes less their local transposes: the all-to-all
 * and its copies.
 */
#ifndef SIM_CHARGE_H
#define SIM_CHARGE_H

#include <fftw3.h>
#include <mpi.h>

typedef enum charge_mode { CHARGE_RUN, CHARGE_MODEL } charge_mode;

typedef enum charge_category {
    CHARGE_LOCAL_FFT,       /* serial sub-plans of the MPI DFT solvers */
    CHARGE_LOCAL_TRANSPOSE, /* serial sub-plans of the transpose solvers */
    CHARGE_EXCHANGE,        /* the transposes, less their local transposes */
    CHARGE_COPIES,          /* memcpy/memmove, counted within the above */
    CHARGE_CATEGORIES
} charge_category;

/* Wraps the planner (after fftw_mpi_init, before planning).  copy_bandwidth:
 * the simulated core's copy bandwidth in bytes/s (STREAM's convention: read
 * plus write), for memcpy and memmove.  fold: this rank's arrays are
 * folded, so copies of 64 KiB or more are charged without being made. */
void charge_install(charge_mode mode, double copy_bandwidth, int fold);

/* CHARGE_MODEL (collective): the first rank of each kind (the ranks whose
 * sub-plans are the same, signature by signature) runs each of its live
 * sub-plans on its arrays and times it, on rank 0's file scale; every rank
 * of the kind charges those times times `slowdown` (the simulated core's
 * time for this machine's second).  Returns this rank's kind's measured
 * total, in seconds.  cache (or null): a file of measurements, by
 * sub-plan, that the measuring ranks read before measuring and add to
 * after, so that every run of a sweep charges one sub-plan the same time
 * (this machine's noise would otherwise differ between the variants
 * compared). */
double charge_calibrate(MPI_Comm comm, double slowdown, const char *cache);

/* The rank's array of `reals` doubles from `start`, where its sub-plans
 * work (before charge_calibrate).  A sub-plan with one vector dimension
 * that fits in it again and again past its planned place, as the
 * pipelined solvers' groups of lines and columns tile a row, is a piece:
 * it is timed in a run of up to 32 such pieces, one after the other from
 * memory, and charged its share, under a key of its own ("in runs of N").
 * Without this call every sub-plan is timed alone. */
void charge_array(const double *start, size_t reals);

/* The calibration file's times may be another machine's (docs/results.md:
 * when the machine that made the first rows was gone, each case's entries
 * were scaled so that those rows keep their local work), and a sub-plan
 * timed here for the first time must be put on the same scale, or a new
 * variant's local work is charged at this machine's speed against the
 * others' at that one (the pipelined transforms' pieces were: 1.6x at
 * JuRoPA's 128 ranks).  references: serial plans that stand for the case's
 * local work (fftw_sim: FFTW's own local FFTs of the transform), made by
 * rank 0 on its real arrays.  The references are timed here once per
 * boot of this machine (best of 3, from memory, kept in the file under
 * the boot's id, so that the runs of a sweep share one scale), and the
 * file's times of those it has over their times
 * here become the factor that every time measured afterwards (a sub-plan
 * or a permutation the file does not time yet) is multiplied by; those it
 * lacks are stored at that scale.  The permutations are met only as the
 * transform runs, so the factor is found whether or not the sub-plans are
 * all in the file.  Rank 0, before charge_calibrate; returns the factor
 * (1: no reference in the file). */
double charge_file_scale(const char *cache, fftw_plan const *references, int count);

/* This machine's clock in seconds, not SMPI's simulated one. */
double charge_real_seconds(void);

/* This machine's time of run(arg), as charge_calibrate times a sub-plan:
 * the better of two runs, each from memory (the caches evicted first), or
 * the time cached under `key` in the file `cache` (either may be null),
 * where it is stored once measured. */
double charge_measure(const char *key, const char *cache, void (*run)(void *), void *arg);

/* CHARGE_MODEL: charges `seconds` of local work that a program does outside
 * FFTW's plans (SMPI drops bursts below smpi/cpu-threshold, so short ones
 * add up until they pass it). */
void charge_local(double seconds);

/* This machine's copy bandwidth (read plus write): the best of 10 memcpy of
 * `bytes` bytes, in bytes/s. */
double charge_measure_copy_bandwidth(size_t bytes);

/* The same on 256 MiB, read from or added to the cache file (or null) of
 * charge_calibrate. */
double charge_here_copy_bandwidth(const char *cache);

/* Accounting of one timed execution: reset, then read (seconds of
 * simulated time per category, this rank's, with the estimate of the steps
 * that a sampled simulation left out in CHARGE_EXCHANGE and CHARGE_COPIES). */
void charge_begin(void);
void charge_end(double seconds[CHARGE_CATEGORIES]);

/*
 * Sampled simulation, so that 1024 ranks simulate in minutes: each exchange
 * runs its first and last `every` steps and one step in each window of
 * `every` between them (1: all).  The ranks' mean time of the middle part
 * is scaled, per exchange, by its steps over those that ran (each rank's
 * deviation from the mean kept as it ran); the added time is in
 * charge_end's exchange and copies, and charge_left_out() says how much of it
 * there was (add it to the transform's time).  Steps left out move no data.
 */
void charge_sample(int every);
double charge_left_out(void);

/* The hooks of the exchanges (FFTW's transpose-pairwise with
 * bench/smpi/fftw-sampled-rounds.patch, liballtoall_inplace built with
 * -DAIP_SAMPLED_SIMULATION=1): an exchange of `steps` global steps begins;
 * whether this rank runs its step `step` (asked for every step of the
 * global sequence, idle ones too, in order; every rank decides alike, so
 * partners agree); it ends. */
void sim_sample_begin(int steps);
int sim_sample_step(int step);
void sim_sample_end(void);

#endif /* SIM_CHARGE_H */
