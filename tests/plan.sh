#!/bin/sh
# Plans made once and executed several times, against the MPI library's
# out-of-place collectives, with no setup call during an execution, on
# p = 1..5 and 8 ranks (nodes of 2: the node-aware algorithms run on 4 and 8).
# AIP_Plan_bytes against the heap (--heap), which glibc's thread cache of
# freed chunks would blur.  One seed per run, printed, replayed with
# AIP_TEST_SEED=<seed>.
set -e
export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
seed=${AIP_TEST_SEED:-$(date +%s)}
echo "seed $seed"
for np in 1 2 3 4 5 8; do
    "$MPIRUN" "$np" "$TESTBIN/plan_test" --seed "$seed" --heap
done
