/*
 * algorithms.c - the algorithms the library offers: their names and the
 * schedule each one executes.
 */
#include <string.h>

#include "aip_internal.h"

static const struct {
    AIP_Algorithm algorithm;
    const char *name;
    const aip_schedule *schedule; /* NULL for choices and node-aware algorithms */
} algorithms[] = {
    { AIP_ALGORITHM_DEFAULT, "default", NULL },
    { AIP_ALGORITHM_AUTO, "auto", NULL },
    { AIP_ALGORITHM_MPICH, "mpich", &aip_schedule_mpich },
    { AIP_ALGORITHM_LSA, "lsa", &aip_schedule_lsa },
    { AIP_ALGORITHM_HSA, "hsa", &aip_schedule_hsa },
    { AIP_ALGORITHM_SA, "sa", NULL },
    { AIP_ALGORITHM_L, "l", NULL },
    { AIP_ALGORITHM_RD, "rd", NULL },
};

#define N_ALGORITHMS (sizeof algorithms / sizeof algorithms[0])

const char *AIP_Algorithm_name(AIP_Algorithm algorithm)
{
    for (size_t i = 0; i < N_ALGORITHMS; i++)
        if (algorithms[i].algorithm == algorithm)
            return algorithms[i].name;
    return NULL;
}

int AIP_Algorithm_from_name(const char *name, AIP_Algorithm *algorithm)
{
    for (size_t i = 0; name && i < N_ALGORITHMS; i++)
        if (strcmp(algorithms[i].name, name) == 0) {
            *algorithm = algorithms[i].algorithm;
            return MPI_SUCCESS;
        }
    return MPI_ERR_ARG;
}

int aip_algorithm_node_aware(AIP_Algorithm algorithm)
{
    return algorithm == AIP_ALGORITHM_SA || algorithm == AIP_ALGORITHM_L ||
           algorithm == AIP_ALGORITHM_RD;
}

const aip_schedule *aip_algorithm_schedule(AIP_Algorithm algorithm)
{
    for (size_t i = 0; i < N_ALGORITHMS; i++)
        if (algorithms[i].algorithm == algorithm)
            return algorithms[i].schedule;
    return NULL;
}
