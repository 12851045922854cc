/*
 * general_aux.c - the auxiliary buffer of the general in-place Alltoallv:
 * where data that arrives before its place in the buffer is free waits
 * (Hofmann & Ruenger, EuroMPI 2010, Sect. 3.5).
 *
 * Two ways of sharing the budget among the sources:
 *   static  the paper's: b buffers of budget/b bytes; data from source j
 *           goes to buffer j mod b, first come, first served.  No search
 *           for space, but a source can never use more than budget/b, and
 *           a buffer whose sources have all their data placed idles: with
 *           a budget above the messages, most of it is never used.
 *   pool    one buffer of the whole budget, granted at each phase to the
 *           source with the most data still to come first, as much as it
 *           can take, then to the next: the budget never idles while a
 *           source needs room, and the largest remaining message, which
 *           bounds the number of phases, advances fastest.  (Equal shares
 *           among all waiting sources were slower in the benchmark: more,
 *           smaller messages per phase, and more local moves.)
 * Either way a source holds at most one piece (it is granted space only
 * when it holds none), pieces are appended at the end of their arena, and
 * after each phase the pieces are moved down to close the gaps the drained
 * ones left: no fragmentation, and at most the budget's bytes moved.
 */
#include <stdlib.h>
#include <string.h>

#include "general.h"

int aip_aux_alloc(aip_aux *aux, int size)
{
    size_t n = (size_t)size + 1;
    memset(aux, 0, sizeof *aux);
    aux->size = size;
    aux->arena_end = aip_malloc_held(n * sizeof *aux->arena_end, &aux->held_bytes);
    aux->arena_used = aip_malloc_held(n * sizeof *aux->arena_used, &aux->held_bytes);
    aux->head = aip_malloc_held(n * sizeof *aux->head, &aux->held_bytes);
    aux->tail = aip_malloc_held(n * sizeof *aux->tail, &aux->held_bytes);
    aux->next = aip_malloc_held(n * sizeof *aux->next, &aux->held_bytes);
    aux->offset = aip_malloc_held(n * sizeof *aux->offset, &aux->held_bytes);
    aux->held = aip_malloc_held(n * sizeof *aux->held, &aux->held_bytes);
    aux->order = aip_malloc_held(n * sizeof *aux->order, &aux->held_bytes);
    if (!aux->arena_end || !aux->arena_used || !aux->head || !aux->tail || !aux->next ||
        !aux->offset || !aux->held || !aux->order) {
        aip_aux_free(aux);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

void aip_aux_free(aip_aux *aux)
{
    free(aux->arena_end);
    free(aux->arena_used);
    free(aux->head);
    free(aux->tail);
    free(aux->next);
    free(aux->offset);
    free(aux->held);
    free(aux->order);
    memset(aux, 0, sizeof *aux);
}

void aip_aux_start(aip_aux *aux, char *base, MPI_Aint bytes, AIP_Aux_strategy strategy,
                   int nbuffers)
{
    int n = strategy == AIP_AUX_STRATEGY_STATIC ? nbuffers : 1;

    /* Every arena must hold a byte: that is what makes the exchange progress. */
    if (n > aux->size)
        n = aux->size;
    if (n > bytes)
        n = bytes > 0 ? (int)bytes : 1;
    if (n < 1)
        n = 1;
    aux->base = base;
    aux->bytes = bytes;
    aux->strategy = strategy;
    aux->narenas = n;
    for (int k = 0; k < n; k++) {
        aux->arena_end[k] = bytes * (k + 1) / n;
        aux->arena_used[k] = 0;
        aux->head[k] = aux->tail[k] = -1;
    }
    for (int j = 0; j < aux->size; j++) {
        aux->next[j] = -1;
        aux->held[j] = 0;
        aux->offset[j] = 0;
    }
}

static int arena_of(const aip_aux *aux, int source)
{
    return aux->strategy == AIP_AUX_STRATEGY_STATIC ? source % aux->narenas : 0;
}

static MPI_Aint arena_begin(const aip_aux *aux, int k)
{
    return k == 0 ? 0 : aux->arena_end[k - 1];
}

static MPI_Aint arena_free(const aip_aux *aux, int k)
{
    return aux->arena_end[k] - arena_begin(aux, k) - aux->arena_used[k];
}

/* Give `source` `bytes` at the end of its arena (it holds nothing yet). */
static void append(aip_aux *aux, int source, MPI_Aint bytes)
{
    int k = arena_of(aux, source);
    aux->offset[source] = arena_begin(aux, k) + aux->arena_used[k];
    aux->held[source] = bytes;
    aux->arena_used[k] += bytes;
    aux->next[source] = -1;
    if (aux->tail[k] < 0)
        aux->head[k] = source;
    else
        aux->next[aux->tail[k]] = source;
    aux->tail[k] = source;
}

/* Largest need first; ties in the order of service (qsort is not stable). */
static int by_need_descending(const void *a, const void *b)
{
    const aip_aux_need *x = a, *y = b;
    if (x->need != y->need)
        return (x->need < y->need) - (x->need > y->need);
    return (x->step > y->step) - (x->step < y->step);
}

void aip_aux_grant(aip_aux *aux, const MPI_Aint *need, MPI_Aint *grant, int first)
{
    int p = aux->size, n = 0;

    for (int j = 0; j < p; j++)
        grant[j] = 0;
    if (aux->strategy == AIP_AUX_STRATEGY_STATIC) {
        for (int step = 0; step < p; step++) {
            int j = (first + step) % p;
            MPI_Aint room = arena_free(aux, arena_of(aux, j));
            if (need[j] > 0 && room > 0)
                append(aux, j, grant[j] = need[j] < room ? need[j] : room);
        }
        return;
    }

    /* Pool: the largest need first, as much as it can take, then the next. */
    for (int step = 0; step < p; step++) {
        int j = (first + step) % p;
        if (need[j] > 0)
            aux->order[n++] = (aip_aux_need){ need[j], j, step };
    }
    qsort(aux->order, (size_t)n, sizeof *aux->order, by_need_descending);
    MPI_Aint left = arena_free(aux, 0);
    for (int i = 0; i < n && left > 0; i++) {
        int j = aux->order[i].source;
        append(aux, j, grant[j] = need[j] < left ? need[j] : left);
        left -= grant[j];
    }
}

char *aip_aux_tail_of(const aip_aux *aux, int source, MPI_Aint bytes)
{
    return aux->base + aux->offset[source] + aux->held[source] - bytes;
}

MPI_Aint aip_aux_drain(aip_aux *aux, int source, char *dest, MPI_Aint bytes)
{
    MPI_Aint n = aux->held[source] < bytes ? aux->held[source] : bytes;
    if (n > 0) {
        memcpy(dest, aux->base + aux->offset[source], (size_t)n);
        aux->offset[source] += n;
        aux->held[source] -= n;
    }
    return n;
}

void aip_aux_compact(aip_aux *aux)
{
    for (int k = 0; k < aux->narenas; k++) {
        MPI_Aint end = arena_begin(aux, k);
        int prev = -1;
        for (int j = aux->head[k]; j >= 0; j = aux->next[j]) {
            if (aux->held[j] == 0)
                continue; /* unlinked below */
            if (aux->offset[j] != end)
                memmove(aux->base + end, aux->base + aux->offset[j], (size_t)aux->held[j]);
            aux->offset[j] = end;
            end += aux->held[j];
            if (prev < 0)
                aux->head[k] = j;
            else
                aux->next[prev] = j;
            prev = j;
        }
        if (prev < 0)
            aux->head[k] = -1;
        else
            aux->next[prev] = -1;
        aux->tail[k] = prev;
        aux->arena_used[k] = end - arena_begin(aux, k);
    }
}
