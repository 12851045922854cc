/*
 * gups.c - the HPCC RandomAccess benchmark (GUPS: giga-updates per second)
 * with HPCC's reference algorithm and the synchronous hypercube algorithm of
 * Plimpton, Brightwell, Vaughan, Underwood & Davis, "A Simple Synchronous
 * Distributed-Memory Algorithm for the HPCC RandomAccess Benchmark"
 * (Cluster 2006; shared/papers/003_2d49ba2dfed9d955.txt).
 *
 * The rules (the paper's Sect. 2, HPCC's RandomAccess):
 *   - a global table of N = 2^n 64-bit words, table[i] = i at the start,
 *     block-distributed over the P ranks as HPCC does it: every rank holds
 *     floor(N/P) words, the first N mod P ranks one more (rank r starts at
 *     r*floor(N/P) + min(r, N mod P)).  The owner of an index is a shift
 *     for a power-of-two P and one division otherwise.  n is --log2-table,
 *     or the largest with N <= P * 2^--log2-local, or from --memory (the
 *     table fills about half of it, as HPCC sizes it);
 *   - 4N updates, table[ran & (N-1)] ^= ran, where ran runs through the
 *     GF(2) sequence ran' = (ran << 1) ^ (ran < 0 ? 7 : 0) (multiplication
 *     by x modulo x^64 + x^2 + x + 1, period 1317624576693539401) from
 *     ran = 1; update k uses x^(k+1).  Each rank generates a contiguous share
 *     of the stream, 4 x (its share of the table) updates from position
 *     4 x (its first index), as HPCC does; it jumps to its start by
 *     computing x^k by repeated squaring (gf2_power below, written from the
 *     algebra; rank 0 checks it against the stepped sequence, and
 *     x^period = 1, at every start);
 *     (--stream-offset K, outside the rules, shifts every share K values
 *     along the stream.  Why: the rules start the ranks at x^(4 r N/P), and
 *     x^(2^j r) for small r is a sparse polynomial (Frobenius: squaring
 *     spreads no bits), so the first thousands of values of every share
 *     index the first words of the table, all owned by rank 0.  In HPCC's
 *     runs of 2^30 updates a rank that is negligible; in this program's
 *     short runs of a few batches rank 0 then receives 2-9 Q datums a batch
 *     (P = 64, 2^10 words a rank) and the synchronous algorithms wait for
 *     it.  An offset such as 25214903917 (0x5DEECE66D) makes every share
 *     dense from the start: the window of a long run);
 *   - look-ahead: a rank generates at most Q updates (--lookahead, 1024 by
 *     the rules) before they must be applied.  Q > 1024 is allowed for the
 *     paper's Table 4 sweep and is printed as "outside the rules";
 *   - verification: the table is reset to i, the timed algorithm runs, and
 *     then the same 4N updates are applied once more by an independent
 *     method (--verify alltoallv: rounds of MPI_Alltoallv of the MPI
 *     library, owner-computes), which undoes them, since XOR is its own
 *     inverse and updates commute; entries != i are errors.  HPCC accepts
 *     up to 1% of errors (races of shared-memory updates); both algorithms
 *     here are exact, so the program fails on any error.  (--verify same
 *     runs the second pass with the algorithm under test: cheaper under
 *     SMPI, but blind to an update that the algorithm loses both times.)
 *
 * Algorithms (--algorithms, any of them in one run, one after the other):
 *
 *   reference  HPCC's unoptimized MPI algorithm (the paper's Sect. 2): a
 *              rank generates a batch of Q updates, applies its own at once
 *              and puts the others in per-destination buckets (one batch
 *              array, counting-sorted by destination: a bucket is a
 *              segment of it, so the buffers take 2Q words, not P x Q);
 *              at the end of the batch every non-empty bucket goes out with
 *              MPI_Isend.  One receive of Q words is pre-posted from
 *              MPI_ANY_SOURCE and polled with MPI_Test after every batch;
 *              a rank that must wait for its own sends waits in MPI_Waitany
 *              on them and the receive; an arrived bucket is applied and
 *              the receive posted again.  The two batch arrays
 *              alternate, a rank waits (polling) for a batch's sends before
 *              refilling its array.  Termination: when a rank has generated
 *              everything and its sends have completed, it sends a
 *              zero-length "done" message to every other rank and polls
 *              until it has received P - 1 of them; MPI's non-overtaking
 *              order (one source, one communicator, a receive of
 *              MPI_ANY_TAG) puts a rank's "done" behind all its data.
 *              P - 1 messages per batch at most; on many ranks they carry a
 *              word or two each, so latency dominates (the paper's Table 1).
 *
 *   hypercube  The paper's Fig. 2 for a power-of-two P: per batch of Q
 *              generated updates, for each dimension d of the hypercube the
 *              list is split by bit d of the destination rank (bit
 *              n - log2 P + d of ran) into a keep-list and a send-list, the
 *              send-list goes to partner me ^ 2^d, the received list joins
 *              the keep-list; after log2 P stages every datum is at its
 *              owner, which applies them.  Implemented optimizations
 *              (the paper's Sect. 4):
 *                Mod1  the receives of all log2 P stages are posted before
 *                      the batch's exchange begins, each into a buffer of a
 *                      known maximum size C (below);
 *                Mod2  nothing but splitting and copying between the
 *                      sends and receives; the updates after the last stage;
 *                Mod3  the wait for a stage's receive comes as late as
 *                      possible: the keep-list is split for the next stage
 *                      before it, and the received datums are split
 *                      directly into the next stage's lists;
 *                Mod7  double-buffered send-lists (the list of stage d is
 *                      not reused before stage d + 2, when its MPI_Isend
 *                      is waited for) and keep-lists, nonblocking sends.
 *              Mod4-Mod6 are changes of the MPI library, not of the code.
 *              For a P that is not a power of two it runs the Bruck-style
 *              variant below (as "bruck" does).
 *
 *   bruck      ceil(log2 P) stages for any P, after Bruck, Ho, Kipnis &
 *              Weathersby (SPAA 1994), the paper's ref. [2], which its
 *              Sect. 5 names for the non-power-of-two case: at stage k every
 *              datum whose remaining distance (owner - me) mod P has bit k
 *              set goes to (me + 2^k) mod P; the rank receives from
 *              (me - 2^k) mod P.  A datum that moves loses bit k of its
 *              distance and keeps the higher ones, so after ceil(log2 P)
 *              stages every distance is 0.  Chosen over the paper's
 *              recursive halving with odd partitions because every stage is
 *              still one send and one receive per rank (the odd partitions
 *              need two of each, the extra messages the paper blames for
 *              its non-power-of-two rates), the lists are split by the same
 *              kind of test, about half the datums move per stage as in the
 *              hypercube, and the code is the hypercube's with two partners
 *              instead of one.  The cost: the owner is a division per datum
 *              and stage, and the partners are not pairs, so a stage's send
 *              and receive are with different ranks.  Usable (and tested)
 *              for any P, powers of two included.
 *
 * Message sizes in the hypercube and Bruck algorithms vary from stage to
 * stage and from batch to batch: on average a stage moves Q/2 datums, but a
 * rank's list can grow past Q (the paper's footnote 1: Q' > Q; all datums of
 * 2^d ranks may meet at stage d; and the stream's first values, sparse
 * polynomials x^k, all index the first words of the table).  Every message
 * carries at most C = 2Q + 8 words (--message-max), the size of the
 * pre-posted receive buffers; a longer send-list goes out as several
 * messages of C words and one shorter one (possibly empty), and a receiver
 * that gets exactly C words receives again from the same source and tag.
 * No counts are exchanged, so a stage costs one message latency.  Memory:
 * log2 P receive buffers of C words, two send-lists and two keep-lists of
 * about Q words each, which grow (by doubling) only if the random data needs
 * more; the largest final list Q' is reported (maxQ').
 *
 * Trade-offs.  The reference algorithm sends up to P - 1 small messages per
 * batch and no datum twice; the hypercube sends log2 P messages of about
 * Q/2 datums, each datum about (log2 P)/2 times, plus the copying of the
 * splits.  For large P and Q = 1024 the latencies saved far outweigh the
 * extra volume (the paper's model, T_P = T_1 + T_C log2 P per batch).  The
 * hypercube is synchronous: a slow rank holds up its partners at every
 * stage, where the reference lets ranks drift.
 *
 * Output: one line per algorithm (P, table size, updates, Q, time as the
 * slowest rank's, GUPS = updates / time / 1e9, verification errors), or with
 * --table a '#' header and one row per algorithm for scripts.  --checksum
 * adds a digest of the whole final table before verification (a sum over
 * entries of a hash of index and value: the same for any P and any order of
 * updates, so the algorithms and rank counts can be compared).
 * --skip-update K loses the update at stream position K in the timed pass:
 * a wrong run, which verification and the checksum must notice.
 *
 * Under SimGrid's SMPI (bench/gups_figures.sh builds it with smpicc) the
 * ranks' computation is by default charged as measured on the machine that
 * runs the simulation; with 64+ ranks taking turns on one core every burst
 * starts with cold caches and short bursts are inflated by the timers, so
 * --model-ns G,U,M charges instead (smpi_execute) G ns per value generated,
 * U per table update (applying a datum) and M per datum moved (bucketed,
 * split, appended), with smpi/simulate-computation:no.  gups_figures.sh uses
 * 1,50,1: the update costs a DRAM miss of a table far larger than the
 * caches, as in HPCC's runs (the paper's T_1 = 56.9 us per 1024 updates on
 * Red Storm; the model's 52 us), while the simulated table stays small.
 * Verification is not charged (outside the timing anyway).
 *
 * Exit status: 0; 1 if verification found errors; 2 for bad options;
 * 3 (MPI_Abort) after an MPI error or when memory runs out.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "bench_util.h"

/* ---- The random stream: GF(2)[x] modulo x^64 + x^2 + x + 1 ---- */

#define GUPS_POLY UINT64_C(7)
#define GUPS_PERIOD UINT64_C(1317624576693539401)

/* ran * x: the benchmark's generator step. */
static inline uint64_t gf2_next(uint64_t ran)
{
    return (ran << 1) ^ ((int64_t)ran < 0 ? GUPS_POLY : 0);
}

/* a * b modulo the polynomial, by Horner's rule over b's coefficients. */
static uint64_t gf2_multiply(uint64_t a, uint64_t b)
{
    uint64_t product = 0;
    for (int bit = 63; bit >= 0; bit--) {
        product = gf2_next(product);
        if ((b >> bit) & 1)
            product ^= a;
    }
    return product;
}

/* x^k: the stream's value before update k (update k uses gf2_next of it),
 * by repeated squaring; the stream repeats after GUPS_PERIOD values. */
static uint64_t gf2_power(uint64_t k)
{
    uint64_t result = 1, square = 2; /* x^0, x^1 */
    for (k %= GUPS_PERIOD; k; k >>= 1) {
        if (k & 1)
            result = gf2_multiply(result, square);
        square = gf2_multiply(square, square);
    }
    return result;
}

/* The jump agrees with the stepped stream and the period is one: 0 if not. */
static int gf2_self_check(void)
{
    uint64_t ran = 1;
    for (uint64_t k = 0; k < 1000; k++, ran = gf2_next(ran))
        if (gf2_power(k) != ran)
            return 0;
    ran = gf2_power(UINT64_C(1) << 40);
    for (int k = 0; k < 1000; k++)
        ran = gf2_next(ran);
    return ran == gf2_power((UINT64_C(1) << 40) + 1000) && gf2_power(GUPS_PERIOD) == 1 &&
           gf2_power(GUPS_PERIOD + 5) == 32;
}

/* ---- Options ---- */

enum { ALG_REFERENCE, ALG_HYPERCUBE, ALG_BRUCK, N_ALGORITHMS };
static const char *const algorithm_names[N_ALGORITHMS] = { "reference", "hypercube", "bruck" };
enum { VERIFY_ALLTOALLV, VERIFY_SAME, VERIFY_NONE };
enum { RULES_LOOKAHEAD = 1024 };

typedef struct options {
    int log2_local;        /* -l; -1 if --log2-table or --memory decides */
    int log2_table;        /* -n; -1 if not given */
    long long memory;      /* -m bytes per rank; 0 if not given */
    int lookahead;         /* -q */
    int algorithms[N_ALGORITHMS], n_algorithms;
    int verify;            /* VERIFY_* */
    int reps;              /* -r */
    int checksum, table;   /* --checksum, --table */
    long long skip_update; /* --skip-update; -1 for none */
    int message_max;       /* --message-max; 0: 2Q + 8 */
    uint64_t stream_offset; /* --stream-offset; 0 by the rules */
    double model_ns[3];    /* --model-ns: generate, update, move; all 0: none */
} options;

static void print_usage(FILE *out)
{
    fputs("usage: gups [OPTIONS]\n"
          "HPCC RandomAccess (GUPS): HPCC's reference MPI algorithm and the hypercube\n"
          "algorithm of Plimpton et al. (Cluster 2006), verified.\n"
          "  -l, --log2-local L     table of about 2^L words per rank: the global table\n"
          "                         is the largest power of two <= P * 2^L words [16]\n"
          "  -n, --log2-table N     global table of exactly 2^N words (same on any P)\n"
          "  -m, --memory SIZE      memory per rank (64M, 1G): the table fills about half\n"
          "                         of it (largest power of two <= P * SIZE / 16 words)\n"
          "  -q, --lookahead Q      updates generated before they must be applied [1024];\n"
          "                         Q > 1024 is outside the benchmark's rules (flagged)\n"
          "  -a, --algorithms LIST  comma list of reference, hypercube (a power-of-two P;\n"
          "                         else it runs bruck), bruck (any P) [reference,hypercube]\n"
          "  -r, --reps R           timed runs per algorithm, the fastest reported [1]\n"
          "      --verify MODE      alltoallv (undo the updates with MPI_Alltoallv), same\n"
          "                         (undo them with the algorithm itself), none [alltoallv]\n"
          "      --checksum         print a digest of the final table (before verification)\n"
          "      --table            a '#' header and one row per algorithm, for scripts\n"
          "      --skip-update K    lose update K of the stream in the timed pass (a test\n"
          "                         of verification: it must report 1 error)\n"
          "      --stream-offset K  the updates are values K+1 .. K+4N of the stream, not\n"
          "                         1 .. 4N: a slice of a long run (outside the rules) [0]\n"
          "      --model-ns G,U,M   under SMPI: charge G ns per generated value, U per table\n"
          "                         update, M per datum moved between lists, instead of\n"
          "                         the measured time (run with smpi/simulate-computation:no)\n"
          "      --message-max C    hypercube and bruck: at most C datums a message, the\n"
          "                         size of the pre-posted receives [2Q + 8]; longer lists\n"
          "                         go as several messages (small C tests that path)\n"
          "  -h, --help             this text\n"
          "Exit status: 0; 1 if verification found errors; 2 for bad options.\n",
          out);
}

static parse_status parse_algorithms(const char *list, options *opt, char *why, size_t why_size)
{
    char item[32];
    int got;
    opt->n_algorithms = 0;
    while ((got = next_item(&list, item, sizeof item)) != 0) {
        int found = -1;
        for (int a = 0; got > 0 && a < N_ALGORITHMS; a++)
            if (strcmp(item, algorithm_names[a]) == 0)
                found = a;
        if (found < 0 || opt->n_algorithms == N_ALGORITHMS) {
            snprintf(why, why_size, "unknown or repeated algorithm '%s'", got > 0 ? item : list);
            return PARSE_ERROR;
        }
        opt->algorithms[opt->n_algorithms++] = found;
    }
    if (opt->n_algorithms == 0) {
        snprintf(why, why_size, "no algorithm");
        return PARSE_ERROR;
    }
    return PARSE_OK;
}

/* -l, -n and -m each decide the table's size, the last one given wins. */
static int parse_log2_local(const char *value, void *opt_, char *why, size_t why_size)
{
    options *opt = opt_;
    unsigned long long n;
    if (!parse_number(value, 0, 40, &n)) {
        snprintf(why, why_size, "-l \"%s\" is not a number from 0 to 40", value);
        return 0;
    }
    opt->log2_local = (int)n, opt->log2_table = -1, opt->memory = 0;
    return 1;
}

static int parse_log2_table(const char *value, void *opt_, char *why, size_t why_size)
{
    options *opt = opt_;
    unsigned long long n;
    if (!parse_number(value, 0, 50, &n)) {
        snprintf(why, why_size, "-n \"%s\" is not a number from 0 to 50", value);
        return 0;
    }
    opt->log2_table = (int)n, opt->memory = 0;
    return 1;
}

static int parse_memory(const char *value, void *opt_, char *why, size_t why_size)
{
    options *opt = opt_;
    long long bytes = parse_bytes(value);
    if (bytes < 32) {
        snprintf(why, why_size, "-m \"%s\" is not a size of at least 32 bytes", value);
        return 0;
    }
    opt->memory = bytes, opt->log2_table = -1;
    return 1;
}

static int parse_skip_update(const char *value, void *opt, char *why, size_t why_size)
{
    unsigned long long n;
    if (!parse_number(value, 0, 1ULL << 52, &n)) {
        snprintf(why, why_size, "--skip-update \"%s\" is not a number from 0 to 2^52", value);
        return 0;
    }
    ((options *)opt)->skip_update = (long long)n;
    return 1;
}

static int parse_model_ns(const char *value, void *opt_, char *why, size_t why_size)
{
    options *opt = opt_;
    if (sscanf(value, "%lf,%lf,%lf", &opt->model_ns[0], &opt->model_ns[1], &opt->model_ns[2]) !=
            3 ||
        opt->model_ns[0] < 0 || opt->model_ns[1] < 0 || opt->model_ns[2] < 0) {
        snprintf(why, why_size, "--model-ns: three numbers G,U,M, not '%s'", value);
        return 0;
    }
#ifndef SMPI_SHARED_MALLOC
    snprintf(why, why_size, "--model-ns works only in a build with smpicc (SMPI)");
    return 0;
#endif
    return 1;
}

static int parse_verify(const char *value, void *opt_, char *why, size_t why_size)
{
    options *opt = opt_;
    if (strcmp(value, "alltoallv") == 0)
        opt->verify = VERIFY_ALLTOALLV;
    else if (strcmp(value, "same") == 0)
        opt->verify = VERIFY_SAME;
    else if (strcmp(value, "none") == 0)
        opt->verify = VERIFY_NONE;
    else {
        snprintf(why, why_size, "--verify: alltoallv, same or none, not '%s'", value);
        return 0;
    }
    return 1;
}

static int parse_algorithms_option(const char *value, void *opt, char *why, size_t why_size)
{
    return parse_algorithms(value, opt, why, why_size) == PARSE_OK;
}

#define FIELD(name) offsetof(options, name)
static const bench_option option_table[] = {
    { "-l", "--log2-local", OPTION_CUSTOM, 0, 0, 0, parse_log2_local },
    { "-n", "--log2-table", OPTION_CUSTOM, 0, 0, 0, parse_log2_table },
    { "-m", "--memory", OPTION_CUSTOM, 0, 0, 0, parse_memory },
    { "-q", "--lookahead", OPTION_INT, FIELD(lookahead), 1, 1 << 24, NULL },
    { "-r", "--reps", OPTION_INT, FIELD(reps), 1, 1000, NULL },
    { NULL, "--skip-update", OPTION_CUSTOM, 0, 0, 0, parse_skip_update },
    { NULL, "--stream-offset", OPTION_U64, FIELD(stream_offset), 0, UINT64_MAX, NULL },
    { NULL, "--model-ns", OPTION_CUSTOM, 0, 0, 0, parse_model_ns },
    { NULL, "--message-max", OPTION_INT, FIELD(message_max), 1, 1 << 26, NULL },
    { NULL, "--verify", OPTION_CUSTOM, 0, 0, 0, parse_verify },
    { "-a", "--algorithms", OPTION_CUSTOM, 0, 0, 0, parse_algorithms_option },
    { NULL, "--checksum", OPTION_FLAG, FIELD(checksum), 0, 0, NULL },
    { NULL, "--table", OPTION_FLAG, FIELD(table), 0, 0, NULL },
    { NULL, NULL, 0, 0, 0, 0, NULL },
};
#undef FIELD

static parse_status parse(int argc, char **argv, int nprocs, void *options_, char *why,
                          size_t why_size)
{
    options *opt = options_;
    *opt = (options){ .log2_local = 16, .log2_table = -1, .lookahead = RULES_LOOKAHEAD,
                      .algorithms = { ALG_REFERENCE, ALG_HYPERCUBE }, .n_algorithms = 2,
                      .verify = VERIFY_ALLTOALLV, .reps = 1, .skip_update = -1 };
    parse_status status = bench_parse_options(argc, argv, option_table, opt, why, why_size);
    if (status != PARSE_OK)
        return status;
    /* The global table: N = 2^n words, at least one per rank. */
    if (opt->log2_table < 0) {
        unsigned long long words = opt->memory ? (unsigned long long)opt->memory / 16
                                               : 1ULL << opt->log2_local;
        unsigned long long total = words * (unsigned long long)nprocs;
        int n = 0;
        while (n < 50 && (2ULL << n) <= total)
            n++;
        opt->log2_table = n;
    }
    if ((1ULL << opt->log2_table) < (unsigned long long)nprocs) {
        snprintf(why, why_size, "a table of 2^%d words has fewer words than the %d ranks",
                 opt->log2_table, nprocs);
        return PARSE_ERROR;
    }
    return PARSE_OK;
}

/* ---- The distribution ---- */

typedef struct gups {
    MPI_Comm comm;
    int me, nprocs, log2_procs; /* log2_procs: -1 unless P is a power of two */
    int stages;                 /* ceil(log2 P) */
    int log2_table;
    uint64_t table_size, index_mask;
    uint64_t base, remainder;  /* floor(N/P), N mod P */
    uint64_t first, local;     /* this rank's first index and number of words */
    uint64_t *table;
    uint64_t first_update, n_updates; /* this rank's share of the stream */
    int lookahead, capacity;          /* Q, C = the largest message in words */
    long long skip_update;            /* position lost by the timed pass, or -1 */
    uint64_t misrouted;               /* datums that reached a rank not their owner */
    uint64_t max_list;                /* the largest final list (Q') */
    double model_s[3];                /* --model-ns in seconds; 0: measured */
} gups;

/* Under SMPI with --model-ns: count values generated, updates applied and
 * datums moved at the model's cost (smpi_execute), see the opening comment. */
enum { COST_GENERATE, COST_UPDATE, COST_MOVE };
static inline void charge(const gups *g, int what, size_t count)
{
#ifdef SMPI_SHARED_MALLOC /* smpicc's mpi.h */
    if (g->model_s[what] > 0 && count)
        smpi_execute(g->model_s[what] * (double)count);
#else
    (void)g, (void)what, (void)count;
#endif
}

static uint64_t first_index(const gups *g, int rank)
{
    uint64_t r = (uint64_t)rank;
    return r * g->base + (r < g->remainder ? r : g->remainder);
}

static inline int owner(const gups *g, uint64_t index)
{
    if (g->log2_procs >= 0)
        return (int)(index >> (g->log2_table - g->log2_procs));
    uint64_t split = (g->base + 1) * g->remainder;
    return index < split ? (int)(index / (g->base + 1))
                         : (int)(g->remainder + (index - split) / g->base);
}

static inline void apply(gups *g, uint64_t ran)
{
    uint64_t local = (ran & g->index_mask) - g->first;
    if (local < g->local)
        g->table[local] ^= ran;
    else
        g->misrouted++;
}

static void reset_table(gups *g)
{
    for (uint64_t i = 0; i < g->local; i++)
        g->table[i] = g->first + i;
}

/* The next count updates of this rank's stream into out[]; the one at
 * g->skip_update is left out.  Returns how many were written. */
static size_t generate(const gups *g, uint64_t *ran, uint64_t *position, size_t count,
                       uint64_t *out)
{
    size_t n = 0;
    uint64_t r = *ran;
    for (size_t i = 0; i < count; i++) {
        r = gf2_next(r);
        if ((long long)(*position + i) != g->skip_update)
            out[n++] = r;
    }
    *ran = r;
    *position += count;
    charge(g, COST_GENERATE, count);
    return n;
}

static void check(int err, const char *what)
{
    check_mpi(err, what);
}

/* ---- Growable lists ---- */

typedef struct list {
    uint64_t *v;
    size_t n, cap;
} list;

static void list_reserve(list *l, size_t more)
{
    if (l->n + more <= l->cap)
        return;
    size_t cap = l->cap ? l->cap : 64;
    while (cap < l->n + more)
        cap *= 2;
    uint64_t *v = realloc(l->v, cap * sizeof *v);
    if (!v)
        fail("out of memory for a list of %zu datums", cap);
    l->v = v, l->cap = cap;
}

/* Requests and their statuses (not MPI_STATUSES_IGNORE: gcc 12 misreads
 * MPICH's constant, as in exchange.c). */
typedef struct requests {
    MPI_Request *r;
    MPI_Status *s;
    int n, cap;
} requests;

static MPI_Request *requests_add(requests *q)
{
    if (q->n == q->cap) {
        int cap = q->cap ? 2 * q->cap : 8;
        MPI_Request *r = realloc(q->r, (size_t)cap * sizeof *r);
        if (r)
            q->r = r;
        MPI_Status *st = realloc(q->s, (size_t)cap * sizeof *st);
        if (!r || !st)
            fail("out of memory for %d requests", cap);
        q->s = st, q->cap = cap;
    }
    return &q->r[q->n++];
}

static void requests_wait(requests *q)
{
    if (q->n)
        check(MPI_Waitall(q->n, q->r, q->s), "MPI_Waitall");
    q->n = 0;
}

/* ---- reference: HPCC's algorithm ---- */

enum { TAG_DATA = 1, TAG_DONE = 2, TAG_STAGE = 16 };

typedef struct reference_state {
    gups *g;
    uint64_t *receive;
    MPI_Request rreq;
    int done_seen;
    MPI_Request *any; /* P + 1: the receive and a batch's sends, for MPI_Waitany */
} reference_state;

/* A message has arrived: applies it, or counts a "done"; posts the receive
 * again while more can come. */
static void reference_take(reference_state *s, const MPI_Status *status)
{
    gups *g = s->g;
    int count;
    if (status->MPI_TAG == TAG_DONE)
        s->done_seen++;
    else {
        check(MPI_Get_count(status, MPI_UINT64_T, &count), "MPI_Get_count");
        for (int i = 0; i < count; i++)
            apply(g, s->receive[i]);
        charge(g, COST_UPDATE, (size_t)count);
    }
    if (s->done_seen < g->nprocs - 1)
        check(MPI_Irecv(s->receive, g->lookahead, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG,
                        g->comm, &s->rreq),
              "MPI_Irecv");
}

/* Applies what has arrived; blocking: everything until the last "done". */
static void reference_poll(reference_state *s, int blocking)
{
    gups *g = s->g;
    while (s->done_seen < g->nprocs - 1) {
        int flag = 1;
        MPI_Status status;
        if (blocking)
            check(MPI_Wait(&s->rreq, &status), "MPI_Wait");
        else
            check(MPI_Test(&s->rreq, &flag, &status), "MPI_Test");
        if (!flag)
            return;
        reference_take(s, &status);
    }
}

/* Waits for a batch's sends, applying what arrives meanwhile: blocked in
 * MPI_Waitany on the receive and the sends rather than spinning on
 * MPI_Test (the same for the benchmark; under SMPI every failed test is a
 * simulated event). */
static void reference_wait_sends(reference_state *s, requests *q)
{
    const int n = q->n;
    int flag = 0, index;
    MPI_Status status;
    while (q->n) {
        check(MPI_Testall(n, q->r, &flag, q->s), "MPI_Testall");
        if (flag) {
            q->n = 0;
            break;
        }
        if (s->done_seen == s->g->nprocs - 1) { /* no receive posted */
            requests_wait(q);
            break;
        }
        s->any[0] = s->rreq;
        memcpy(s->any + 1, q->r, (size_t)n * sizeof *q->r);
        check(MPI_Waitany(n + 1, s->any, &index, &status), "MPI_Waitany");
        s->rreq = s->any[0];
        memcpy(q->r, s->any + 1, (size_t)n * sizeof *q->r);
        if (index == 0)
            reference_take(s, &status);
    }
}

static void run_reference(gups *g)
{
    const int P = g->nprocs, Q = g->lookahead;
    uint64_t *batch = allocate_or_abort((size_t)Q * sizeof *batch, "batch");
    int *dest = allocate_or_abort((size_t)Q * sizeof *dest, "batch destinations");
    uint64_t *sendbuf[2];
    requests sends[2] = { { 0 } };
    size_t *offset = allocate_or_abort(((size_t)P + 1) * sizeof *offset, "bucket offsets");
    reference_state s = { .g = g, .done_seen = 0 };
    for (int b = 0; b < 2; b++)
        sendbuf[b] = allocate_or_abort((size_t)Q * sizeof(uint64_t), "buckets");
    s.receive = allocate_or_abort((size_t)Q * sizeof(uint64_t), "receive buffer");
    s.any = allocate_or_abort(((size_t)P + 1) * sizeof *s.any, "requests");
    if (P > 1)
        check(MPI_Irecv(s.receive, Q, MPI_UINT64_T, MPI_ANY_SOURCE, MPI_ANY_TAG, g->comm, &s.rreq),
              "MPI_Irecv");

    uint64_t ran = gf2_power(g->first_update), position = g->first_update;
    uint64_t left = g->n_updates;
    for (int b = 0; left; b ^= 1) {
        size_t count = left < (uint64_t)Q ? (size_t)left : (size_t)Q, remote = 0;
        size_t n = generate(g, &ran, &position, count, batch);
        left -= count;
        for (size_t i = 0; i < n; i++) {
            int o = owner(g, batch[i] & g->index_mask);
            if (o == g->me)
                apply(g, batch[i]);
            else
                batch[remote] = batch[i], dest[remote++] = o;
        }
        charge(g, COST_UPDATE, n - remote);
        charge(g, COST_MOVE, remote); /* into the buckets */
        /* The buckets: this batch's remote updates sorted by destination. */
        reference_wait_sends(&s, &sends[b]);
        memset(offset, 0, ((size_t)P + 1) * sizeof *offset);
        for (size_t i = 0; i < remote; i++)
            offset[dest[i] + 1]++;
        for (int p = 0; p < P; p++)
            offset[p + 1] += offset[p];
        for (size_t i = 0; i < remote; i++)
            sendbuf[b][offset[dest[i]]++] = batch[i];
        for (int p = 0, start = 0; p < P; start = (int)offset[p++]) /* offset[p]: end of p */
            if ((int)offset[p] > start)
                check(MPI_Isend(sendbuf[b] + start, (int)offset[p] - start, MPI_UINT64_T, p,
                                TAG_DATA, g->comm, requests_add(&sends[b])),
                      "MPI_Isend");
        reference_poll(&s, 0);
    }
    for (int b = 0; b < 2; b++)
        reference_wait_sends(&s, &sends[b]);
    for (int p = 0; p < P; p++)
        if (p != g->me)
            check(MPI_Isend(NULL, 0, MPI_UINT64_T, p, TAG_DONE, g->comm, requests_add(&sends[0])),
                  "MPI_Isend");
    if (P > 1)
        reference_poll(&s, 1);
    requests_wait(&sends[0]);
    for (int b = 0; b < 2; b++)
        free(sends[b].r), free(sends[b].s);
    free(s.any), free(s.receive), free(sendbuf[0]), free(sendbuf[1]);
    free(offset), free(dest), free(batch);
}

/* ---- hypercube and bruck ---- */

typedef struct router {
    gups *g;
    int bruck;    /* 0: partner me ^ 2^d, split by the owner's bit d */
    int shift;    /* hypercube: the owner's bit 0 in ran */
} router;

static int send_to(const router *r, int d)
{
    const gups *g = r->g;
    return r->bruck ? (g->me + (1 << d)) % g->nprocs : g->me ^ (1 << d);
}

static int receive_from(const router *r, int d)
{
    const gups *g = r->g;
    return r->bruck ? (int)(((long long)g->me - (1LL << d) % g->nprocs + g->nprocs) % g->nprocs)
                    : g->me ^ (1 << d);
}

/* Appends the datums of src that leave at stage d to out, the others to keep. */
static void split(const router *r, int d, const uint64_t *src, size_t n, list *out, list *keep)
{
    const gups *g = r->g;
    list_reserve(out, n);
    list_reserve(keep, n);
    uint64_t *o = out->v + out->n, *k = keep->v + keep->n;
    if (!r->bruck) {
        const int bit = r->shift + d, mine = (g->me >> d) & 1;
        for (size_t i = 0; i < n; i++) {
            uint64_t ran = src[i];
            if ((int)((ran >> bit) & 1) != mine)
                *o++ = ran;
            else
                *k++ = ran;
        }
    } else {
        const int P = g->nprocs, me = g->me;
        for (size_t i = 0; i < n; i++) {
            uint64_t ran = src[i];
            int distance = owner(g, ran & g->index_mask) - me;
            if (distance < 0)
                distance += P;
            if ((distance >> d) & 1)
                *o++ = ran;
            else
                *k++ = ran;
        }
    }
    out->n = (size_t)(o - out->v);
    keep->n = (size_t)(k - keep->v);
    charge(g, COST_MOVE, n);
}

static void run_routed(gups *g, int bruck)
{
    const int D = g->stages, C = g->capacity;
    router r = { .g = g,
                 .bruck = bruck,
                 .shift = g->log2_table - (g->log2_procs > 0 ? g->log2_procs : 0) };
    list current = { 0 }, keep = { 0 }, next_keep = { 0 }, out[2] = { { 0 } };
    requests sends[2] = { { 0 } };
    uint64_t *receive = allocate_or_abort((size_t)(D ? D : 1) * (size_t)C * sizeof(uint64_t),
                                          "receive buffers");
    MPI_Request *rreq = allocate_or_abort((size_t)(D ? D : 1) * sizeof *rreq, "receive requests");
    list_reserve(&current, (size_t)g->lookahead);
    for (int b = 0; b < 2; b++)
        list_reserve(&out[b], (size_t)g->lookahead);
    list_reserve(&keep, (size_t)g->lookahead + 64);
    list_reserve(&next_keep, (size_t)g->lookahead + 64);

    /* Every rank takes part in every batch: as many as the largest share
     * needs (shares differ by 4 updates when P does not divide N). */
    uint64_t largest = 4 * (g->base + (g->remainder ? 1 : 0));
    uint64_t batches = (largest + (uint64_t)g->lookahead - 1) / (uint64_t)g->lookahead;
    uint64_t ran = gf2_power(g->first_update), position = g->first_update;
    uint64_t left = g->n_updates;
    for (uint64_t batch = 0; batch < batches; batch++) {
        size_t count = left < (uint64_t)g->lookahead ? (size_t)left : (size_t)g->lookahead;
        current.n = generate(g, &ran, &position, count, current.v);
        left -= count;
        /* Mod1: every stage's receive posted before the exchange begins. */
        for (int d = 0; d < D; d++)
            check(MPI_Irecv(receive + (size_t)d * C, C, MPI_UINT64_T, receive_from(&r, d),
                            TAG_STAGE + d, g->comm, &rreq[d]),
                  "MPI_Irecv");
        if (D) {
            requests_wait(&sends[0]); /* Mod7: out[0] is free again */
            out[0].n = keep.n = 0;
            split(&r, 0, current.v, current.n, &out[0], &keep);
        } else {
            list_reserve(&keep, current.n);
            memcpy(keep.v, current.v, current.n * sizeof *keep.v);
            keep.n = current.n;
        }
        for (int d = 0; d < D; d++) {
            list *o = &out[d & 1], *next_out = &out[(d + 1) & 1];
            const int last = d + 1 == D, to = send_to(&r, d), from = receive_from(&r, d);
            /* Chunks of C words and one shorter (maybe empty) one. */
            for (size_t sent = 0;; sent += (size_t)C) {
                size_t n = o->n - sent < (size_t)C ? o->n - sent : (size_t)C;
                check(MPI_Isend(o->v + sent, (int)n, MPI_UINT64_T, to, TAG_STAGE + d, g->comm,
                                requests_add(&sends[d & 1])),
                      "MPI_Isend");
                if (n < (size_t)C)
                    break;
            }
            /* Mod3: split what is kept for stage d + 1 before waiting. */
            if (!last) {
                requests_wait(&sends[(d + 1) & 1]); /* Mod7: stage d - 1's send-list */
                next_out->n = next_keep.n = 0;
                split(&r, d + 1, keep.v, keep.n, next_out, &next_keep);
            }
            uint64_t *in = receive + (size_t)d * C;
            MPI_Status status;
            int got;
            check(MPI_Wait(&rreq[d], &status), "MPI_Wait");
            for (;;) {
                check(MPI_Get_count(&status, MPI_UINT64_T, &got), "MPI_Get_count");
                if (last) {
                    list_reserve(&keep, (size_t)got);
                    memcpy(keep.v + keep.n, in, (size_t)got * sizeof *in);
                    keep.n += (size_t)got;
                    charge(g, COST_MOVE, (size_t)got);
                } else
                    split(&r, d + 1, in, (size_t)got, next_out, &next_keep);
                if (got < C)
                    break;
                check(MPI_Recv(in, C, MPI_UINT64_T, from, TAG_STAGE + d, g->comm, &status),
                      "MPI_Recv");
            }
            if (!last) {
                list t = keep;
                keep = next_keep, next_keep = t;
            }
        }
        /* Every datum of keep is this rank's: the updates. */
        if (keep.n > g->max_list)
            g->max_list = keep.n;
        for (size_t i = 0; i < keep.n; i++)
            apply(g, keep.v[i]);
        charge(g, COST_UPDATE, keep.n);
    }
    for (int b = 0; b < 2; b++) {
        requests_wait(&sends[b]);
        free(sends[b].r), free(sends[b].s), free(out[b].v);
    }
    free(current.v), free(keep.v), free(next_keep.v), free(receive), free(rreq);
}

static void run_algorithm(gups *g, int algorithm)
{
    if (algorithm == ALG_REFERENCE)
        run_reference(g);
    else
        run_routed(g, algorithm == ALG_BRUCK || g->log2_procs < 0);
}

/* ---- Verification: the updates once more, by MPI_Alltoallv ---- */

static void verify_alltoallv(gups *g)
{
    const int P = g->nprocs;
    const size_t round = 1 << 16;
    uint64_t rounds = (g->n_updates + round - 1) / round, most;
    check(MPI_Allreduce(&rounds, &most, 1, MPI_UINT64_T, MPI_MAX, g->comm), "MPI_Allreduce");
    uint64_t *batch = allocate_or_abort(round * sizeof *batch, "verification batch");
    uint64_t *sorted = allocate_or_abort(round * sizeof *sorted, "verification batch");
    int *counts = allocate_or_abort((size_t)P * 4 * sizeof *counts, "verification counts");
    int *displs = counts + P, *rcounts = counts + 2 * P, *rdispls = counts + 3 * P;
    list in = { 0 };
    uint64_t ran = gf2_power(g->first_update), position = g->first_update, left = g->n_updates;
    long long skip = g->skip_update;
    double model[3];
    memcpy(model, g->model_s, sizeof model);
    memset(g->model_s, 0, sizeof g->model_s); /* not part of the benchmark */
    g->skip_update = -1;
    for (uint64_t k = 0; k < most; k++) {
        size_t n = left < round ? (size_t)left : round;
        n = generate(g, &ran, &position, n, batch);
        left -= n;
        memset(counts, 0, (size_t)P * sizeof *counts);
        for (size_t i = 0; i < n; i++)
            counts[owner(g, batch[i] & g->index_mask)]++;
        displs[0] = 0;
        for (int p = 1; p < P; p++)
            displs[p] = displs[p - 1] + counts[p - 1];
        for (size_t i = 0; i < n; i++)
            sorted[displs[owner(g, batch[i] & g->index_mask)]++] = batch[i];
        for (int p = 0; p < P; p++)
            displs[p] -= counts[p];
        check(MPI_Alltoall(counts, 1, MPI_INT, rcounts, 1, MPI_INT, g->comm), "MPI_Alltoall");
        size_t total = 0;
        for (int p = 0; p < P; p++)
            rdispls[p] = (int)total, total += (size_t)rcounts[p];
        list_reserve(&in, total);
        check(MPI_Alltoallv(sorted, counts, displs, MPI_UINT64_T, in.v, rcounts, rdispls,
                            MPI_UINT64_T, g->comm),
              "MPI_Alltoallv");
        for (size_t i = 0; i < total; i++)
            apply(g, in.v[i]);
    }
    g->skip_update = skip;
    memcpy(g->model_s, model, sizeof model);
    free(in.v), free(counts), free(sorted), free(batch);
}

/* ---- The program ---- */

static uint64_t table_digest(const gups *g)
{
    uint64_t sum = 0, all = 0;
    for (uint64_t i = 0; i < g->local; i++)
        sum += splitmix64(g->table[i] ^ splitmix64(g->first + i));
    check(MPI_Allreduce(&sum, &all, 1, MPI_UINT64_T, MPI_SUM, g->comm), "MPI_Allreduce");
    return all;
}

static int run(const void *options_, MPI_Comm comm)
{
    const options *opt = options_;
    gups g = { .comm = comm, .lookahead = opt->lookahead, .log2_table = opt->log2_table };
    check(MPI_Comm_rank(comm, &g.me), "MPI_Comm_rank");
    check(MPI_Comm_size(comm, &g.nprocs), "MPI_Comm_size");
    if (g.me == 0 && !gf2_self_check()) /* fail() aborts every rank */
        fail("the jump in the random stream (gf2_power) disagrees with the stepped stream");
    g.log2_procs = (g.nprocs & (g.nprocs - 1)) ? -1 : __builtin_ctz((unsigned)g.nprocs);
    while ((1 << g.stages) < g.nprocs)
        g.stages++;
    g.table_size = UINT64_C(1) << g.log2_table;
    g.index_mask = g.table_size - 1;
    g.base = g.table_size / (uint64_t)g.nprocs;
    g.remainder = g.table_size % (uint64_t)g.nprocs;
    g.first = first_index(&g, g.me);
    g.local = first_index(&g, g.me + 1) - g.first;
    g.first_update = opt->stream_offset + 4 * g.first;
    g.n_updates = 4 * g.local;
    for (int c = 0; c < 3; c++)
        g.model_s[c] = opt->model_ns[c] * 1e-9;
    g.capacity = opt->message_max ? opt->message_max : 2 * g.lookahead + 8;
    g.table = allocate_or_abort((g.local ? g.local : 1) * sizeof *g.table, "table");
    const uint64_t updates = 4 * g.table_size;
    const int outside = opt->lookahead > RULES_LOOKAHEAD || opt->stream_offset;
    int failed = 0;

    if (g.me == 0) {
        char version[256];
        mpi_library_version(version, sizeof version);
        printf("# gups: P=%d, table 2^%d = %" PRIu64 " words (%.3g MiB, %" PRIu64 "-%" PRIu64
               " per rank), %" PRIu64 " updates, Q=%d%s, verify=%s, reps=%d\n",
               g.nprocs, g.log2_table, g.table_size, g.table_size * 8.0 / 1048576,
               g.base, g.base + (g.remainder ? 1 : 0), updates, g.lookahead,
               opt->lookahead > RULES_LOOKAHEAD ? " (outside the rules: Q > 1024)" : "",
               opt->verify == VERIFY_ALLTOALLV ? "alltoallv"
               : opt->verify == VERIFY_SAME    ? "same"
                                               : "none",
               opt->reps);
        printf("# MPI: %s\n", version);
        if (opt->stream_offset)
            printf("# --stream-offset %llu (outside the rules): updates use stream values"
                   " %llu + 1 .. %llu + 4N\n",
                   (unsigned long long)opt->stream_offset,
                   (unsigned long long)opt->stream_offset,
                   (unsigned long long)opt->stream_offset);
        if (opt->model_ns[0] > 0 || opt->model_ns[1] > 0 || opt->model_ns[2] > 0)
            printf("# --model-ns %g,%g,%g: computation charged by the model, ns per value"
                   " generated, update, datum moved\n",
                   opt->model_ns[0], opt->model_ns[1], opt->model_ns[2]);
        if (opt->skip_update >= 0)
            printf("# --skip-update %lld: the timed pass loses one update\n", opt->skip_update);
        if (opt->table)
            printf("# %-14s %5s %5s %12s %9s %6s %12s %12s %10s %10s %7s %18s\n", "algorithm",
                   "P", "log2N", "updates", "Q", "rules", "time_s", "GUPS", "errors",
                   "err_frac", "maxQ'", "checksum");
        fflush(stdout);
    }
    for (int a = 0; a < opt->n_algorithms; a++) {
        int alg = opt->algorithms[a];
        const char *name = algorithm_names[alg];
        if (alg == ALG_HYPERCUBE && g.log2_procs < 0)
            name = "hypercube(bruck)";
        double best = 0;
        g.max_list = 0;
        g.misrouted = 0;
        for (int rep = 0; rep < opt->reps; rep++) {
            reset_table(&g);
            g.skip_update = opt->skip_update;
            check(MPI_Barrier(comm), "MPI_Barrier");
            double t0 = MPI_Wtime();
            run_algorithm(&g, alg);
            double t = MPI_Wtime() - t0, slowest;
            check(MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
            if (rep == 0 || slowest < best)
                best = slowest;
        }
        g.skip_update = -1;
        uint64_t digest = opt->checksum || opt->table ? table_digest(&g) : 0;
        if (opt->verify == VERIFY_ALLTOALLV)
            verify_alltoallv(&g);
        else if (opt->verify == VERIFY_SAME)
            run_algorithm(&g, alg);
        uint64_t errors = g.misrouted, all_errors = 0, max_list = 0;
        if (opt->verify != VERIFY_NONE)
            for (uint64_t i = 0; i < g.local; i++)
                errors += g.table[i] != g.first + i;
        check(MPI_Allreduce(&errors, &all_errors, 1, MPI_UINT64_T, MPI_SUM, comm), "MPI_Allreduce");
        check(MPI_Allreduce(&g.max_list, &max_list, 1, MPI_UINT64_T, MPI_MAX, comm),
              "MPI_Allreduce");
        if (all_errors)
            failed = 1;
        if (g.me != 0)
            continue;
        double gups_rate = best > 0 ? updates / best / 1e9 : 0;
        double fraction = (double)all_errors / updates;
        char errtext[64], listtext[32];
        if (opt->verify == VERIFY_NONE)
            snprintf(errtext, sizeof errtext, "n/a");
        else
            snprintf(errtext, sizeof errtext, "%" PRIu64, all_errors);
        snprintf(listtext, sizeof listtext, "%" PRIu64, max_list);
        if (opt->table)
            printf("%-16s %5d %5d %12" PRIu64 " %9d %6s %12.6g %12.6g %10s %10.3g %7s 0x%016" PRIx64
                   "\n",
                   name, g.nprocs, g.log2_table, updates, g.lookahead, outside ? "no" : "yes", best,
                   gups_rate, errtext, fraction, alg == ALG_REFERENCE ? "-" : listtext, digest);
        else {
            printf("%-16s P=%d table=2^%d updates=%" PRIu64 " Q=%d%s time=%.6g s GUPS=%.6g "
                   "errors=%s (%.3g%%)",
                   name, g.nprocs, g.log2_table, updates, g.lookahead,
                   outside ? " (outside the rules)" : "", best, gups_rate, errtext,
                   100 * fraction);
            if (opt->verify != VERIFY_NONE)
                printf(" %s", all_errors == 0      ? "exact"
                              : fraction <= 0.01   ? "FAILED (within HPCC's 1%, but not exact)"
                                                   : "FAILED");
            if (alg != ALG_REFERENCE)
                printf(" maxQ'=%s", listtext);
            if (opt->checksum)
                printf(" checksum=0x%016" PRIx64, digest);
            printf("\n");
        }
        fflush(stdout);
    }
    free(g.table);
    return failed;
}

int main(int argc, char **argv)
{
    static const bench_main_ops ops = { "gups", parse, print_usage, run };
    options opt;
    return bench_main(argc, argv, &ops, &opt);
}
