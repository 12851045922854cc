/*
 * options.h - AIP_Options resolved against the environment (options.c,
 * with the variables' defaults and help in tunables.h).
 */
#ifndef AIP_OPTIONS_H
#define AIP_OPTIONS_H

#include <stddef.h>

#include "alltoall_inplace.h"

/* Like AIP_Options_resolve, saying in `why` what is invalid. */
int aip_options_resolve(const AIP_Options *options, AIP_Options *resolved, char *why,
                        size_t why_size);
int aip_env_debug(void);

/* The budget a call works with: the resolved aux_bytes, or the smallest
 * workable one where that is 0. */
long long aip_budget_of(const AIP_Options *resolved);

#endif /* AIP_OPTIONS_H */
