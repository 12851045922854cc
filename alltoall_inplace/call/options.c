/*
 * options.c - per-call options, and the environment variables that change
 * their defaults (declared in tunables.h).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "call/call.h"
#include "call/options.h"
#include "call/parse_bytes.h"

/* For each tunable: its value (the environment variable if set and not empty,
 * else the default), and its help text for messages about bad values. */
#define TUNABLE_VALUE(field, env, fallback, help)                                               \
    __attribute__((unused)) static const char *tunable_##field(void)                            \
    {                                                                                           \
        const char *value = getenv(env);                                                        \
        return value && *value ? value : fallback;                                              \
    }                                                                                           \
    __attribute__((unused)) static const char *const help_##field = env ": " help;
AIP_ENV_TUNABLES(TUNABLE_VALUE)
#undef TUNABLE_VALUE

/* The names of the algorithm table, ", "-separated, for messages (truncated
 * to size); through the public AIP_Algorithm_at, the table being above. */
static void algorithm_names(char *text, size_t size)
{
    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;
    size_t used = 0;
    text[0] = '\0';
    for (int i = 0; used < size && AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
        used += (size_t)snprintf(text + used, size - used, "%s%s", i ? ", " : "",
                                 AIP_Algorithm_name(algorithm));
}

static const char *const aux_strategy_names[] = { "default", "static", "pool" };
static const char *const requests_names[] = { "default", "p2p", "alltoall" };
static const char *const bcast_algorithm_names[] = { "default", "auto", "linear", "binomial",
                                                     "binary" };
#define N_NAMES(names) ((int)(sizeof names / sizeof names[0]))

static int index_of(const char *name, const char *const names[], int n)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *AIP_Aux_strategy_name(AIP_Aux_strategy strategy)
{
    return (int)strategy >= 0 && (int)strategy < N_NAMES(aux_strategy_names)
               ? aux_strategy_names[strategy]
               : NULL;
}

int AIP_Aux_strategy_from_name(const char *name, AIP_Aux_strategy *strategy)
{
    int i = index_of(name, aux_strategy_names, N_NAMES(aux_strategy_names));
    if (i < 0)
        return MPI_ERR_ARG;
    *strategy = (AIP_Aux_strategy)i;
    return MPI_SUCCESS;
}

const char *AIP_Requests_name(AIP_Requests requests)
{
    return (int)requests >= 0 && (int)requests < N_NAMES(requests_names)
               ? requests_names[requests]
               : NULL;
}

int AIP_Requests_from_name(const char *name, AIP_Requests *requests)
{
    int i = index_of(name, requests_names, N_NAMES(requests_names));
    if (i < 0)
        return MPI_ERR_ARG;
    *requests = (AIP_Requests)i;
    return MPI_SUCCESS;
}

const char *AIP_Bcast_algorithm_name(AIP_Bcast_algorithm algorithm)
{
    return (int)algorithm >= 0 && (int)algorithm < N_NAMES(bcast_algorithm_names)
               ? bcast_algorithm_names[algorithm]
               : NULL;
}

int AIP_Bcast_algorithm_from_name(const char *name, AIP_Bcast_algorithm *algorithm)
{
    int i = index_of(name, bcast_algorithm_names, N_NAMES(bcast_algorithm_names));
    if (i < 0)
        return MPI_ERR_ARG;
    *algorithm = (AIP_Bcast_algorithm)i;
    return MPI_SUCCESS;
}

void AIP_Options_init(AIP_Options *options)
{
    const AIP_Options init = AIP_OPTIONS_INIT;
    *options = init;
}

/* A count option: 0 takes the environment's value (0 staying "decided per
 * call"), a negative one is refused. */
static int resolve_count(int *field, const char *name, const char *text, const char *help,
                         char *why, size_t why_size)
{
    if (*field < 0) {
        snprintf(why, why_size, "options->%s = %d is negative", name, *field);
        return MPI_ERR_ARG;
    }
    if (*field == 0) {
        char *end;
        long value = strtol(text, &end, 10);
        if (end == text || *end || value < 0 || value > INT_MAX) {
            snprintf(why, why_size, "\"%s\" is not valid; %s", text, help);
            return MPI_ERR_ARG;
        }
        *field = (int)value;
    }
    return MPI_SUCCESS;
}

int aip_options_resolve(const AIP_Options *options, AIP_Options *resolved, char *why,
                        size_t why_size)
{
    AIP_Options_init(resolved);
    if (options)
        *resolved = *options;

    if (resolved->algorithm == AIP_ALGORITHM_DEFAULT) {
        const char *name = tunable_algorithm();
        if (AIP_Algorithm_from_name(name, &resolved->algorithm) != MPI_SUCCESS ||
            resolved->algorithm == AIP_ALGORITHM_DEFAULT) {
            char names[160];
            algorithm_names(names, sizeof names);
            snprintf(why, why_size, "\"%s\" is not valid; %s; the names: %s", name, help_algorithm,
                     names);
            return MPI_ERR_ARG;
        }
    } else if (!AIP_Algorithm_name(resolved->algorithm)) {
        snprintf(why, why_size, "options->algorithm = %d is not an AIP_Algorithm",
                 (int)resolved->algorithm);
        return MPI_ERR_ARG;
    }

    if (resolved->aux_bytes == AIP_AUX_BYTES_DEFAULT) {
        const char *text = tunable_aux_bytes();
        resolved->aux_bytes = aip_parse_bytes(text);
        if (resolved->aux_bytes < 0) {
            snprintf(why, why_size, "\"%s\" is not valid; %s", text, help_aux_bytes);
            return MPI_ERR_ARG;
        }
    } else if (resolved->aux_bytes < 0) {
        snprintf(why, why_size, "options->aux_bytes = %lld is negative", resolved->aux_bytes);
        return MPI_ERR_ARG;
    }

    if (resolved->aux_strategy == AIP_AUX_STRATEGY_DEFAULT) {
        const char *name = tunable_aux_strategy();
        if (AIP_Aux_strategy_from_name(name, &resolved->aux_strategy) != MPI_SUCCESS ||
            resolved->aux_strategy == AIP_AUX_STRATEGY_DEFAULT) {
            snprintf(why, why_size, "\"%s\" is not valid; %s", name, help_aux_strategy);
            return MPI_ERR_ARG;
        }
    } else if (!AIP_Aux_strategy_name(resolved->aux_strategy)) {
        snprintf(why, why_size, "options->aux_strategy = %d is not an AIP_Aux_strategy",
                 (int)resolved->aux_strategy);
        return MPI_ERR_ARG;
    }

    if (resolve_count(&resolved->aux_buffers, "aux_buffers", tunable_aux_buffers(),
                      help_aux_buffers, why, why_size) != MPI_SUCCESS ||
        resolve_count(&resolved->ranks_per_node, "ranks_per_node", tunable_ranks_per_node(),
                      help_ranks_per_node, why, why_size) != MPI_SUCCESS)
        return MPI_ERR_ARG;

    if (resolved->requests == AIP_REQUESTS_DEFAULT) {
        const char *name = tunable_requests();
        if (AIP_Requests_from_name(name, &resolved->requests) != MPI_SUCCESS ||
            resolved->requests == AIP_REQUESTS_DEFAULT) {
            snprintf(why, why_size, "\"%s\" is not valid; %s", name, help_requests);
            return MPI_ERR_ARG;
        }
    } else if (!AIP_Requests_name(resolved->requests)) {
        snprintf(why, why_size, "options->requests = %d is not an AIP_Requests",
                 (int)resolved->requests);
        return MPI_ERR_ARG;
    }

    if (resolved->bcast_algorithm == AIP_BCAST_DEFAULT) {
        const char *name = tunable_bcast_algorithm();
        if (AIP_Bcast_algorithm_from_name(name, &resolved->bcast_algorithm) != MPI_SUCCESS ||
            resolved->bcast_algorithm == AIP_BCAST_DEFAULT) {
            snprintf(why, why_size, "\"%s\" is not valid; %s", name, help_bcast_algorithm);
            return MPI_ERR_ARG;
        }
    } else if (!AIP_Bcast_algorithm_name(resolved->bcast_algorithm)) {
        snprintf(why, why_size, "options->bcast_algorithm = %d is not an AIP_Bcast_algorithm",
                 (int)resolved->bcast_algorithm);
        return MPI_ERR_ARG;
    }
    return MPI_SUCCESS;
}

int AIP_Options_resolve(const AIP_Options *options, AIP_Options *resolved)
{
    char why[320];
    return aip_options_resolve(options, resolved, why, sizeof why);
}

long long aip_budget_of(const AIP_Options *resolved)
{
    return resolved->aux_bytes > 0 ? resolved->aux_bytes : AIP_AUX_BYTES_MIN;
}

int aip_env_debug(void)
{
    return atoi(tunable_debug()) > 0;
}
