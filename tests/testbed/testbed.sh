#!/bin/sh
# The multi-host test bed (tests/testbed/netns_testbed.sh: network namespaces, one
# hostname each, TCP over veths between them) on 2, 3 and 4 hosts of 1..4
# ranks, block and cyclic placement, uneven hosts: testbed_check sees one
# processor name and one shared-memory communicator per host, the placement
# asked for, a correct MPI_Alltoall across hosts and AIP_* variables on every
# rank.  SKIP (77) where the bed cannot run: not root, no namespaces, or a
# tree built against another MPI than Open MPI (the bed runs Open MPI's mpirun).
set -e
if [ "$MPI_FLAVOR" != openmpi ]; then
    echo "testbed.sh: SKIP: this tree is built with '$MPI_FLAVOR'; the bed needs Open MPI" >&2
    exit 77
fi
bed="$(dirname "$0")/netns_testbed.sh"
# The launcher configure found (mpiexec.openmpi), not whatever mpirun is first in PATH.
MPIRUN_OMPI=${MPIRUN_OMPI:-${MPIEXEC_PATH:-mpirun}}
export MPIRUN_OMPI
AIP_TESTBED_TOKEN="token-$$"
export AIP_TESTBED_TOKEN
# Each line: placement, then ranks per host.
while read -r map layout; do
    "$bed" --map-by "$map" "$layout" -- "$TESTBIN/testbed/testbed_check" --layout "$layout" \
        --map-by "$map" --env "AIP_TESTBED_TOKEN=$AIP_TESTBED_TOKEN"
done <<'LAYOUTS'
slot 1,1
slot 2,2
slot 4,1
slot 2,2,2
slot 3,1,2
node 3,1,2
slot 1,2,3,4
slot 4,4,4,4
node 4,4,4,4
node 2,2,2,2
node 1,1,1,1
LAYOUTS
