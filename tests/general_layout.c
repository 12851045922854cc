/*
 * general_layout.c - random problems for the general in-place Alltoallv
 * (see general_layout.h).
 */
#include <stdlib.h>

#include "general_layout.h"
#include "test_util.h"

const char *const layout_pattern_names[N_PATTERNS] = { "dense", "sparse", "one-sender",
                                                       "grains" };
const char *const layout_placement_names[N_PLACEMENTS] = { "shuffled", "reversed", "over" };

void layout_counts(int p, uint64_t seed, layout_pattern pattern, long long max_count,
                   long long *count)
{
    long long grain = max_count / 2 > 0 ? max_count / 2 : 1;
    for (int i = 0; i < p; i++) {
        /* sparse: this rank's 1-3 peers */
        int npeers = 1 + (int)(test_hash(seed, (uint64_t)i, 7) % 3);
        /* dense: some ranks send ten times less, so that totals differ */
        long long scale = test_hash(seed, (uint64_t)i, 11) % 4 == 0 ? 10 : 1;
        for (int j = 0; j < p; j++) {
            uint64_t u = test_hash(seed, (uint64_t)i, 1000 + (uint64_t)j);
            long long c = 0;
            switch (pattern) {
            case PATTERN_DENSE:
                c = u % 5 == 0 ? 0 : (long long)((u >> 8) % (uint64_t)(max_count / scale + 1));
                break;
            case PATTERN_SPARSE:
                for (int k = 0; k < npeers; k++)
                    if ((int)(test_hash(seed, (uint64_t)i, 100 + (uint64_t)k) % (uint64_t)p) == j)
                        c = 1 + (long long)((u >> 8) % (uint64_t)max_count);
                break;
            case PATTERN_ONE_SENDER:
                c = i == 0 ? 1 + (long long)((u >> 8) % (uint64_t)max_count) : 0;
                break;
            case PATTERN_GRAINS:
                c = grain * (long long)(u % 3);
                break;
            default:
                break;
            }
            count[(size_t)i * (size_t)p + (size_t)j] = c;
        }
    }
}

/* A random order of 0..p-1. */
static void shuffle(int p, uint64_t seed, uint64_t salt, int *order)
{
    for (int i = 0; i < p; i++)
        order[i] = i;
    for (int i = p - 1; i > 0; i--) {
        int k = (int)(test_hash(seed, salt, (uint64_t)i) % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[k];
        order[k] = t;
    }
}

/* Lay regions out one after the other in `order`, from `start`, with a gap
 * of a few elements before a third of them; returns the end. */
static long long lay_out(int p, const int *order, const long long *size, long long start,
                         uint64_t seed, uint64_t salt, long long *displ)
{
    long long at = start;
    for (int k = 0; k < p; k++) {
        uint64_t u = test_hash(seed, salt, (uint64_t)k);
        if (u % 3 == 0)
            at += (long long)((u >> 8) % 5);
        displ[order[k]] = at;
        at += size[order[k]];
    }
    return at;
}

void layout_place(int p, int rank, uint64_t seed, layout_placement placement,
                  const long long *count, long long *sdispl, long long *rdispl,
                  long long *buf_count)
{
    int *order = malloc(sizeof(int) * (size_t)p);
    long long *ssize = malloc(sizeof(long long) * (size_t)p);
    long long *rsize = malloc(sizeof(long long) * (size_t)p);
    char *taken = calloc((size_t)p, 1);
    uint64_t salt = (uint64_t)rank * 16;

    for (int j = 0; j < p; j++) {
        ssize[j] = count[(size_t)rank * (size_t)p + (size_t)j];
        rsize[j] = count[(size_t)j * (size_t)p + (size_t)rank];
    }
    shuffle(p, seed, salt + 1, order);
    long long end = lay_out(p, order, ssize, 0, seed, salt + 2, sdispl);

    if (placement == PLACE_REVERSED) {
        for (int k = 0; k < p / 2; k++) {
            int t = order[k];
            order[k] = order[p - 1 - k];
            order[p - 1 - k] = t;
        }
        long long rend = lay_out(p, order, rsize, 0, seed, salt + 3, rdispl);
        end = rend > end ? rend : end;
    } else if (placement == PLACE_OVER) {
        /* Each receive region takes the place of a send region of the same
         * size (another message's, when there is one); the rest go after. */
        int nrest = 0;
        shuffle(p, seed, salt + 4, order);
        for (int k = 0; k < p; k++) {
            int j = order[k], match = -1;
            for (int i = 0; i < p && rsize[j] > 0; i++)
                if (!taken[i] && ssize[i] == rsize[j] && (match < 0 || i != j))
                    match = i;
            if (match >= 0) {
                taken[match] = 1;
                rdispl[j] = sdispl[match];
            } else {
                order[nrest++] = j;
            }
        }
        long long rend = lay_out(nrest, order, rsize, end, seed, salt + 5, rdispl);
        end = rend;
    } else {
        shuffle(p, seed, salt + 6, order);
        long long rend = lay_out(p, order, rsize, 0, seed, salt + 3, rdispl);
        end = rend > end ? rend : end;
    }
    *buf_count = end;
    free(order);
    free(ssize);
    free(rsize);
    free(taken);
}
