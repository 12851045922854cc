/*
 * general_sim_test - the general in-place Alltoallv's index sets, update
 * and auxiliary buffer (general_sets.c, general_aux.c) run on p simulated
 * processes in one program, without communication: each phase, every
 * process asks, the asked bytes are copied from the sender's pieces to the
 * receiver's, and every process updates.  Checked for every problem:
 *   - the result: each receive region holds, byte for byte, the sender's
 *     original send region;
 *   - progress: every phase moves at least one byte (no deadlock, no
 *     livelock), as the termination argument in alltoallv_general.c says;
 *   - a process never asks for more than the sender still has for it;
 *   - at the end nothing waits in the auxiliary buffer.
 * p = 1..9, 16, 33; every pattern and placement of general_layout.h; budgets
 * from 1 byte to more than the data; both strategies, b = 1, 2, p/8, p.
 *
 *   general_sim_test [--seed N] [--cases N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "general/general.h"
#include "general_layout.h"
#include "test_util.h"

typedef struct sim_proc {
    aip_general g;
    char *buf, *orig, *aux;
    aip_block *send, *recv;
    MPI_Aint *request, *sent;
} sim_proc;

/* Copy `bytes` from the sender's pieces to the receiver's. */
static void copy_pieces(const aip_piece *from, int nfrom, const aip_piece *to, int nto)
{
    int a = 0, b = 0;
    MPI_Aint ia = 0, ib = 0;
    while (a < nfrom && b < nto) {
        MPI_Aint n = from[a].bytes - ia < to[b].bytes - ib ? from[a].bytes - ia : to[b].bytes - ib;
        memcpy(to[b].address + ib, from[a].address + ia, (size_t)n);
        ia += n;
        ib += n;
        if (ia == from[a].bytes)
            a++, ia = 0;
        if (ib == to[b].bytes)
            b++, ib = 0;
    }
}

/* One problem; returns 0 if it passed, printing why not otherwise. */
static int run(int p, uint64_t seed, layout_pattern pattern, layout_placement placement,
               MPI_Aint aux_bytes, AIP_Aux_strategy strategy, int nbuffers)
{
    long long *count = malloc(sizeof(long long) * (size_t)p * (size_t)p);
    long long *sd = malloc(sizeof(long long) * (size_t)p);
    long long *rd = malloc(sizeof(long long) * (size_t)p);
    sim_proc *proc = calloc((size_t)p, sizeof *proc);
    aip_piece *from = malloc(sizeof(aip_piece) * (3 * (size_t)p + 1)), to[2];
    int failed = 0;
    long long max_phases = 0;

    layout_counts(p, seed, pattern, 300, count);
    for (int r = 0; r < p; r++) {
        sim_proc *q = &proc[r];
        long long n;
        layout_place(p, r, seed, placement, count, sd, rd, &n);
        q->buf = malloc((size_t)n + 1);
        q->orig = malloc((size_t)n + 1);
        q->aux = malloc((size_t)aux_bytes + 1);
        q->send = malloc(sizeof(aip_block) * (size_t)p);
        q->recv = malloc(sizeof(aip_block) * (size_t)p);
        q->request = malloc(sizeof(MPI_Aint) * (size_t)p);
        q->sent = malloc(sizeof(MPI_Aint) * (size_t)p);
        test_fill(q->buf, (size_t)n, seed, r);
        memcpy(q->orig, q->buf, (size_t)n);
        for (int j = 0; j < p; j++) {
            q->send[j] = (aip_block){ sd[j], count[(size_t)r * p + j] };
            q->recv[j] = (aip_block){ rd[j], count[(size_t)j * p + r] };
        }
        if (aip_general_alloc(&q->g, r, p) != MPI_SUCCESS) {
            printf("out of memory\n");
            exit(1);
        }
        aip_general_start(&q->g, q->buf, q->send, q->recv, q->aux, aux_bytes, strategy, nbuffers);
    }

    for (int active = 1; active && !failed;) {
        long long moved = 0;
        for (int r = 0; r < p; r++)
            aip_general_requests(&proc[r].g, proc[r].request);
        for (int i = 0; i < p; i++) /* receiver */
            for (int j = 0; j < p; j++) { /* sender */
                MPI_Aint want = proc[i].request[j];
                proc[j].sent[i] = want;
                if (want > proc[j].g.unsent[i]) {
                    printf("rank %d asks %ld bytes of rank %d, which has %ld left\n", i,
                           (long)want, j, (long)proc[j].g.unsent[i]);
                    failed = 1;
                }
                if (want <= 0 || failed)
                    continue;
                int nfrom = aip_general_send_pieces(&proc[j].g, i, want, from);
                int nto = aip_general_recv_pieces(&proc[i].g, j, to);
                copy_pieces(from, nfrom, to, nto);
                moved += want;
            }
        active = 0;
        for (int r = 0; r < p && !failed; r++) {
            aip_general_update(&proc[r].g, proc[r].sent);
            active |= aip_general_active(&proc[r].g);
            if (proc[r].g.phases > max_phases)
                max_phases = proc[r].g.phases;
        }
        if (active && moved == 0) {
            printf("no byte moved in phase %lld: deadlock\n", max_phases);
            failed = 1;
        }
    }

    for (int r = 0; r < p && !failed; r++) {
        for (int j = 0; j < p && !failed; j++) {
            const aip_block *mine = &proc[r].recv[j], *theirs = &proc[j].send[r];
            if (memcmp(proc[r].buf + mine->offset, proc[j].orig + theirs->offset,
                       (size_t)mine->bytes) != 0) {
                printf("rank %d: the data from rank %d differs\n", r, j);
                failed = 1;
            }
        }
        for (int j = 0; j < p && !failed; j++)
            if (proc[r].g.aux.held[j] != 0) {
                printf("rank %d: %ld bytes of rank %d left in the auxiliary buffer\n", r,
                       (long)proc[r].g.aux.held[j], j);
                failed = 1;
            }
    }
    if (failed)
        printf("FAIL: p=%d seed=%llu pattern=%s placement=%s aux=%ld strategy=%s b=%d\n", p,
               (unsigned long long)seed, layout_pattern_names[pattern],
               layout_placement_names[placement], (long)aux_bytes,
               strategy == AIP_AUX_STRATEGY_STATIC ? "static" : "pool", nbuffers);

    for (int r = 0; r < p; r++) {
        sim_proc *q = &proc[r];
        aip_general_free(&q->g);
        free(q->buf), free(q->orig), free(q->aux), free(q->send), free(q->recv);
        free(q->request), free(q->sent);
    }
    free(proc), free(count), free(sd), free(rd), free(from);
    return failed;
}

int main(int argc, char **argv)
{
    const char *scale = getenv("AIP_TEST_SCALE"), *seed_text = getenv("AIP_TEST_SEED");
    unsigned long long seed = seed_text ? strtoull(seed_text, NULL, 10)
                                        : (unsigned long long)time(NULL);
    int ncases = scale && strcmp(scale, "small") == 0 ? 1 : 4, passed = 0, failed = 0;
    static const int sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 33 };
    static const MPI_Aint budgets[] = { 1, 7, 64, 1024, 1 << 20 };

    for (int a = 1; a + 1 < argc; a += 2) {
        if (!strcmp(argv[a], "--seed"))
            seed = strtoull(argv[a + 1], NULL, 10);
        else if (!strcmp(argv[a], "--cases"))
            ncases = atoi(argv[a + 1]);
    }
    printf("general_sim_test: seed %llu (replay with --seed %llu)\n", seed, seed);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int c = 0; c < ncases; c++)
            for (int pat = 0; pat < N_PATTERNS; pat++)
                for (int pl = 0; pl < N_PLACEMENTS; pl++)
                    for (size_t b = 0; b < sizeof budgets / sizeof budgets[0]; b++) {
                        int p = sizes[s];
                        uint64_t case_seed = seed + (uint64_t)c * 1000003u;
                        int nb[] = { 1, 2, p / 8 > 0 ? p / 8 : 1, p };
                        int k = (int)((case_seed + (uint64_t)b + (uint64_t)pat) % 4);
                        int bad =
                            run(p, case_seed, pat, pl, budgets[b], AIP_AUX_STRATEGY_POOL, 0) |
                            run(p, case_seed, pat, pl, budgets[b], AIP_AUX_STRATEGY_STATIC,
                                nb[k]);
                        bad ? failed++ : passed++;
                    }
    printf("general_sim_test: %d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
