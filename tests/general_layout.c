/*
 * general_layout.c - random problems for the general in-place Alltoallv and
 * their check against MPI_Alltoallv (see general_layout.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void layout_problem_place(int p, int rank, uint64_t seed, layout_placement placement,
                          layout_problem *pr)
{
    long long *sd = malloc(sizeof(long long) * (size_t)p);
    long long *rd = malloc(sizeof(long long) * (size_t)p);
    pr->scounts = malloc(sizeof(int) * (size_t)p);
    pr->sdispls = malloc(sizeof(int) * (size_t)p);
    pr->rcounts = malloc(sizeof(int) * (size_t)p);
    pr->rdispls = malloc(sizeof(int) * (size_t)p);
    layout_place(p, rank, seed, placement, pr->count, sd, rd, &pr->elements);
    for (int j = 0; j < p; j++) {
        pr->scounts[j] = (int)pr->count[(size_t)rank * (size_t)p + (size_t)j];
        pr->rcounts[j] = (int)pr->count[(size_t)j * (size_t)p + (size_t)rank];
        pr->sdispls[j] = (int)sd[j];
        pr->rdispls[j] = (int)rd[j];
    }
    free(sd);
    free(rd);
}

void layout_problem_make(int p, int rank, uint64_t seed, layout_pattern pattern,
                         layout_placement placement, long long max_count, layout_problem *pr)
{
    pr->count = malloc(sizeof(long long) * (size_t)p * (size_t)p);
    layout_counts(p, seed, pattern, max_count, pr->count);
    layout_problem_place(p, rank, seed, placement, pr);
}

void layout_problem_free(layout_problem *pr)
{
    free(pr->count);
    free(pr->scounts);
    free(pr->sdispls);
    free(pr->rcounts);
    free(pr->rdispls);
}

void layout_types_create(layout_type types[N_LAYOUT_TYPES])
{
    MPI_Datatype three_ints;
    MPI_Type_contiguous(3, MPI_INT, &three_ints);
    MPI_Type_commit(&three_ints);
    types[0] = (layout_type){ "MPI_BYTE", MPI_BYTE, 1 };
    types[1] = (layout_type){ "MPI_DOUBLE", MPI_DOUBLE, 8 };
    types[2] = (layout_type){ "3 x MPI_INT", three_ints, 12 };
}

void layout_types_free(layout_type types[N_LAYOUT_TYPES])
{
    MPI_Type_free(&types[2].type);
}

int layout_check_exchange(const layout_problem *pr, const layout_type *type, uint64_t seed,
                          layout_exchange exchange, void *context, const char *what)
{
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t bytes = (size_t)pr->elements * (size_t)type->size + 1;
    unsigned char *input = malloc(bytes), *expected = malloc(bytes), *buf = malloc(bytes);
    test_fill(input, bytes, seed, rank);
    memcpy(buf, input, bytes);
    memset(expected, 0, bytes);

    int ok = MPI_Alltoallv(input, pr->scounts, pr->sdispls, type->type, expected, pr->rcounts,
                           pr->rdispls, type->type, MPI_COMM_WORLD) == MPI_SUCCESS;
    int err = exchange(buf, pr, type->type, context);
    if (err != MPI_SUCCESS) {
        fprintf(stderr, "rank %d: FAIL, error %d (%s)\n", rank, err, what);
        ok = 0;
    }
    int differs = ok ? first_differing_region(buf, expected, p, pr->rcounts, pr->rdispls,
                                              (size_t)type->size)
                     : -1;
    if (differs >= 0) {
        fprintf(stderr, "rank %d: FAIL, the data from rank %d differs (%s)\n", rank, differs,
                what);
        ok = 0;
    }
    free(input);
    free(expected);
    free(buf);
    return test_agree(ok, MPI_COMM_WORLD);
}
