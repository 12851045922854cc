/*
 * naive_alltoallv.c - the naive in-place MPI_Alltoallv with bounded memory
 * (naive_alltoallv.h): pack all outgoing messages against the end of the
 * buffer, then fill the receive regions from the lowest up, one at a time,
 * in rounds.
 *
 * How.  Each process works on bytes: its buffer [0, N) ends with its last
 * region, its nonempty send regions are packed, in address order, into
 * [bottom, N), and its nonempty receive regions are filled in ascending
 * address order, each from its start.  The fill point t is the start of the
 * current receive region plus the bytes already placed there; the bytes that
 * arrived for it but did not fit wait, in order, in the aux buffer.  A round:
 *
 *   1. aux bytes move to [t, bottom) as far as they fit; a region whose
 *      bytes are all placed is done, and the next one becomes current;
 *   2. the process asks the sender of its current region for the next bytes
 *      of that message: straight to t, as many as fit below bottom, when aux
 *      is empty and t < bottom; else into aux, as many as it has room for;
 *   3. one MPI_Alltoall of two ints per pair carries every request and
 *      whether the process still expects data; the exchange ends when no
 *      process does;
 *   4. each sender gives each asker the low end of what remains of its
 *      packed message to it (Isend), each asker receives (Irecv), Waitall;
 *   5. each sender packs what remains against N again: bottom rises.
 *
 * Why the result is right.  (a) Unsent bytes are never overwritten: they
 * lie in [bottom, N), bytes are written below bottom only (step 1 and the
 * direct receive of step 2 stop at bottom) and packing (step 5) moves data
 * upwards within [bottom, N), since the message moved first is the highest
 * and every message lands at or above where it was and below those already
 * moved (pack_regions).  (b) Placed bytes are never overwritten: each was
 * written below bottom, which never falls, and below t, which never falls;
 * later writes go to [t, bottom) and packing stays above bottom.  (c) Each
 * message arrives whole and in order: its sender gives it from the low end,
 * every request of a region goes to the same sender, aux is first in, first
 * out, and bytes go straight to t only when aux is empty.  So when the
 * exchange ends every receive region holds its message; other bytes are
 * undefined, as MPI_IN_PLACE allows.
 *
 * Why it ends.  Every round in which some process still expects data moves
 * at least one byte.  Suppose a round moved none: every process expecting
 * data asked for 0 bytes after step 1.  Its aux is not empty: with aux empty
 * it has received no byte of the current region beyond those placed, so it
 * would ask straight to t if t < bottom, else into aux, at least one byte.
 * So t >= bottom (step 1 would have emptied aux into [t, bottom) otherwise).
 * Such a process still has to send all of [bottom, N), at least N - t
 * bytes, and still expects fewer: what it has not received lies in its
 * current and later receive regions, all within [t, N), less the aux bytes
 * already received.  A process that expects nothing has nothing to receive
 * and maybe something to send.  Summed over all processes, fewer bytes would
 * be missing than unsent, yet between rounds every unsent byte is a byte
 * some process misses and the other way round: the two sums are equal.  So
 * each round moves a byte, and all processes leave at the same round, the
 * first one in which nobody expects data.
 *
 * Extra memory: the aux buffer and O(p) state.  Time: one MPI_Alltoall per
 * round and up to N bytes of packing per round: naive indeed.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naive_alltoallv.h"

#define NAIVE_TAG 4711

/* A message's place in the buffer, in bytes. */
typedef struct region {
    long long offset, bytes;
    int rank;
} region;

/* The other ranks would wait forever in the next round's MPI_Alltoall. */
static _Noreturn void abort_job(MPI_Comm comm, const char *what, long long detail)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    fprintf(stderr, "naive_alltoallv: rank %d: %s (%lld)\n", rank, what, detail);
    MPI_Abort(comm, 3);
    exit(3); /* MPI_Abort should not return */
}

static void *allocate(size_t bytes, MPI_Comm comm)
{
    void *p = malloc(bytes > 0 ? bytes : 1);
    if (!p)
        abort_job(comm, "cannot allocate its state, bytes", (long long)bytes);
    return p;
}

static int compare_regions(const void *a, const void *b)
{
    long long x = ((const region *)a)->offset, y = ((const region *)b)->offset;
    return (x > y) - (x < y);
}

/* The nonempty messages of counts/displs, in ascending address order;
 * returns how many, and the end of the last one in *end if it is higher. */
static int sorted_regions(const int *counts, const int *displs, int p, long long unit,
                          region *regions, long long *end)
{
    int n = 0;

    for (int j = 0; j < p; j++)
        if (counts[j] > 0) {
            regions[n] = (region){ displs[j] * unit, counts[j] * unit, j };
            if (regions[n].offset + regions[n].bytes > *end)
                *end = regions[n].offset + regions[n].bytes;
            n++;
        }
    qsort(regions, (size_t)n, sizeof *regions, compare_regions);
    return n;
}

/*
 * Moves the disjoint regions `out`, in ascending address order, up against
 * `end`, keeping their order, and returns the lowest byte they then occupy.
 * Moving the highest first never overwrites a region not yet moved: each
 * lands at or above where it was (everything above it has been packed) and
 * below the regions already moved.
 */
static long long pack_regions(char *buf, region *out, int n, long long end)
{
    for (int i = n - 1; i >= 0; i--) {
        end -= out[i].bytes;
        if (end != out[i].offset && out[i].bytes > 0)
            memmove(buf + end, buf + out[i].offset, (size_t)out[i].bytes);
        out[i].offset = end;
    }
    return end;
}

static long long min_ll(long long a, long long b)
{
    return a < b ? a : b;
}

/* MPI_SUCCESS if `type` is contiguous without gaps; its size in *unit. */
static int contiguous_size(MPI_Datatype type, long long *unit)
{
    MPI_Aint lb, extent;
    int size, err = MPI_Type_size(type, &size);

    if (err == MPI_SUCCESS)
        err = MPI_Type_get_extent(type, &lb, &extent);
    if (err != MPI_SUCCESS)
        return err;
    *unit = size;
    return lb == 0 && extent == (MPI_Aint)size ? MPI_SUCCESS : MPI_ERR_TYPE;
}

int naive_alltoallv(void *data, const int *scounts, const int *sdispls, const int *rcounts,
                    const int *rdispls, MPI_Datatype type, MPI_Comm comm, long long aux_bytes,
                    long long *rounds)
{
    char *buf = data;
    long long unit, size = 0, round_count = 0;
    int p, err = contiguous_size(type, &unit);

    if (err == MPI_SUCCESS)
        err = MPI_Comm_size(comm, &p);
    if (err != MPI_SUCCESS)
        return err;
    long long aux_size = aux_bytes > NAIVE_AUX_MIN ? aux_bytes : NAIVE_AUX_MIN;
    region *out = allocate(sizeof(region) * (size_t)p, comm);
    region *in = allocate(sizeof(region) * (size_t)p, comm);
    int *out_index = allocate(sizeof(int) * (size_t)p, comm);
    int *mine = allocate(sizeof(int) * 2 * (size_t)p, comm);
    int *theirs = allocate(sizeof(int) * 2 * (size_t)p, comm);
    MPI_Request *requests = allocate(sizeof(MPI_Request) * ((size_t)p + 1), comm);
    /* not MPI_STATUSES_IGNORE: gcc 12 misreads MPICH's constant */
    MPI_Status *statuses = allocate(sizeof(MPI_Status) * ((size_t)p + 1), comm);
    char *aux = allocate((size_t)aux_size, comm);

    int n_out = sorted_regions(scounts, sdispls, p, unit, out, &size);
    int n_in = sorted_regions(rcounts, rdispls, p, unit, in, &size);
    for (int j = 0; j < p; j++)
        out_index[j] = -1;
    for (int i = 0; i < n_out; i++)
        out_index[out[i].rank] = i;
    long long bottom = pack_regions(buf, out, n_out, size);

    /* The current receive region in[cur]: bytes placed at its start, bytes arrived
     * (placed, then aux_used more in aux, in order). */
    int cur = 0;
    long long placed = 0, arrived = 0, aux_used = 0;
    for (;; round_count++) {
        /* 1. Move what the aux buffer holds into free space; skip finished regions. */
        while (cur < n_in) {
            long long t = in[cur].offset + placed, room = bottom - t;
            if (aux_used > 0 && room > 0) {
                long long m = min_ll(room, aux_used);
                memcpy(buf + t, aux, (size_t)m);
                memmove(aux, aux + m, (size_t)(aux_used - m));
                placed += m;
                aux_used -= m;
            }
            if (placed < in[cur].bytes)
                break;
            cur++; /* all of it placed, so aux is empty */
            placed = arrived = 0;
        }

        /* 2. What to ask for, and where it goes. */
        int source = -1;
        long long ask = 0;
        char *into = NULL;
        int direct = 0;
        if (cur < n_in) {
            long long t = in[cur].offset + placed, room = bottom - t;
            source = in[cur].rank;
            direct = aux_used == 0 && room > 0;
            ask = min_ll(in[cur].bytes - arrived, direct ? room : aux_size - aux_used);
            ask = min_ll(ask, INT_MAX);
            into = direct ? buf + t : aux + aux_used;
        }

        /* 3. Everybody's requests, and whether anybody still expects data. */
        for (int j = 0; j < p; j++) {
            mine[2 * j] = j == source ? (int)ask : 0;
            mine[2 * j + 1] = cur < n_in;
        }
        if ((err = MPI_Alltoall(mine, 2, MPI_INT, theirs, 2, MPI_INT, comm)) != MPI_SUCCESS)
            break;
        int expecting = 0;
        for (int j = 0; j < p; j++)
            expecting |= theirs[2 * j + 1];
        if (!expecting)
            break;

        /* 4. The bytes asked for: from the low end of each packed message. */
        int n_requests = 0, sent = 0;
        if (ask > 0)
            err = MPI_Irecv(into, (int)ask, MPI_BYTE, source, NAIVE_TAG, comm,
                            &requests[n_requests++]);
        for (int j = 0; j < p && err == MPI_SUCCESS; j++) {
            int give = theirs[2 * j];
            if (give == 0)
                continue;
            region *r = out_index[j] < 0 ? NULL : &out[out_index[j]];
            if (!r || give > r->bytes) /* counts that do not match between a pair */
                abort_job(comm, "a rank asks for more bytes than its message has left",
                          (long long)give);
            err = MPI_Isend(buf + r->offset, give, MPI_BYTE, j, NAIVE_TAG, comm,
                            &requests[n_requests++]);
            r->offset += give;
            r->bytes -= give;
            sent = 1;
        }
        if (err == MPI_SUCCESS)
            err = MPI_Waitall(n_requests, requests, statuses);
        if (err != MPI_SUCCESS)
            break;
        arrived += ask;
        if (direct)
            placed += ask;
        else
            aux_used += ask;

        /* 5. What remains to send moves up against the end. */
        if (sent)
            bottom = pack_regions(buf, out, n_out, size);
    }

    if (rounds)
        *rounds = round_count;
    free(out);
    free(in);
    free(out_index);
    free(mine);
    free(theirs);
    free(requests);
    free(statuses);
    free(aux);
    return err;
}
