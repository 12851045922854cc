/*
 * pmpi_test - what MPI promises for MPI_Alltoall, MPI_Alltoallv and
 * MPI_Alltoallw with MPI_IN_PLACE, checked on a plain MPI program: it calls
 * MPI only, so that tests/mpi/pmpi.sh runs it once on MPI alone (the test checks
 * itself) and then under liballtoall_inplace_pmpi, preloaded or linked in
 * (pmpi_linked_test: this file, linked with the layer before MPI).
 *
 *   mpirun -n P pmpi_test [--layer] [--out-of-place]
 *
 *   --layer         the layer must be in the process (its aip_layer_alltoall
 *                   symbol), and the cases MPI leaves undefined but the layer
 *                   defines (blocks of different sizes) are run too
 *   --out-of-place  out-of-place calls are checked as well (for
 *                   AIP_PMPI_OUT_OF_PLACE=1)
 *   --bad-setting in-place|out-of-place
 *                   only the calls of bad_setting_cases, for a variable of the
 *                   layer that is bad or differs between ranks
 *
 * Every case checks each received element by its value (sender, receiver,
 * index: common/exchange_data.h), that bytes outside the receive regions
 * are untouched, and that every rank saw the same outcome.  Cases: counts 0,
 * 1 and more than the aux budget; derived contiguous datatypes; datatypes
 * with gaps, on every rank or on rank 0 alone (MPI's own runs them: the
 * layer must decline on every rank); MPI_Alltoallv with zero counts,
 * permuted and gapped displacements;
 * MPI_Alltoallw with per-peer datatypes that differ between the two sides
 * of a pair; one rank (MPI_COMM_SELF); an intercommunicator of unequal
 * groups (out of place, all three calls, passed through); in place over
 * MPI_BOTTOM with datatypes of absolute addresses, and MPI_DATATYPE_NULL at
 * zero counts, each against MPI's own (PMPI_*) on a copy, bit for bit and
 * error class; sendcount, sendtype and the send arrays ignored in place
 * (garbage given); errors under MPI_ERRORS_RETURN, the same class everywhere
 * and the buffer untouched; out of place, rank 0 alone with other send
 * datatypes or MPI_BOTTOM (MPI's own on every rank).
 */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static int passed, failed;

/* Symmetric pair sizes, in elements: g(r, j) = g(j, r); some zero. */
static int pair_count(int r, int j, int scale)
{
    int a = r < j ? r : j, b = r < j ? j : r;
    return (a + 2 * b + scale) % 5 == 0 ? 0 : (a * 7 + b * 3) % 11 + scale;
}

/* Regions of pair_count elements, in reverse peer order with a gap of
 * `gap` elements before each: displacements are neither sorted nor dense. */
static size_t lay_out(int rank, int p, int scale, int gap, int *counts, int *displs)
{
    size_t at = 0;
    for (int j = p - 1; j >= 0; j--) {
        at += (size_t)gap;
        counts[j] = pair_count(rank, j, scale);
        displs[j] = (int)at;
        at += (size_t)counts[j];
    }
    return at + (size_t)gap;
}

/* Whether buf holds what each peer sent to `rank` in its region, and
 * ELEMENT_POISON everywhere else (n elements in all). */
static int received(const element *buf, size_t n, int rank, int p, const int *counts,
                    const int *displs)
{
    char *inside = calloc(n ? n : 1, 1);
    int ok = inside && count_misplaced_regions(buf, rank, p, counts, displs, NULL) == 0;
    for (int j = 0; ok && j < p; j++)
        memset(inside + displs[j], 1, (size_t)counts[j]);
    for (size_t i = 0; ok && i < n; i++)
        if (!inside[i] && buf[i] != ELEMENT_POISON)
            ok = 0;
    free(inside);
    return ok;
}

/* A buffer of n poisoned elements with rank's messages in their regions. */
static element *filled(size_t n, int rank, int p, const int *counts, const int *displs)
{
    element *buf = malloc(sizeof *buf * (n ? n : 1));
    if (!buf)
        MPI_Abort(MPI_COMM_WORLD, 2);
    poison_elements(buf, n);
    fill_send_regions(buf, rank, p, counts, displs);
    return buf;
}

/* ---- MPI_Alltoall ---- */

static void alltoall_case(MPI_Comm comm, int count, MPI_Datatype unit, int unit_elements,
                          int out_of_place, const char *what)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t block = (size_t)count * (size_t)unit_elements, n = block * (size_t)p;
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    for (int j = 0; j < p; j++) {
        counts[j] = (int)block;
        displs[j] = (int)(block * (size_t)j);
    }
    element *buf = filled(n, rank, p, counts, displs), *recv = buf;
    int err;
    if (out_of_place) {
        recv = malloc(sizeof *recv * (n ? n : 1));
        poison_elements(recv, n);
        err = MPI_Alltoall(buf, count, unit, recv, count, unit, comm);
    } else {
        /* sendcount and sendtype are ignored in place: give nonsense */
        err = MPI_Alltoall(MPI_IN_PLACE, -7, MPI_DATATYPE_NULL, buf, count, unit, comm);
    }
    char label[160];
    snprintf(label, sizeof label, "MPI_Alltoall%s %s, count %d", out_of_place ? " (oop)" : "",
             what, count);
    test_count(err == MPI_SUCCESS && received(recv, n, rank, p, counts, displs), label,
               &passed, &failed, comm);
    if (recv != buf)
        free(recv);
    free(buf);
    free(counts);
    free(displs);
}

/* A datatype with gaps: `elements` elements, each followed by a one-element hole
 * (extent resized to 2 * elements), built from ELEMENT_MPI_TYPE. */
static MPI_Datatype gapped_type(int elements)
{
    MPI_Datatype vector, resized;
    MPI_Type_vector(elements, 1, 2, ELEMENT_MPI_TYPE, &vector);
    MPI_Type_create_resized(vector, 0, (MPI_Aint)(2 * elements * sizeof(element)), &resized);
    MPI_Type_free(&vector);
    MPI_Type_commit(&resized);
    return resized;
}

/* In place with a gapped datatype: block j is `count` elements, each in the
 * first slot of two; the second slots stay poisoned.  With only_rank_0, the
 * other ranks use the dense element type for the same signature: rank 0
 * alone sees gaps, and every rank must still leave the call to MPI. */
static void alltoall_gapped_case(MPI_Comm comm, int count, int only_rank_0)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int gapped = !only_rank_0 || rank == 0, stride = gapped ? 2 : 1;
    MPI_Datatype type = gapped ? gapped_type(1) : ELEMENT_MPI_TYPE;
    size_t n = (size_t)stride * count * (size_t)p;
    element *buf = malloc(sizeof *buf * (n ? n : 1));
    poison_elements(buf, n);
    for (int j = 0; j < p; j++)
        for (int k = 0; k < count; k++)
            buf[stride * ((size_t)j * count + k)] = element_value(rank, j, (size_t)k);
    int err = MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, count, type, comm);
    int ok = err == MPI_SUCCESS;
    for (int j = 0; ok && j < p; j++)
        for (int k = 0; ok && k < count; k++) {
            size_t at = stride * ((size_t)j * count + k);
            ok = buf[at] == element_value(j, rank, (size_t)k) &&
                 (!gapped || buf[at + 1] == ELEMENT_POISON);
        }
    test_count(ok,
               only_rank_0 ? "MPI_Alltoall in place, gapped datatype on rank 0 only (MPI's own)"
                           : "MPI_Alltoall in place, gapped datatype (MPI's own)",
               &passed, &failed, comm);
    if (gapped)
        MPI_Type_free(&type);
    free(buf);
}

/* ---- MPI_Alltoallv ---- */

static void alltoallv_case(MPI_Comm comm, int scale, int gap, int gapped, const char *what)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int *garbage = malloc(sizeof(int) * (size_t)p);
    size_t n = lay_out(rank, p, scale, gap, counts, displs);
    for (int j = 0; j < p; j++)
        garbage[j] = -1 - j;
    int ok;
    if (!gapped) {
        element *buf = filled(n, rank, p, counts, displs);
        int err = MPI_Alltoallv(MPI_IN_PLACE, garbage, garbage, MPI_DATATYPE_NULL, buf, counts,
                                displs, ELEMENT_MPI_TYPE, comm);
        ok = err == MPI_SUCCESS && received(buf, n, rank, p, counts, displs);
        free(buf);
    } else { /* element k of a region at 2 (displ + k), units of the gapped type */
        MPI_Datatype type = gapped_type(1);
        element *buf = malloc(sizeof *buf * 2 * (n ? n : 1));
        poison_elements(buf, 2 * n);
        for (int j = 0; j < p; j++)
            for (int k = 0; k < counts[j]; k++)
                buf[2 * ((size_t)displs[j] + k)] = element_value(rank, j, (size_t)k);
        int err = MPI_Alltoallv(MPI_IN_PLACE, garbage, garbage, MPI_DATATYPE_NULL, buf, counts,
                                displs, type, comm);
        ok = err == MPI_SUCCESS;
        for (int j = 0; ok && j < p; j++)
            for (int k = 0; ok && k < counts[j]; k++) {
                size_t at = 2 * ((size_t)displs[j] + k);
                ok = buf[at] == element_value(j, rank, (size_t)k) &&
                     buf[at + 1] == ELEMENT_POISON;
            }
        MPI_Type_free(&type);
        free(buf);
    }
    test_count(ok, what, &passed, &failed, comm);
    free(counts);
    free(displs);
    free(garbage);
}

/* ---- MPI_Alltoallw ---- */

/* Each pair's g elements travel as g elements on the lower rank and as g/2
 * pairs on the higher one where g is even (equal signatures, other types). */
static void alltoallw_case(MPI_Comm comm, int scale)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int *wcounts = malloc(sizeof(int) * (size_t)p), *bytes = malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *types = malloc(sizeof *types * (size_t)p);
    MPI_Datatype two;
    MPI_Type_contiguous(2, ELEMENT_MPI_TYPE, &two);
    MPI_Type_commit(&two);
    size_t n = lay_out(rank, p, scale, 3, counts, displs);
    for (int j = 0; j < p; j++) {
        int halve = counts[j] % 2 == 0 && rank > j;
        types[j] = halve ? two : ELEMENT_MPI_TYPE;
        wcounts[j] = halve ? counts[j] / 2 : counts[j];
        bytes[j] = displs[j] * (int)sizeof(element);
    }
    element *buf = filled(n, rank, p, counts, displs);
    int err = MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, wcounts, bytes, types, comm);
    char label[96];
    snprintf(label, sizeof label, "MPI_Alltoallw in place, mixed datatypes, scale %d", scale);
    test_count(err == MPI_SUCCESS && received(buf, n, rank, p, counts, displs), label, &passed,
               &failed, comm);
    MPI_Type_free(&two);
    free(buf);
    free(counts);
    free(displs);
    free(wcounts);
    free(bytes);
    free(types);
}

/* ---- Intercommunicators, errors ---- */

/* The intercommunicator between the lower and upper halves of comm (p >= 2), and the rank
 * in comm of the remote group's first. */
static MPI_Comm halves_intercomm(MPI_Comm comm, int tag, int *first_remote)
{
    int rank, p;
    MPI_Comm local, inter;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    *first_remote = rank < p / 2 ? p / 2 : 0;
    MPI_Comm_split(comm, rank < p / 2, rank, &local);
    MPI_Intercomm_create(local, 0, comm, *first_remote, tag, &inter);
    MPI_Comm_free(&local);
    return inter;
}

/* Out of place across an intercommunicator of the two halves of comm. */
static void intercomm_case(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (p < 2)
        return;
    int half = rank < p / 2, remote_p, first_remote, local_rank;
    MPI_Comm inter = halves_intercomm(comm, 99, &first_remote);
    MPI_Comm_remote_size(inter, &remote_p);
    MPI_Comm_rank(inter, &local_rank);
    element *send = malloc(sizeof *send * (size_t)remote_p * 3);
    element *recv = malloc(sizeof *recv * (size_t)remote_p * 3);
    fill_send_blocks(send, local_rank + (half ? 0 : 1000), remote_p, 3);
    int err = MPI_Alltoall(send, 3, ELEMENT_MPI_TYPE, recv, 3, ELEMENT_MPI_TYPE, inter);
    int ok = err == MPI_SUCCESS;
    for (int j = 0; ok && j < remote_p; j++)
        for (size_t k = 0; ok && k < 3; k++)
            ok = recv[(size_t)j * 3 + k] ==
                 element_value(j + (half ? 1000 : 0), local_rank, k);
    test_count(ok, "MPI_Alltoall on an intercommunicator (passed to MPI)", &passed, &failed,
               comm);
    free(send);
    free(recv);
    MPI_Comm_free(&inter);
}

/* Alltoallv and Alltoallw across the same intercommunicator: the arrays have one entry per
 * rank of the remote group, which differs in size from the local one for odd p (MPI's own
 * must get them whole: the Fortran bindings of the layer once sized them by the local group).
 * The pair of world ranks a, b exchanges 1 + (a + b) % 3 elements. */
static void intercomm_v_w_case(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    if (p < 2)
        return;
    int remote_p, first_remote;
    MPI_Comm inter = halves_intercomm(comm, 98, &first_remote);
    MPI_Comm_remote_size(inter, &remote_p);
    int *counts = malloc(sizeof(int) * (size_t)remote_p), *displs = malloc(sizeof(int) * (size_t)remote_p);
    int *bytes = malloc(sizeof(int) * (size_t)remote_p);
    MPI_Datatype *types = malloc(sizeof *types * (size_t)remote_p);
    size_t n = 0;
    for (int j = 0; j < remote_p; j++) {
        counts[j] = 1 + (rank + first_remote + j) % 3;
        displs[j] = (int)n;
        bytes[j] = (int)(n * sizeof(element));
        types[j] = ELEMENT_MPI_TYPE;
        n += (size_t)counts[j];
    }
    element *send = malloc(sizeof *send * n), *recv = malloc(sizeof *recv * n);
    for (int w = 0; w < 2; w++) {
        for (int j = 0; j < remote_p; j++)
            for (int k = 0; k < counts[j]; k++)
                send[displs[j] + k] = element_value(rank, first_remote + j, (size_t)k);
        poison_elements(recv, n);
        int err = w ? MPI_Alltoallw(send, counts, bytes, types, recv, counts, bytes, types, inter)
                    : MPI_Alltoallv(send, counts, displs, ELEMENT_MPI_TYPE, recv, counts, displs,
                                    ELEMENT_MPI_TYPE, inter);
        int ok = err == MPI_SUCCESS;
        for (int j = 0; ok && j < remote_p; j++)
            for (int k = 0; ok && k < counts[j]; k++)
                ok = recv[displs[j] + k] == element_value(first_remote + j, rank, (size_t)k);
        test_count(ok,
                   w ? "MPI_Alltoallw on an intercommunicator of unequal groups (passed to MPI)"
                     : "MPI_Alltoallv on an intercommunicator of unequal groups (passed to MPI)",
                   &passed, &failed, comm);
    }
    free(send);
    free(recv);
    free(counts);
    free(displs);
    free(bytes);
    free(types);
    MPI_Comm_free(&inter);
}

/* ---- The same outcome as MPI alone ---- */

/* The error class of err (MPI_SUCCESS for success). */
static int class_of(int err)
{
    int cls = MPI_SUCCESS;
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    return cls;
}

/* Whether the layer's call (class mine, buffer a) ended as MPI's own did (class theirs,
 * buffer b, both of `bytes` bytes), the same way on every rank, and, where MPI succeeded,
 * with the expected bytes `expected`. */
static int as_mpi_alone(int mine, int theirs, const void *a, const void *b, const void *expected,
                        size_t bytes, MPI_Comm comm)
{
    int lowest = mine, highest = mine;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &highest, 1, MPI_INT, MPI_MAX, comm);
    return lowest == highest && mine == theirs && memcmp(a, b, bytes) == 0 &&
           (theirs != MPI_SUCCESS || memcmp(b, expected, bytes) == 0);
}

/* Each region j of buf (counts/displs in elements) as a datatype at its absolute address. */
static MPI_Datatype absolute_type(const element *at, int elements)
{
    MPI_Aint address;
    MPI_Datatype type, element_type = ELEMENT_MPI_TYPE;
    MPI_Get_address(at, &address);
    MPI_Type_create_struct(1, &elements, &address, &element_type, &type);
    MPI_Type_commit(&type);
    return type;
}

/* Out of place, the sides of rank 0 alone laid out otherwise than by one count and datatype
 * (AIP_Alltoall_oop's condition), which is MPI's own business: rank 0 sends its blocks as
 * pairs of elements, or (bottom) names both buffers by absolute addresses over MPI_BOTTOM.
 * Every rank must leave the call to MPI alike (a rank deciding alone would hang the rest). */
static void alltoall_oop_rank_0_case(MPI_Comm comm, int bottom)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t count = 4, n = count * (size_t)p;
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    for (int j = 0; j < p; j++) {
        counts[j] = (int)count;
        displs[j] = (int)count * j;
    }
    element *send = filled(n, rank, p, counts, displs), *recv = malloc(sizeof *recv * n);
    poison_elements(recv, n);
    MPI_Datatype two, sendtype, recvtype;
    MPI_Type_contiguous(2, ELEMENT_MPI_TYPE, &two);
    MPI_Type_commit(&two);
    int err;
    if (rank != 0)
        err = MPI_Alltoall(send, (int)count, ELEMENT_MPI_TYPE, recv, (int)count, ELEMENT_MPI_TYPE,
                           comm);
    else if (!bottom)
        err = MPI_Alltoall(send, (int)count / 2, two, recv, (int)count, ELEMENT_MPI_TYPE, comm);
    else {
        sendtype = absolute_type(send, (int)count);
        recvtype = absolute_type(recv, (int)count);
        err = MPI_Alltoall(MPI_BOTTOM, 1, sendtype, MPI_BOTTOM, 1, recvtype, comm);
        MPI_Type_free(&sendtype);
        MPI_Type_free(&recvtype);
    }
    test_count(err == MPI_SUCCESS && received(recv, n, rank, p, counts, displs),
               bottom ? "MPI_Alltoall (oop) over MPI_BOTTOM on rank 0 alone (MPI's own)"
                      : "MPI_Alltoall (oop), other send datatype on rank 0 alone (MPI's own)",
               &passed, &failed, comm);
    MPI_Type_free(&two);
    free(send);
    free(recv);
    free(counts);
    free(displs);
}

/* A duplicate of comm whose errors return (freed by the caller), and comm's rank and size. */
static MPI_Comm returning_dup(MPI_Comm comm, int *rank, int *p)
{
    MPI_Comm returning;
    MPI_Comm_dup(comm, &returning);
    MPI_Comm_set_errhandler(returning, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm, rank);
    MPI_Comm_size(comm, p);
    return returning;
}

/* In place over MPI_BOTTOM, the buffer named by datatypes of absolute addresses (MPI-3.1
 * Sect. 4.1.12), on MPI_ERRORS_RETURN: the layer's MPI_Alltoall/v/w against MPI's own
 * (PMPI_*) on a copy, bit for bit, and against the expected values. */
static void bottom_case(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm returning = returning_dup(comm, &rank, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int *ones = malloc(sizeof(int) * (size_t)p), *zeros = calloc((size_t)p, sizeof(int));
    MPI_Datatype *types[2] = { malloc(sizeof(MPI_Datatype) * (size_t)p),
                               malloc(sizeof(MPI_Datatype) * (size_t)p) };
    const char *names[3] = { "MPI_Alltoall", "MPI_Alltoallv", "MPI_Alltoallw" };

    for (int call = 0; call < 3; call++) {
        size_t n;
        if (call == 0) /* blocks of 3 elements, block j at j * 3 */
            for (int j = 0; j < p; j++) {
                counts[j] = 3;
                displs[j] = 3 * j;
            }
        n = call == 0 ? 3 * (size_t)p : lay_out(rank, p, 2, 1, counts, displs);
        element *expected = malloc(sizeof *expected * (n ? n : 1)), *buf[2];
        poison_elements(expected, n);
        for (int j = 0; j < p; j++)
            for (int k = 0; k < counts[j]; k++)
                expected[displs[j] + k] = element_value(j, rank, (size_t)k);
        int cls[2];
        for (int alone = 0; alone < 2; alone++) {
            element *b = buf[alone] = filled(n, rank, p, counts, displs);
            MPI_Datatype type = MPI_DATATYPE_NULL;
            int err;
            if (call == 0) {
                type = absolute_type(b, 3);
                err = (alone ? PMPI_Alltoall : MPI_Alltoall)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                                                              MPI_BOTTOM, 1, type, returning);
            } else if (call == 1) {
                type = absolute_type(b, 1);
                err = (alone ? PMPI_Alltoallv : MPI_Alltoallv)(MPI_IN_PLACE, zeros, zeros,
                                                                MPI_DATATYPE_NULL, MPI_BOTTOM,
                                                                counts, displs, type, returning);
            } else {
                for (int j = 0; j < p; j++) {
                    types[alone][j] =
                        counts[j] ? absolute_type(b + displs[j], counts[j]) : ELEMENT_MPI_TYPE;
                    ones[j] = counts[j] ? 1 : 0;
                }
                err = (alone ? PMPI_Alltoallw : MPI_Alltoallw)(MPI_IN_PLACE, NULL, NULL, NULL,
                                                                MPI_BOTTOM, ones, zeros,
                                                                types[alone], returning);
                for (int j = 0; j < p; j++)
                    if (counts[j])
                        MPI_Type_free(&types[alone][j]);
            }
            if (type != MPI_DATATYPE_NULL)
                MPI_Type_free(&type);
            cls[alone] = class_of(err);
        }
        char label[128];
        snprintf(label, sizeof label,
                 "%s in place over MPI_BOTTOM, absolute-address datatypes: as MPI alone",
                 names[call]);
        test_count(as_mpi_alone(cls[0], cls[1], buf[0], buf[1], expected, sizeof *expected * n,
                                comm) &&
                       cls[1] == MPI_SUCCESS,
                   label, &passed, &failed, comm);
        free(buf[0]);
        free(buf[1]);
        free(expected);
    }
    free(counts);
    free(displs);
    free(ones);
    free(zeros);
    free(types[0]);
    free(types[1]);
    MPI_Comm_free(&returning);
}

/* Zero counts with MPI_DATATYPE_NULL, in place: MPI's rules for them differ (MPICH accepts
 * them, Open MPI's argument check refuses some), so the layer must end each call as MPI's
 * own does on the same MPI, compared here with PMPI_* on a copy. */
static void zero_count_null_case(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm returning = returning_dup(comm, &rank, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int *bytes = malloc(sizeof(int) * (size_t)p), *zeros = calloc((size_t)p, sizeof(int));
    MPI_Datatype *types = malloc(sizeof *types * (size_t)p);
    const char *labels[3] = {
        "MPI_Alltoall in place, count 0 of MPI_DATATYPE_NULL: as MPI alone",
        "MPI_Alltoallv in place, zero counts of MPI_DATATYPE_NULL: as MPI alone",
        "MPI_Alltoallw in place, MPI_DATATYPE_NULL for its zero counts: as MPI alone"
    };
    /* Alltoallw: pairs of even rank sum exchange nothing, and name MPI_DATATYPE_NULL */
    size_t n = 0;
    for (int j = 0; j < p; j++) {
        counts[j] = (rank + j) % 2 ? 3 : 0;
        displs[j] = (int)n;
        bytes[j] = (int)(n * sizeof(element));
        types[j] = counts[j] ? ELEMENT_MPI_TYPE : MPI_DATATYPE_NULL;
        n += (size_t)counts[j];
    }
    element *expected = malloc(sizeof *expected * (n ? n : 1));
    for (int j = 0; j < p; j++)
        for (int k = 0; k < counts[j]; k++)
            expected[displs[j] + k] = element_value(j, rank, (size_t)k);
    for (int call = 0; call < 3; call++) {
        element *buf[2];
        int cls[2];
        for (int alone = 0; alone < 2; alone++) {
            element *b = buf[alone] = filled(n, rank, p, counts, displs);
            int err;
            if (call == 0)
                err = (alone ? PMPI_Alltoall : MPI_Alltoall)(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
                                                              b, 0, MPI_DATATYPE_NULL, returning);
            else if (call == 1)
                err = (alone ? PMPI_Alltoallv : MPI_Alltoallv)(MPI_IN_PLACE, zeros, zeros,
                                                                MPI_DATATYPE_NULL, b, zeros, zeros,
                                                                MPI_DATATYPE_NULL, returning);
            else
                err = (alone ? PMPI_Alltoallw : MPI_Alltoallw)(MPI_IN_PLACE, NULL, NULL, NULL, b,
                                                                counts, bytes, types, returning);
            cls[alone] = class_of(err);
        }
        element *unchanged = filled(n, rank, p, counts, displs);
        test_count(as_mpi_alone(cls[0], cls[1], buf[0], buf[1], call < 2 ? unchanged : expected,
                                sizeof *expected * n, comm),
                   labels[call], &passed, &failed, comm);
        if (rank == 0 && cls[0] != cls[1])
            printf("  %s: error class %d with the layer, %d on MPI alone\n", labels[call], cls[0],
                   cls[1]);
        free(unchanged);
        free(buf[0]);
        free(buf[1]);
    }
    free(expected);
    free(counts);
    free(displs);
    free(bytes);
    free(zeros);
    free(types);
    MPI_Comm_free(&returning);
}

/* An erroneous call under MPI_ERRORS_RETURN: `expected` class on every rank
 * (0: any error class, the same everywhere), the buffer untouched.  The bad
 * count is given by the last rank only (bad_ranks 1) or by all (2: MPI alone
 * cannot tell the others); blocks of different sizes by rank 0 only. */
static void error_case(MPI_Comm comm, const char *what, int expected, int bad_ranks,
                       int size_mismatch)
{
    int rank, p, cls = MPI_SUCCESS;
    MPI_Comm returning = returning_dup(comm, &rank, &p);
    int count = 4 + (size_mismatch && rank == 0), n = count * p;
    element *buf = malloc(sizeof *buf * (size_t)n), *copy = malloc(sizeof *copy * (size_t)n);
    fill_send_blocks(buf, rank, p, (size_t)count);
    memcpy(copy, buf, sizeof *buf * (size_t)n);
    int err = MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf,
                           bad_ranks == 2 || (bad_ranks == 1 && rank == p - 1) ? -1 : count,
                           ELEMENT_MPI_TYPE, returning);
    if (err != MPI_SUCCESS)
        MPI_Error_class(err, &cls);
    int lowest = cls, highest = cls;
    MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(MPI_IN_PLACE, &highest, 1, MPI_INT, MPI_MAX, comm);
    int ok = lowest == highest && cls != MPI_SUCCESS && (!expected || cls == expected) &&
             memcmp(buf, copy, sizeof *buf * (size_t)n) == 0;
    test_count(ok, what, &passed, &failed, comm);
    free(buf);
    free(copy);
    MPI_Comm_free(&returning);
}

/* --bad-setting in-place|out-of-place: the layer's variable that governs such calls is bad
 * on some rank, or differs between ranks (tests/mpi/pmpi.sh sets it on one rank only): each of
 * those calls must return MPI_ERR_ARG on every rank, no rank left waiting, the buffer
 * untouched; the calls the other variable governs run as usual, exact. */
static void bad_setting_cases(MPI_Comm comm, int bad_in_place)
{
    int rank, p;
    MPI_Comm returning = returning_dup(comm, &rank, &p);
    int *counts = malloc(sizeof(int) * (size_t)p), *displs = malloc(sizeof(int) * (size_t)p);
    int *bytes = malloc(sizeof(int) * (size_t)p);
    MPI_Datatype *types = malloc(sizeof *types * (size_t)p);
    size_t n = lay_out(rank, p, 1, 1, counts, displs);
    for (int j = 0; j < p; j++) {
        bytes[j] = displs[j] * (int)sizeof(element);
        types[j] = ELEMENT_MPI_TYPE;
    }
    const char *labels[4] = { "MPI_Alltoall in place", "MPI_Alltoallv in place",
                              "MPI_Alltoallw in place", "MPI_Alltoall out of place" };
    for (int call = 0; call < 4; call++) {
        int governed = bad_in_place == (call < 3);
        size_t m = call == 1 || call == 2 ? n : 4 * (size_t)p;
        int *c = counts, *d = displs;
        if (m != n) { /* MPI_Alltoall: blocks of 4 */
            c = malloc(sizeof(int) * (size_t)p);
            d = malloc(sizeof(int) * (size_t)p);
            for (int j = 0; j < p; j++) {
                c[j] = 4;
                d[j] = 4 * j;
            }
        }
        element *buf = filled(m, rank, p, c, d), *copy = filled(m, rank, p, c, d);
        element *recv = malloc(sizeof *recv * m);
        poison_elements(recv, m);
        int err = call == 0   ? MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, 4,
                                             ELEMENT_MPI_TYPE, returning)
                  : call == 1 ? MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf,
                                              counts, displs, ELEMENT_MPI_TYPE, returning)
                  : call == 2 ? MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, buf, counts, bytes,
                                              types, returning)
                              : MPI_Alltoall(buf, 4, ELEMENT_MPI_TYPE, recv, 4, ELEMENT_MPI_TYPE,
                                             returning);
        int cls = class_of(err), ok;
        if (governed)
            ok = cls == MPI_ERR_ARG && memcmp(buf, copy, sizeof *buf * m) == 0;
        else
            ok = cls == MPI_SUCCESS && received(call == 3 ? recv : buf, m, rank, p, c, d);
        char label[128];
        snprintf(label, sizeof label, "%s, %s: %s", labels[call],
                 bad_in_place ? "AIP_PMPI_IN_PLACE bad or different" :
                                "AIP_PMPI_OUT_OF_PLACE bad or different",
                 governed ? "MPI_ERR_ARG everywhere, data untouched" : "exact");
        test_count(ok, label, &passed, &failed, comm);
        free(buf);
        free(copy);
        free(recv);
        if (c != counts) {
            free(c);
            free(d);
        }
    }
    free(counts);
    free(displs);
    free(bytes);
    free(types);
    MPI_Comm_free(&returning);
}

int main(int argc, char **argv)
{
    int layer = 0, out_of_place = 0, bad_setting = -1, rank, p;

    MPI_Init(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        layer |= strcmp(argv[i], "--layer") == 0;
        out_of_place |= strcmp(argv[i], "--out-of-place") == 0;
        if (strcmp(argv[i], "--bad-setting") == 0 && i + 1 < argc)
            bad_setting = strcmp(argv[++i], "in-place") == 0;
    }
    if (bad_setting >= 0) {
        bad_setting_cases(MPI_COMM_WORLD, bad_setting);
        int status = test_summary("pmpi_test (bad setting)", passed, failed, MPI_COMM_WORLD);
        MPI_Finalize();
        return status;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm world;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);

    if (layer)
        test_count(dlsym(RTLD_DEFAULT, "aip_layer_alltoall") != NULL,
                   "liballtoall_inplace_pmpi is in the process", &passed, &failed, world);

    MPI_Datatype triple;
    MPI_Type_contiguous(3, ELEMENT_MPI_TYPE, &triple);
    MPI_Type_commit(&triple);
    /* 0, 1, and beyond the budget tests/mpi/pmpi.sh sets (4 KiB): chunked */
    int counts[] = { 0, 1, 37, 1500 };
    for (int i = 0; i < 4; i++) {
        alltoall_case(world, counts[i], ELEMENT_MPI_TYPE, 1, 0, "in place");
        if (out_of_place)
            alltoall_case(world, counts[i], ELEMENT_MPI_TYPE, 1, 1, "out of place");
    }
    alltoall_case(world, 50, triple, 3, 0, "in place, contiguous(3) datatype");
    alltoall_case(MPI_COMM_SELF, 20, ELEMENT_MPI_TYPE, 1, 0, "in place on one rank");
    alltoall_gapped_case(world, 5, 0);
    alltoall_gapped_case(world, 5, 1);

    alltoallv_case(world, 1, 2, 0, "MPI_Alltoallv in place, gaps and zero counts");
    alltoallv_case(world, 700, 0, 0, "MPI_Alltoallv in place, large blocks");
    alltoallv_case(world, 2, 1, 1, "MPI_Alltoallv in place, gapped datatype (MPI's own)");
    alltoallv_case(MPI_COMM_SELF, 3, 1, 0, "MPI_Alltoallv in place on one rank");
    alltoallw_case(world, 1);
    alltoallw_case(world, 900);
    alltoallw_case(MPI_COMM_SELF, 4);

    if (out_of_place) {
        alltoall_oop_rank_0_case(world, 0);
        alltoall_oop_rank_0_case(world, 1);
    }
    intercomm_case(world);
    intercomm_v_w_case(world);
    bottom_case(world);
    zero_count_null_case(world);
    error_case(world, "negative count: MPI_ERR_COUNT everywhere, data untouched", MPI_ERR_COUNT,
               layer ? 1 : 2, 0);
    if (layer && p > 1) /* undefined in MPI: the layer finds it before any byte moves */
        error_case(world, "blocks of different sizes: an error everywhere, data untouched", 0,
                   0, 1);

    MPI_Type_free(&triple);
    MPI_Comm_free(&world);
    int status = test_summary(layer ? "pmpi_test (layer)" : "pmpi_test (MPI alone)", passed,
                              failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
