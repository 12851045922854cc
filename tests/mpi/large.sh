#!/bin/sh
# Buffers of more than 4 GiB per rank (blocks past INT_MAX bytes); skipped
# (exit 77) where the machine lacks the memory.
exec "$MPIRUN" 2 "$TESTBIN/mpi/large_test"
