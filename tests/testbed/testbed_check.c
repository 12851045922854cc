/*
 * testbed_check - the multi-host test bed (tests/testbed/netns_testbed.sh) gives MPI
 * what real nodes would: each host its own processor name, shared-memory
 * communicators per host, and a working all-to-all across the hosts.
 *
 *   testbed_check [--layout N1,N2,...] [--map-by slot|node] [--env NAME=VALUE]
 *
 * On every rank:
 *   - MPI_Get_processor_name equals gethostname() (the host's own hostname);
 *   - MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups exactly the ranks
 *     whose processor names are equal (names allgathered and compared);
 *   - with --layout (the bed's RANKS_PER_HOST) and --map-by (its placement):
 *     there are as many names as hosts, and rank r shares its name with
 *     exactly the ranks the placement puts on r's host (block: host 1 first;
 *     node: round robin over the hosts, skipping full ones), so the hosts
 *     hold the given counts;
 *   - MPI_Alltoall of blocks of 8, 4000 and 160000 bytes (1, 500 and 20000
 *     elements of common/exchange_data.h: eager and rendezvous paths of
 *     shared memory and TCP) delivers every element;
 *   - with --env: the variable reached this rank with that value (the bed
 *     passes the environment to remote hosts).
 * Failures print the rank and what differs; the exit status is nonzero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"

typedef struct test_run {
    int rank, size, passed, failed;
    char *names; /* size * MPI_MAX_PROCESSOR_NAME, allgathered */
} test_run;

static const char *name_of(const test_run *t, int r)
{
    return t->names + (size_t)r * MPI_MAX_PROCESSOR_NAME;
}

/* Count the check as passed if `ok` on every rank; rank 0 names a failure. */
static void check(test_run *t, const char *what, int ok)
{
    if (test_agree(ok, MPI_COMM_WORLD)) {
        t->passed++;
    } else {
        t->failed++;
        if (t->rank == 0)
            fprintf(stderr, "FAIL: %s\n", what);
    }
}

static void check_hostname(test_run *t, const char *name)
{
    char host[256] = "";
    int ok = gethostname(host, sizeof host - 1) == 0 && strcmp(host, name) == 0;
    if (!ok)
        fprintf(stderr, "rank %d: processor name '%s' but hostname '%s'\n", t->rank, name, host);
    check(t, "processor name = hostname", ok);
}

/* The world ranks of my shared-memory communicator are those with my name. */
static void check_shared(test_run *t)
{
    MPI_Comm shm;
    int shm_size, ok = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    MPI_Comm_size(shm, &shm_size);
    int *members = malloc(sizeof(int) * (size_t)shm_size);
    char *in_shm = calloc((size_t)t->size, 1);
    MPI_Allgather(&t->rank, 1, MPI_INT, members, 1, MPI_INT, shm);
    for (int i = 0; i < shm_size; i++)
        in_shm[members[i]] = 1;
    for (int r = 0; r < t->size; r++) {
        int same = strcmp(name_of(t, r), name_of(t, t->rank)) == 0;
        if (same != in_shm[r]) {
            fprintf(stderr,
                    "rank %d (%s): rank %d (%s) is %s my MPI_COMM_TYPE_SHARED communicator\n",
                    t->rank, name_of(t, t->rank), r, name_of(t, r), in_shm[r] ? "in" : "not in");
            ok = 0;
        }
    }
    free(in_shm);
    free(members);
    MPI_Comm_free(&shm);
    check(t, "MPI_COMM_TYPE_SHARED groups the ranks of one processor name", ok);
}

/* Host of each rank under Open MPI's placement: block fills host 1 first;
 * node deals ranks round robin over the hosts, skipping full ones. */
static int *expected_hosts(const int *counts, int hosts, int size, int cyclic)
{
    int *host = malloc(sizeof(int) * (size_t)size);
    int *used = calloc((size_t)hosts, sizeof(int));
    for (int r = 0, h = 0; r < size; r++) {
        if (cyclic) {
            while (used[h] == counts[h])
                h = (h + 1) % hosts;
            host[r] = h;
            used[h]++;
            h = (h + 1) % hosts;
        } else {
            while (used[h] == counts[h])
                h++;
            host[r] = h;
            used[h]++;
        }
    }
    free(used);
    return host;
}

static void check_layout(test_run *t, const char *layout, int cyclic)
{
    int counts[256], hosts = 0, total = 0, ok = 1;
    for (const char *s = layout; s && hosts < 256;) {
        counts[hosts] = atoi(s);
        ok &= counts[hosts] > 0;
        total += counts[hosts++];
        if ((s = strchr(s, ',')) != NULL)
            s++;
    }
    if (!ok || total != t->size) {
        if (t->rank == 0)
            fprintf(stderr,
                    "--layout %s: %d ranks, at least 1 per host, expected; MPI_COMM_WORLD has %d\n",
                    layout, total, t->size);
        check(t, "--layout matches the number of ranks", 0);
        return;
    }
    int *host = expected_hosts(counts, hosts, t->size, cyclic);
    int distinct = 0;
    for (int r = 0; r < t->size; r++) {
        int seen = 0;
        for (int s = 0; s < r && !seen; s++)
            seen = strcmp(name_of(t, s), name_of(t, r)) == 0;
        distinct += !seen;
        int same = strcmp(name_of(t, r), name_of(t, t->rank)) == 0;
        if (same != (host[r] == host[t->rank])) {
            fprintf(stderr,
                    "rank %d (%s, expected on host %d): rank %d (%s, expected on host %d) %s\n",
                    t->rank, name_of(t, t->rank), host[t->rank] + 1, r, name_of(t, r), host[r] + 1,
                    same ? "has my processor name" : "has another processor name");
            ok = 0;
        }
    }
    if (distinct != hosts) {
        if (t->rank == 0)
            fprintf(stderr, "%d distinct processor names, %d hosts expected\n", distinct, hosts);
        ok = 0;
    }
    free(host);
    check(t, "processor names differ between hosts and follow the placement", ok);
}

static void check_alltoall(test_run *t, int count)
{
    size_t n = (size_t)count * (size_t)t->size;
    element *send = malloc(sizeof(element) * n), *recv = malloc(sizeof(element) * n);
    fill_send_blocks(send, t->rank, t->size, (size_t)count);
    poison_elements(recv, n);
    int err = MPI_Alltoall(send, count, ELEMENT_MPI_TYPE, recv, count, ELEMENT_MPI_TYPE,
                           MPI_COMM_WORLD);
    int ok = err == MPI_SUCCESS;
    first_wrong wrong;
    if (ok && count_misplaced_blocks(recv, t->rank, t->size, (size_t)count, &wrong) > 0) {
        fprintf(stderr,
                "rank %d (%s): MPI_Alltoall of %d elements: element %zu from rank %d (%s) "
                "is wrong\n",
                t->rank, name_of(t, t->rank), count, wrong.index, wrong.source,
                name_of(t, wrong.source));
        ok = 0;
    }
    free(send);
    free(recv);
    char what[64];
    snprintf(what, sizeof what, "MPI_Alltoall of %zu bytes per block", sizeof(element) * count);
    check(t, what, ok);
}

static void check_env(test_run *t, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    char name[256];
    size_t len = eq ? (size_t)(eq - assignment) : 0;
    if (!eq || len == 0 || len >= sizeof name) {
        if (t->rank == 0)
            fprintf(stderr, "--env needs NAME=VALUE, not '%s'\n", assignment);
        check(t, "--env argument", 0);
        return;
    }
    memcpy(name, assignment, len);
    name[len] = '\0';
    const char *value = getenv(name);
    int ok = value && strcmp(value, eq + 1) == 0;
    if (!ok)
        fprintf(stderr, "rank %d (%s): %s is %s%s%s, expected '%s'\n", t->rank, name_of(t, t->rank),
                name, value ? "'" : "unset", value ? value : "", value ? "'" : "", eq + 1);
    check(t, "the environment reaches every rank", ok);
}

int main(int argc, char **argv)
{
    test_run t = { 0 };
    const char *layout = NULL, *env = NULL;
    int cyclic = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &t.size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc) {
            layout = argv[++i];
        } else if (strcmp(argv[i], "--map-by") == 0 && i + 1 < argc) {
            cyclic = strcmp(argv[++i], "node") == 0;
        } else if (strcmp(argv[i], "--env") == 0 && i + 1 < argc) {
            env = argv[++i];
        } else {
            if (t.rank == 0)
                fprintf(stderr, "usage: testbed_check [--layout N1,N2,...] [--map-by slot|node] "
                                "[--env NAME=VALUE]\n");
            MPI_Finalize();
            return 2;
        }
    }

    char name[MPI_MAX_PROCESSOR_NAME] = "";
    int len;
    MPI_Get_processor_name(name, &len);
    t.names = calloc((size_t)t.size, MPI_MAX_PROCESSOR_NAME);
    MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, t.names, MPI_MAX_PROCESSOR_NAME,
                  MPI_CHAR, MPI_COMM_WORLD);
    if (t.rank == 0) {
        printf("testbed_check: p=%d, layout %s, map-by %s:", t.size, layout ? layout : "?",
               cyclic ? "node" : "slot");
        for (int r = 0; r < t.size; r++)
            printf(" %s", name_of(&t, r));
        printf("\n");
    }

    check_hostname(&t, name);
    check_shared(&t);
    if (layout)
        check_layout(&t, layout, cyclic);
    check_alltoall(&t, 1);
    check_alltoall(&t, 500);
    check_alltoall(&t, 20000);
    if (env)
        check_env(&t, env);

    free(t.names);
    int status = test_summary("testbed_check", t.passed, t.failed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
