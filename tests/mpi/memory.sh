#!/bin/sh
# 256 MiB per rank, 1 MiB budget: VmHWM grows by less than 8 MiB during a call
# (on 4 ranks also with the node-aware algorithms on 2 nodes of 2).
set -e
for np in 2 4; do
    "$MPIRUN" "$np" "$TESTBIN/mpi/memory_test" 256 1048576 8
done
