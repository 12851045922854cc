/*
 * exchange_data.h - what the benchmarks (bench/) and the tests (tests/)
 * exchange, and how they check where it landed.
 *
 *   - One element type whose value names its sender, its receiver and its
 *     index in the message, so that a result is checked without a reference
 *     copy (which would double the memory the benchmarks measure).
 *   - The same for exchanges counted in bytes (MPI_BYTE at odd offsets).
 *   - Receive regions compared byte for byte with a reference, for the tests
 *     that run the MPI library's out-of-place call on a copy of the input
 *     (their input is noise from test_fill, tests/test_util.h).
 *
 * Buffers are laid out as MPI_Alltoallv's are (counts[j] elements at
 * displs[j] for peer j) or as MPI_Alltoall's (p blocks of `count`, block j
 * for peer j).  No MPI calls: the simulation tests use it too.
 */
#ifndef EXCHANGE_DATA_H
#define EXCHANGE_DATA_H

#include <stddef.h>
#include <stdint.h>

/* ---- Elements ---- */

/* The exchanged element; its MPI type is ELEMENT_MPI_TYPE (with <mpi.h>). */
typedef uint64_t element;
#define ELEMENT_MPI_TYPE MPI_UINT64_T

/* A rank takes 16 bits of an element: ranks 0 .. ELEMENT_MAX_RANKS - 1. */
#define ELEMENT_MAX_RANKS 65535

/* All bits set: rank 65535 to rank 65535, never a value; marks bytes no
 * exchange may leave there. */
#define ELEMENT_POISON ((element)-1)

/* Element k of the message rank src sends to rank dst (k modulo 2^32). */
static inline element element_value(int src, int dst, size_t k)
{
    return (uint64_t)src << 48 | (uint64_t)dst << 32 | (uint32_t)k;
}

/* Where a check found its first wrong element (or byte). */
typedef struct first_wrong {
    int source;   /* the peer whose message it belongs to */
    size_t index; /* in that message */
} first_wrong;

/* Before an exchange: rank `rank`'s message to each j, counts[j] elements at
 * displs[j]. */
void fill_send_regions(element *buf, int rank, int p, const int *counts, const int *displs);
/* After it: elements of the receive regions (counts[j] at displs[j], from j)
 * that are not what j sent to `rank`; the first into *first unless NULL. */
long long count_misplaced_regions(const element *buf, int rank, int p, const int *counts,
                                  const int *displs, first_wrong *first);

/* The same for p blocks of `count` elements, block j for (or from) rank j. */
void fill_send_blocks(element *buf, int rank, int p, size_t count);
long long count_misplaced_blocks(const element *buf, int rank, int p, size_t count,
                                 first_wrong *first);

void poison_elements(element *buf, size_t count);

/* ---- Bytes ---- */

/* Byte k of the message src sends to dst.  Not unique, but a byte from
 * another sender, receiver or place differs from it almost always: shifts by
 * multiples of 256 change it through k >> 8 and k >> 16. */
static inline unsigned char byte_value(int src, int dst, size_t k)
{
    return (unsigned char)((unsigned)src * 131u + (unsigned)dst * 17u + k * 7u + (k >> 8) +
                           (k >> 16) + 1u);
}

/* One message of `count` bytes at `at`: its pattern, and the bytes that
 * differ from it (the first one's index into *first unless NULL). */
void fill_message_bytes(unsigned char *at, int src, int dst, size_t count);
size_t count_wrong_bytes(const unsigned char *at, int src, int dst, size_t count,
                         size_t *first);

/* ---- Against a reference ---- */

/* The first peer j whose receive region (counts[j] units of unit_bytes at
 * displs[j] units) differs between buf and reference, byte for byte; -1 when
 * none does.  Bytes outside the regions are not compared. */
int first_differing_region(const void *buf, const void *reference, int p, const int *counts,
                           const int *displs, size_t unit_bytes);

#endif /* EXCHANGE_DATA_H */
