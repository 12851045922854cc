#!/bin/sh
# Plans made once and executed several times, against the MPI library's
# out-of-place collectives, with no setup call during an execution, on
# p = 1..5 and 8 ranks (nodes of 2: the node-aware algorithms run on 4 and 8).
# AIP_Plan_bytes against the heap (--heap), which glibc's thread cache of
# freed chunks would blur.  One seed per run, printed, replayed with
# AIP_TEST_SEED=<seed>.
# AIP_TEST_SCALE=small (scripts/sanitize.sh): the same checks on fewer
# ranks, each run paying the sanitizers' start and leak check.
# There AIP_Plan_bytes is not compared with the heap, which ASan pads.
set -e
export GLIBC_TUNABLES=glibc.malloc.tcache_count=0
seed=${AIP_TEST_SEED:-$(date +%s)}
echo "seed $seed"
ranks="1 2 3 4 5 8" heap=--heap
[ "${AIP_TEST_SCALE:-}" = small ] && ranks="3 4" heap=
for np in $ranks; do
    # shellcheck disable=SC2086 # heap is an option or nothing
    "$MPIRUN" "$np" "$TESTBIN/mpi/plan_test" --seed "$seed" $heap
done
