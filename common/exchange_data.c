/*
 * exchange_data.c - the exchanged data and its checks (see exchange_data.h).
 */
#include <string.h>

#include "exchange_data.h"

/* Peer j's message: counts[j] elements at displs[j], or, with counts NULL,
 * block j of `block` elements. */
static size_t message_start(int j, const int *displs, size_t block)
{
    return displs ? (size_t)displs[j] : (size_t)j * block;
}

static size_t message_count(int j, const int *counts, size_t block)
{
    return counts ? (size_t)counts[j] : block;
}

static void fill_send(element *buf, int rank, int p, const int *counts, const int *displs,
                      size_t block)
{
    for (int j = 0; j < p; j++) {
        element *at = buf + message_start(j, displs, block);
        size_t count = message_count(j, counts, block);
        for (size_t k = 0; k < count; k++)
            at[k] = element_value(rank, j, k);
    }
}

static long long count_misplaced(const element *buf, int rank, int p, const int *counts,
                                 const int *displs, size_t block, first_wrong *first)
{
    long long wrong = 0;

    for (int j = 0; j < p; j++) {
        const element *at = buf + message_start(j, displs, block);
        size_t count = message_count(j, counts, block);
        for (size_t k = 0; k < count; k++)
            if (at[k] != element_value(j, rank, k) && wrong++ == 0 && first)
                *first = (first_wrong){ j, k };
    }
    return wrong;
}

void fill_send_regions(element *buf, int rank, int p, const int *counts, const int *displs)
{
    fill_send(buf, rank, p, counts, displs, 0);
}

long long count_misplaced_regions(const element *buf, int rank, int p, const int *counts,
                                  const int *displs, first_wrong *first)
{
    return count_misplaced(buf, rank, p, counts, displs, 0, first);
}

void fill_send_blocks(element *buf, int rank, int p, size_t count)
{
    fill_send(buf, rank, p, NULL, NULL, count);
}

long long count_misplaced_blocks(const element *buf, int rank, int p, size_t count,
                                 first_wrong *first)
{
    return count_misplaced(buf, rank, p, NULL, NULL, count, first);
}

void poison_elements(element *buf, size_t count)
{
    memset(buf, 0xff, sizeof(element) * count); /* every byte of ELEMENT_POISON */
}

void fill_message_bytes(unsigned char *at, int src, int dst, size_t count)
{
    for (size_t k = 0; k < count; k++)
        at[k] = byte_value(src, dst, k);
}

size_t count_wrong_bytes(const unsigned char *at, int src, int dst, size_t count,
                         size_t *first)
{
    size_t wrong = 0;

    for (size_t k = 0; k < count; k++)
        if (at[k] != byte_value(src, dst, k) && wrong++ == 0 && first)
            *first = k;
    return wrong;
}

int first_differing_region(const void *buf, const void *reference, int p, const int *counts,
                           const int *displs, size_t unit_bytes)
{
    for (int j = 0; j < p; j++) {
        size_t at = (size_t)displs[j] * unit_bytes;
        if (memcmp((const char *)buf + at, (const char *)reference + at,
                   (size_t)counts[j] * unit_bytes) != 0)
            return j;
    }
    return -1;
}
