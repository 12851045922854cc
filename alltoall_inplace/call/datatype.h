/*
 * datatype.h - what the library needs to know of an MPI datatype
 * (datatype.c): whether its elements can move as bytes, and how.
 */
#ifndef AIP_DATATYPE_H
#define AIP_DATATYPE_H

#include <mpi.h>

/* What the library needs to know of a datatype (datatype.c). */
typedef struct aip_type_info {
    MPI_Count size;   /* bytes of data in one element */
    MPI_Aint extent;  /* stride between consecutive elements */
    MPI_Aint true_lb; /* offset of the first byte of data */
    int dense;        /* one element is `size` consecutive bytes, in type-map order */
} aip_type_info;

/* datatype.c: MPI_ERR_TYPE for MPI_DATATYPE_NULL, MPI_ERR_NO_MEM where the
 * analysis of a derived type cannot allocate, or MPI's error. */
int aip_type_info_get(MPI_Datatype type, aip_type_info *info);

#endif /* AIP_DATATYPE_H */
