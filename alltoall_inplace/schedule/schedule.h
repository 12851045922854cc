/*
 * schedule.h - schedules of pairwise exchanges, as pure functions.
 *
 * A schedule says, for a rank among p, whom it exchanges with at each step of
 * a global sequence of steps: peer[s] is the partner at step s, or AIP_IDLE.
 * Every schedule here satisfies, for all ranks r and steps s:
 *   peer_r[s] = q  <=>  peer_q[s] = r,   peer_r[s] != r,
 * and every unordered pair of distinct ranks meets exactly once.  Executing
 * the exchanges of each rank in step order with blocking (or ordered
 * non-blocking) operations therefore never deadlocks.
 *
 * Schedules know nothing of MPI or of buffers; the executor (exchange.c)
 * moves the bytes.  tests/unit/schedule_test checks the properties above for
 * p = 1..1024 and compares each schedule with its paper's pseudo-code.
 */
#ifndef AIP_SCHEDULE_H
#define AIP_SCHEDULE_H

#define AIP_IDLE (-1)

typedef struct aip_schedule {
    const char *name;
    /* Number of steps of the global sequence for p ranks. */
    int (*nsteps)(int p);
    /* Fill peer[0 .. nsteps(p)-1] for `rank` (0 <= rank < p). */
    void (*fill)(int rank, int p, int *peer);
} aip_schedule;

/* The schedules other modules run besides the table (node/node_exchange.c
 * runs HSA's; tests/unit/schedule_test compares these with their papers'
 * pseudo-code).  One that only the table runs is declared beside its row. */
extern const aip_schedule aip_schedule_mpich; /* schedule_mpich.c */
extern const aip_schedule aip_schedule_lsa;   /* schedule_lsa.c */
extern const aip_schedule aip_schedule_hsa;   /* schedule_hsa.c */

#endif /* AIP_SCHEDULE_H */
