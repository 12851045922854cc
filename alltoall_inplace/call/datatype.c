/*
 * datatype.c - which datatypes the executor can move as plain bytes.
 *
 * The executor copies a block out of the user's buffer in chunks of bytes
 * and receives the partner's bytes in its place.  That is exact when an
 * element is a run of `size` consecutive bytes laid out in type-map order
 * ("dense"): then the bytes of a block mean the same on both sides even when
 * the two processes describe them with different datatypes of the same
 * signature, as MPI allows.  Predefined types with padding between their
 * fields (MPI_SHORT_INT), vectors with gaps, types whose blocks run backwards
 * and the like are not dense; the front ends reject them with MPI_ERR_TYPE
 * rather than move bytes that are not theirs to move.
 *
 * The decision follows the type's constructor (MPI_Type_get_envelope /
 * _contents), recursively.  Constructors it does not analyse (subarray,
 * darray) count as not dense: a false "no" only refuses a call, a false "yes"
 * would corrupt data.
 */
#include <stdlib.h>

#include "call/call.h"
#include "call/datatype.h"

static int type_dense(MPI_Datatype type, int *dense);

/* The child datatypes MPI_Type_get_contents returns must be freed unless predefined. */
static void free_contents_type(MPI_Datatype type)
{
    int ni, na, nd, combiner;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
    if (combiner != MPI_COMBINER_NAMED)
        MPI_Type_free(&type);
}

/*
 * A sequence of `count` blocks, block i holding blocklen(i) elements of
 * types(i) at byte displacement displ(i), is dense iff each type is, each
 * block of more than one element has no gap between elements, and each
 * non-empty block starts where the previous one ended.
 */
typedef struct block_walk {
    int started;
    MPI_Aint end; /* byte after the last non-empty block so far */
} block_walk;

static int walk_block(block_walk *walk, MPI_Aint displ, MPI_Count blocklen, MPI_Datatype type,
                      int *dense)
{
    aip_type_info info;
    int err;

    if (blocklen == 0)
        return MPI_SUCCESS;
    if ((err = aip_type_info_get(type, &info)) != MPI_SUCCESS)
        return err;
    if (info.size == 0)
        return MPI_SUCCESS;
    if (!info.dense || (blocklen > 1 && info.extent != (MPI_Aint)info.size) ||
        (walk->started && displ + info.true_lb != walk->end)) {
        *dense = 0;
        return MPI_SUCCESS;
    }
    walk->started = 1;
    walk->end = displ + info.true_lb + (MPI_Aint)(blocklen * info.size);
    return MPI_SUCCESS;
}

static int type_dense(MPI_Datatype type, int *dense)
{
    int ni, na, nd, combiner, err;
    int *ints = NULL;
    MPI_Aint *aints = NULL;
    MPI_Datatype *types = NULL;
    MPI_Aint old_lb, old_extent;
    block_walk walk = { 0, 0 };

    *dense = 1;
    if ((err = MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner)) != MPI_SUCCESS)
        return err;
    if (combiner == MPI_COMBINER_NAMED || combiner == MPI_COMBINER_F90_REAL ||
        combiner == MPI_COMBINER_F90_COMPLEX || combiner == MPI_COMBINER_F90_INTEGER) {
        /* Predefined: fields in increasing order; dense unless padded (MPI_SHORT_INT). */
        MPI_Count size, true_lb, true_extent;
        if ((err = MPI_Type_size_x(type, &size)) != MPI_SUCCESS ||
            (err = MPI_Type_get_true_extent_x(type, &true_lb, &true_extent)) != MPI_SUCCESS)
            return err;
        *dense = size == true_extent;
        return MPI_SUCCESS;
    }

    ints = aip_malloc(sizeof(int) * (size_t)(ni + 1));
    aints = aip_malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    types = aip_malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    if (!ints || !aints || !types) {
        err = MPI_ERR_NO_MEM;
        nd = 0; /* no child types to free: types[] holds none */
        goto out;
    }
    if ((err = MPI_Type_get_contents(type, ni, na, nd, ints, aints, types)) != MPI_SUCCESS) {
        nd = 0;
        goto out;
    }
    if (nd > 0 && (err = MPI_Type_get_extent(types[0], &old_lb, &old_extent)) != MPI_SUCCESS)
        goto out;

    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* same bytes, other bounds: matters only between elements */
        err = type_dense(types[0], dense);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        err = walk_block(&walk, 0, ints[0], types[0], dense);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        MPI_Aint stride = combiner == MPI_COMBINER_VECTOR ? ints[2] * old_extent : aints[0];
        for (int i = 0; i < ints[0] && *dense && err == MPI_SUCCESS; i++)
            err = walk_block(&walk, i * stride, ints[1], types[0], dense);
        break;
    }
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < ints[0] && *dense && err == MPI_SUCCESS; i++) {
            MPI_Aint displ = combiner == MPI_COMBINER_INDEXED ? ints[1 + ints[0] + i] * old_extent
                                                              : aints[i];
            err = walk_block(&walk, displ, ints[1 + i], types[0], dense);
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < ints[0] && *dense && err == MPI_SUCCESS; i++) {
            MPI_Aint displ = combiner == MPI_COMBINER_INDEXED_BLOCK ? ints[2 + i] * old_extent
                                                                    : aints[i];
            err = walk_block(&walk, displ, ints[1], types[0], dense);
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0] && *dense && err == MPI_SUCCESS; i++)
            err = walk_block(&walk, aints[i], ints[1 + i], types[i], dense);
        break;
    default: /* subarray, darray, ...: not analysed */
        *dense = 0;
        break;
    }

out:
    for (int i = 0; types && i < nd; i++)
        free_contents_type(types[i]);
    free(ints);
    free(aints);
    free(types);
    return err;
}

int aip_type_info_get(MPI_Datatype type, aip_type_info *info)
{
    MPI_Count lb, extent, true_lb, true_extent;
    int err;

    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if ((err = MPI_Type_size_x(type, &info->size)) != MPI_SUCCESS ||
        (err = MPI_Type_get_extent_x(type, &lb, &extent)) != MPI_SUCCESS ||
        (err = MPI_Type_get_true_extent_x(type, &true_lb, &true_extent)) != MPI_SUCCESS)
        return err;
    info->extent = (MPI_Aint)extent;
    info->true_lb = (MPI_Aint)true_lb;
    return type_dense(type, &info->dense);
}
