/*
 * request_completion.c - completing arrays of requests by each of MPI's
 * request functions (request_completion.h).
 */
#include <string.h>

#include "request_completion.h"

const char *const completion_name[COMPLETIONS] = {
    "MPI_Wait",    "MPI_Test",    "MPI_Waitall",  "MPI_Testall",           "MPI_Waitany",
    "MPI_Testany", "MPI_Waitsome", "MPI_Testsome", "MPI_Request_get_status"
};

int complete_requests(MPI_Request *requests, int n, enum completion how, const int *persistent)
{
    MPI_Request kept[8];
    MPI_Status statuses[8];
    int completed[8] = { 0 }, done = 0, flag, index, outcount, indices[8], ok = n <= 8;

    if (!ok)
        return 0;
    memcpy(kept, requests, (size_t)n * sizeof *kept);
    switch (how) {
    case BY_WAIT:
    case BY_TEST:
    case BY_GET_STATUS:
        for (int i = 0; i < n; i++) {
            if (how == BY_TEST)
                do
                    ok &= MPI_Test(&requests[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS;
                while (!flag);
            else {
                if (how == BY_GET_STATUS)
                    do
                        ok &= MPI_Request_get_status(requests[i], &flag, &statuses[0]) ==
                              MPI_SUCCESS;
                    while (!flag);
                ok &= MPI_Wait(&requests[i], MPI_STATUS_IGNORE) == MPI_SUCCESS;
            }
            completed[i]++;
        }
        break;
    case BY_WAITALL:
        ok &= MPI_Waitall(n, requests, statuses) == MPI_SUCCESS;
        for (int i = 0; i < n; i++)
            completed[i]++;
        break;
    case BY_TESTALL:
        do
            ok &= MPI_Testall(n, requests, &flag, statuses) == MPI_SUCCESS;
        while (!flag);
        for (int i = 0; i < n; i++)
            completed[i]++;
        break;
    case BY_WAITANY:
    case BY_TESTANY:
        while (done < n && ok) {
            flag = 1;
            if (how == BY_WAITANY)
                ok &= MPI_Waitany(n, requests, &index, &statuses[0]) == MPI_SUCCESS;
            else
                ok &= MPI_Testany(n, requests, &index, &flag, &statuses[0]) == MPI_SUCCESS;
            if (flag) {
                ok &= index >= 0 && index < n;
                if (ok && completed[index]++ == 0)
                    done++;
            }
        }
        /* All complete: nothing active is left, as MPI says with MPI_UNDEFINED */
        ok &= MPI_Waitany(n, requests, &index, MPI_STATUS_IGNORE) == MPI_SUCCESS &&
              index == MPI_UNDEFINED;
        break;
    case BY_WAITSOME:
    case BY_TESTSOME:
        while (done < n && ok) {
            if (how == BY_WAITSOME)
                ok &= MPI_Waitsome(n, requests, &outcount, indices, statuses) == MPI_SUCCESS &&
                      outcount > 0;
            else
                ok &= MPI_Testsome(n, requests, &outcount, indices, statuses) == MPI_SUCCESS;
            for (int k = 0; ok && k < outcount; k++) {
                ok &= indices[k] >= 0 && indices[k] < n;
                if (ok && completed[indices[k]]++ == 0)
                    done++;
            }
        }
        ok &= MPI_Waitsome(n, requests, &outcount, indices, statuses) == MPI_SUCCESS &&
              outcount == MPI_UNDEFINED;
        break;
    default:
        ok = 0;
    }
    for (int i = 0; i < n; i++) {
        ok &= completed[i] == 1;
        ok &= persistent[i] ? kept[i] == requests[i] && requests[i] != MPI_REQUEST_NULL
                            : requests[i] == MPI_REQUEST_NULL;
    }
    return ok;
}
