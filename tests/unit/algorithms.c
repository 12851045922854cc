/*
 * algorithms [KIND ...] - the names of the library's algorithms, one per
 * line, in the order of its table (AIP_Algorithm_at), for the test and
 * benchmark scripts: they take their lists from here, so that a row added
 * to the table is run by all of them.
 *   no KIND      every algorithm that runs (not the choices default, auto)
 *   KIND         those of these kinds: choice, schedule, node-aware,
 *                general, routed; "symmetric" stands for all but general
 * Needs no MPI process: the table is data.
 */
#include <stdio.h>
#include <string.h>

#include "alltoall_inplace.h"

static const char *const kind_names[] = { "choice", "schedule", "node-aware", "general",
                                          "routed" };
enum { N_KINDS = sizeof kind_names / sizeof kind_names[0] };

int main(int argc, char **argv)
{
    int wanted[N_KINDS] = { 0 };
    for (int a = 1; a < argc; a++) {
        int known = 0;
        for (int k = 0; k < N_KINDS; k++)
            if (strcmp(argv[a], kind_names[k]) == 0 ||
                (strcmp(argv[a], "symmetric") == 0 && k != AIP_KIND_CHOICE &&
                 k != AIP_KIND_GENERAL))
                wanted[k] = known = 1;
        if (!known) {
            fprintf(stderr, "algorithms: unknown kind '%s' (choice, schedule, node-aware, "
                            "general, routed, symmetric)\n", argv[a]);
            return 2;
        }
    }
    if (argc == 1)
        for (int k = 0; k < N_KINDS; k++)
            wanted[k] = k != AIP_KIND_CHOICE;

    AIP_Algorithm algorithm;
    AIP_Algorithm_kind kind;
    for (int i = 0; AIP_Algorithm_at(i, &algorithm, &kind) == MPI_SUCCESS; i++)
        if ((int)kind < N_KINDS && wanted[kind])
            printf("%s\n", AIP_Algorithm_name(algorithm));
    return 0;
}
