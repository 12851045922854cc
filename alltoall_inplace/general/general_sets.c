/*
 * general_sets.c - the index sets of the general in-place Alltoallv and
 * their updates (Hofmann & Ruenger, EuroMPI 2010, Sect. 3.2-3.4); see
 * general.h for the whole picture and general_exchange.c for why the
 * phases terminate.
 *
 * Data is sent and received lowest byte first.  So R_j, what source j has
 * still to fill, is always one range [rpos_j, rend_j), and the data for
 * dest i still to send is the remainder of its subsets in address order.
 * After each phase, the unsent data inside each R_j is pushed to its top
 * (rtop_j), keeping its order, which joins R_j's free space into
 * [rpos_j, rtop_j): what j may send straight into place next phase
 * (smatch of the paper is the lowest subset left in R_j, at rtop_j).
 */
#include <stdlib.h>
#include <string.h>

#include "general.h"

static MPI_Aint min_aint(MPI_Aint a, MPI_Aint b)
{
    return a < b ? a : b;
}

int aip_general_alloc(aip_general *g, int rank, int size)
{
    size_t n = (size_t)size + 1, nsub = 3 * (size_t)size + 1;

    memset(g, 0, sizeof *g);
    g->rank = rank;
    g->size = size;
    g->rpos = aip_malloc_held(n * sizeof *g->rpos, &g->held_bytes);
    g->rend = aip_malloc_held(n * sizeof *g->rend, &g->held_bytes);
    g->rtop = aip_malloc_held(n * sizeof *g->rtop, &g->held_bytes);
    g->missing = aip_malloc_held(n * sizeof *g->missing, &g->held_bytes);
    g->take_buf = aip_malloc_held(n * sizeof *g->take_buf, &g->held_bytes);
    g->take_aux = aip_malloc_held(n * sizeof *g->take_aux, &g->held_bytes);
    g->need = aip_malloc_held(n * sizeof *g->need, &g->held_bytes);
    g->unsent = aip_malloc_held(n * sizeof *g->unsent, &g->held_bytes);
    g->dest_first = aip_malloc_held(n * sizeof *g->dest_first, &g->held_bytes);
    g->dest_next = aip_malloc_held(n * sizeof *g->dest_next, &g->held_bytes);
    g->region_first = aip_malloc_held(n * sizeof *g->region_first, &g->held_bytes);
    g->subsets = aip_malloc_held(nsub * sizeof *g->subsets, &g->held_bytes);
    g->in_region = aip_malloc_held(nsub * sizeof *g->in_region, &g->held_bytes);
    g->spans = aip_malloc_held(nsub * sizeof *g->spans, &g->held_bytes);
    if (!g->rpos || !g->rend || !g->rtop || !g->missing || !g->take_buf || !g->take_aux ||
        !g->need || !g->unsent || !g->dest_first || !g->dest_next || !g->region_first ||
        !g->subsets || !g->in_region || !g->spans || aip_aux_alloc(&g->aux, size) != MPI_SUCCESS) {
        aip_general_free(g);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void aip_general_free(aip_general *g)
{
    free(g->rpos);
    free(g->rend);
    free(g->rtop);
    free(g->missing);
    free(g->take_buf);
    free(g->take_aux);
    free(g->need);
    free(g->unsent);
    free(g->dest_first);
    free(g->dest_next);
    free(g->region_first);
    free(g->subsets);
    free(g->in_region);
    free(g->spans);
    aip_aux_free(&g->aux);
    memset(g, 0, sizeof *g);
}

/* Spans in order of (key, lo). */
static int by_key_then_address(const void *a, const void *b)
{
    const aip_span *x = a, *y = b;
    if (x->key != y->key)
        return (x->key > y->key) - (x->key < y->key);
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The receive set containing byte x, or else the first one above it:
 * index into the nrecv sorted spans (nrecv if none). */
static int find_recv_span(const aip_span *spans, int nrecv, MPI_Aint x)
{
    int lo = 0, hi = nrecv; /* first span with hi > x */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (spans[mid].hi > x)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

void aip_general_start(aip_general *g, char *buf, const aip_block *send,
                       const aip_block *recv, char *aux, MPI_Aint aux_bytes,
                       AIP_Aux_strategy strategy, int nbuffers)
{
    int p = g->size, nrecv = 0, n = 0;

    g->buf = buf;
    g->total_missing = g->total_unsent = 0;
    for (int j = 0; j < p; j++) {
        g->rpos[j] = recv[j].offset;
        g->rend[j] = recv[j].offset + recv[j].bytes;
        g->missing[j] = recv[j].bytes;
        g->total_missing += recv[j].bytes;
        g->take_buf[j] = g->take_aux[j] = 0;
        if (recv[j].bytes > 0)
            g->spans[nrecv++] = (aip_span){ g->rpos[j], g->rend[j], j, 0 };
    }
    qsort(g->spans, (size_t)nrecv, sizeof *g->spans, by_key_then_address);

    /* Split each send set at the receive-set borders inside it: every
     * subset then lies in one receive set or in none.  2p borders split
     * the p send sets into at most 3p subsets. */
    for (int i = 0; i < p; i++) {
        MPI_Aint x = send[i].offset, end = send[i].offset + send[i].bytes;
        g->dest_first[i] = g->dest_next[i] = n;
        g->unsent[i] = send[i].bytes;
        g->total_unsent += send[i].bytes;
        while (x < end) {
            int r = find_recv_span(g->spans, nrecv, x);
            int inside = r < nrecv && g->spans[r].lo <= x;
            MPI_Aint stop = r == nrecv ? end : inside ? g->spans[r].hi : g->spans[r].lo;
            stop = min_aint(stop, end);
            g->subsets[n++] = (aip_subset){ x, stop, i, inside ? g->spans[r].owner : -1 };
            x = stop;
        }
    }
    g->dest_first[p] = n;
    g->nsubsets = n;

    /* The subsets of each receive set, in address order: rmatch inverted. */
    int m = 0;
    for (int s = 0; s < n; s++)
        if (g->subsets[s].rmatch >= 0)
            g->spans[m++] = (aip_span){ g->subsets[s].lo, g->subsets[s].hi, s,
                                        g->subsets[s].rmatch };
    qsort(g->spans, (size_t)m, sizeof *g->spans, by_key_then_address);
    for (int j = 0, k = 0; j <= p; j++) {
        g->region_first[j] = k;
        while (k < m && g->spans[k].key == j) {
            g->in_region[k] = g->spans[k].owner;
            k++;
        }
    }
    for (int j = 0; j < p; j++) {
        int first = g->region_first[j];
        g->rtop[j] = first < g->region_first[j + 1] ? g->subsets[g->in_region[first]].lo
                                                    : g->rend[j];
    }

    aip_aux_start(&g->aux, aux, aux_bytes, strategy, nbuffers);
    g->phases = g->moved_bytes = 0;
}

int aip_general_active(const aip_general *g)
{
    return g->total_missing > 0 || g->total_unsent > 0;
}

void aip_general_requests(aip_general *g, MPI_Aint *request)
{
    int p = g->size;

    for (int j = 0; j < p; j++) {
        /* Into the free bottom of R_j first; what does not fit there goes
         * to the auxiliary buffer, if j has nothing waiting in it. */
        MPI_Aint take = min_aint(min_aint(g->rtop[j] - g->rpos[j], g->missing[j]),
                                 AIP_GENERAL_MESSAGE_MAX);
        g->take_buf[j] = take;
        g->need[j] = g->aux.held[j] == 0
                         ? min_aint(g->missing[j] - take, AIP_GENERAL_MESSAGE_MAX - take)
                         : 0;
    }
    aip_aux_grant(&g->aux, g->need, g->take_aux, (g->rank + 1) % p);
    for (int j = 0; j < p; j++)
        request[j] = g->take_buf[j] + g->take_aux[j];
}

int aip_general_send_pieces(const aip_general *g, int dest, MPI_Aint bytes, aip_piece *pieces)
{
    int n = 0;
    for (int s = g->dest_next[dest]; bytes > 0 && s < g->dest_first[dest + 1]; s++) {
        MPI_Aint take = min_aint(bytes, g->subsets[s].hi - g->subsets[s].lo);
        if (take > 0)
            pieces[n++] = (aip_piece){ g->buf + g->subsets[s].lo, take };
        bytes -= take;
    }
    return n;
}

int aip_general_recv_pieces(const aip_general *g, int source, aip_piece *pieces)
{
    int n = 0;
    if (g->take_buf[source] > 0)
        pieces[n++] = (aip_piece){ g->buf + g->rpos[source], g->take_buf[source] };
    if (g->take_aux[source] > 0)
        pieces[n++] = (aip_piece){ aip_aux_tail_of(&g->aux, source, g->take_aux[source]),
                                   g->take_aux[source] };
    return n;
}

/* Remove the `bytes` lowest unsent bytes of dest's subsets. */
static void consume(aip_general *g, int dest, MPI_Aint bytes)
{
    int s = g->dest_next[dest];
    g->unsent[dest] -= bytes;
    g->total_unsent -= bytes;
    while (s < g->dest_first[dest + 1]) {
        aip_subset *sub = &g->subsets[s];
        MPI_Aint take = min_aint(bytes, sub->hi - sub->lo);
        sub->lo += take;
        bytes -= take;
        if (sub->lo < sub->hi)
            break;
        s++;
    }
    g->dest_next[dest] = s;
}

/* Push R_j's unsent data to its top, in order; returns the new rtop_j. */
static MPI_Aint join_free_space(aip_general *g, int j)
{
    MPI_Aint top = g->rend[j];
    for (int k = g->region_first[j + 1] - 1; k >= g->region_first[j]; k--) {
        aip_subset *sub = &g->subsets[g->in_region[k]];
        MPI_Aint bytes = sub->hi - sub->lo;
        if (bytes == 0)
            continue;
        if (sub->hi != top) {
            memmove(g->buf + top - bytes, g->buf + sub->lo, (size_t)bytes);
            g->moved_bytes += bytes;
            sub->lo = top - bytes;
            sub->hi = top;
        }
        top = sub->lo;
    }
    return top;
}

void aip_general_update(aip_general *g, const MPI_Aint *sent)
{
    int p = g->size;

    g->phases++;
    for (int i = 0; i < p; i++)
        if (sent[i] > 0)
            consume(g, i, sent[i]);
    for (int j = 0; j < p; j++) {
        g->rpos[j] += g->take_buf[j];
        g->missing[j] -= g->take_buf[j] + g->take_aux[j];
        g->total_missing -= g->take_buf[j] + g->take_aux[j];
        g->take_buf[j] = g->take_aux[j] = 0;
        if (g->rpos[j] == g->rend[j])
            continue;
        g->rtop[j] = join_free_space(g, j);
        /* What waits in the auxiliary buffer comes first: move it in. */
        MPI_Aint drained = aip_aux_drain(&g->aux, j, g->buf + g->rpos[j], g->rtop[j] - g->rpos[j]);
        g->rpos[j] += drained;
        g->moved_bytes += drained;
    }
    aip_aux_compact(&g->aux);
}
