/*
 * win_id_reuse_test.c - with MPI alone: two windows, each made on a
 * communicator of its own, then a post-start-complete-wait epoch on the
 * first, rank 0 putting to rank 1.
 *
 * MPICH's ch4 device names a window in its messages by the context id of
 * the communicator it was made on and a count of the windows made on that
 * communicator (MPIDIG_generate_win_id in src/mpid/ch4/src/ch4_impl.c).
 * With --free-comm 1 each communicator is freed as soon as its window is
 * made, which MPI allows: the second communicator takes the first one's
 * context id, the two windows get one id, the first window's post reaches
 * the second, and the epoch never ends (MPICH 4.0.2 ch4:ucx; the watchdog
 * ends the run).  Keeping each communicator until its window is freed, as
 * bcast_windows.c does, the epoch completes.  Open MPI passes either way.
 *
 *   win_id_reuse_test [--free-comm 1] [--watchdog SECONDS]   (2 ranks or more)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

int main(int argc, char **argv)
{
    const char *option;
    int free_comm = (option = test_option(argc, argv, "--free-comm")) ? atoi(option) : 0;
    int limit = (option = test_option(argc, argv, "--watchdog")) ? atoi(option) : 30;
    int rank, size, peer;
    char memory[2][64], data[64];
    MPI_Comm comms[2];
    MPI_Win windows[2];
    MPI_Group world, peer_group;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        MPI_Finalize();
        return TEST_SKIP;
    }
    test_watchdog(limit, "win_id_reuse_test", rank);
    memset(memory, 0, sizeof memory);
    memset(data, 0, sizeof data); /* all 64 bytes travel */
    snprintf(data, sizeof data, "put into the first window");
    for (int w = 0; w < 2; w++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[w]);
        MPI_Win_create(memory[w], sizeof memory[w], 1, MPI_INFO_NULL, comms[w], &windows[w]);
        if (free_comm)
            MPI_Comm_free(&comms[w]);
    }
    test_note(0, "rank %d: the epoch on the first window", rank);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    peer = rank == 0 ? 1 : 0;
    MPI_Group_incl(world, 1, &peer, &peer_group);
    if (rank == 1) {
        MPI_Win_post(peer_group, 0, windows[0]);
        MPI_Win_wait(windows[0]);
    } else if (rank == 0) {
        MPI_Win_start(peer_group, 0, windows[0]);
        MPI_Put(data, sizeof data, MPI_BYTE, 1, 0, sizeof data, MPI_BYTE, windows[0]);
        MPI_Win_complete(windows[0]);
    }
    MPI_Group_free(&peer_group);
    MPI_Group_free(&world);
    for (int w = 0; w < 2; w++) {
        MPI_Win_free(&windows[w]);
        if (!free_comm)
            MPI_Comm_free(&comms[w]);
    }
    test_watchdog(0, NULL, rank);
    int ok = rank != 1 || (memcmp(memory[0], data, sizeof data) == 0 && memory[1][0] == 0);
    int passed = test_agree(ok, MPI_COMM_WORLD);
    int status = test_summary("win_id_reuse_test", passed, !passed, MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
