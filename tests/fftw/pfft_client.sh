#!/bin/sh
# pfft_client.sh - PFFT, a program that calls FFTW's MPI transposes directly
# (fftw_mpi_plan_many_transpose, on 1D and 2D process grids, with uneven
# tuples and the TRANSPOSED flags), as a client of the patched FFTW.
#
# PFFT is built from its upstream source over this build's patched FFTW
# (bench/peers/build.sh pfft, PFFT_FFTW=$FFTW_STAGE), cached in the build
# tree's test-cache.  Then, each with FFTW_MPI_INPLACE_ALGORITHM=auto and
# AIP_DEBUG=1, every run must be right and must have planned our
# transposes (the library's "alltoall_inplace: ..." lines on stderr; the
# variable leaves FFTW's own out of in-place transposes):
#
# - bench/peers/pfft_fft3d, which checks a single-mode transform exactly and
#   the round trip of random input (exit status 1 beyond 1e-9 relative): c2c
#   and padded r2c, in place, on 2 ranks (slabs, equal blocks: hsa), 3 ranks
#   (slabs, uneven: general; square and uneven: the schedules through
#   AIP_Alltoallv), 4 ranks as a 2 x 2 grid (pencils) with equal
#   and with uneven sizes, and with PFFT_TRANSPOSED_OUT/IN;
# - PFFT's own tests/simple_check_c2c_inplace and
#   simple_check_c2c_transposed_inplace (29 x 27 x 31 on a 2 x 2 grid: 4
#   ranks), whose "maxerror" must be below 1e-9;
#
# and one run with FFTW_MPI_INPLACE_ALGORITHM=off must show none of our
# lines, so that the check of the others can fail.
#
# SKIP (77) where PFFT's source is not available: PFFT_SRC names a source
# directory, a release tarball or a git repository (PFFT_REV, default
# v1.0.8-alpha); unset, build.sh downloads the release, which needs a
# network.  Building takes 20-60 s once; the runs about 15 s.
#
# Environment (from make check): MPIRUN, MPI_FLAVOR, FFTW_STAGE, AIP_CACHE.
set -u
SKIP=77
skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
case "${MPI_FLAVOR:-}" in
openmpi | mpich) ;;
*) skip "bench/peers/build.sh builds for Debian's openmpi or mpich, not '${MPI_FLAVOR:-}'" ;;
esac
[ -f "${FFTW_STAGE:?}/include/fftw3-mpi.h" ] || skip "no patched FFTW at $FFTW_STAGE"
peers=${AIP_CACHE:?}/peers-$MPI_FLAVOR
bin=$peers/pfft/bin

log=$(mktemp)
out=$(mktemp)
trap 'rm -f "$log" "$out"' EXIT
if ! MPI=$MPI_FLAVOR PEERS_DIR=$peers PFFT_FFTW=$FFTW_STAGE PFFT_DEBIAN=no \
    "$top/bench/peers/build.sh" pfft > "$log" 2>&1; then
    if [ -z "${PFFT_SRC:-}" ] && grep -q 'cannot download' "$log"; then
        skip "PFFT's source is not available: set PFFT_SRC to a source directory," \
             "a release tarball or a git repository of PFFT ($(grep -m1 'cannot download' "$log"))"
    fi
    cat "$log"
    echo "FAIL: bench/peers/build.sh pfft"
    exit 1
fi
grep -m1 '^pfft:' "$log"
failures=0

# run ALGORITHM NP PROGRAM ARGS...: the run's output in $out; its status
run() {
    algorithm=$1 np=$2
    shift 2
    FFTW_MPI_INPLACE_ALGORITHM=$algorithm AIP_DEBUG=1 "$MPIRUN" "$np" "$@" > "$out" 2>&1
}

ours_ran() { grep -q '^alltoall_inplace: ' "$out"; }

# driver NP ARGS...: pfft_fft3d on ours, right and through our transposes
driver() {
    np=$1
    shift
    what="pfft_fft3d $* on $np ranks"
    if ! run auto "$np" "$bin/pfft_fft3d" -r 2 -p estimate "$@"; then
        tail -n 5 "$out"
        fail "$what"
    elif ! ours_ran; then
        fail "$what ran none of our transposes"
    else
        echo "ok: $what ($(grep -c '^alltoall_inplace: AIP_' "$out") plans of ours)"
    fi
}

driver 2 -s 32 -d slabs
driver 2 -s 32 -d slabs -k r2c -t
driver 3 -s 31x27x17 -d slabs
driver 3 -s 32 -d slabs
grep -q '^alltoall_inplace: AIP_Alltoallv_init on 3 ranks: \(hsa\|lsa\|mpich\)' "$out" ||
    fail "pfft_fft3d -s 32 on 3 ranks: its square uneven transposes not planned symmetric"
driver 3 -s 30x27x16 -d slabs -k r2c
driver 4 -s 24 -g 2x2
driver 4 -s 30x27x17 -g 2x2 -t
driver 4 -s 30x27x18 -g 2x2 -k r2c

# PFFT's own checks on a 2 x 2 grid
for program in simple_check_c2c_inplace simple_check_c2c_transposed_inplace; do
    status=0
    run auto 4 "$bin/$program" || status=$?
    error=$(sed -n 's/.*maxerror = *\([-+.0-9eE]*\).*/\1/p' "$out" | tail -n 1)
    if [ "$status" -ne 0 ] || [ -z "$error" ] ||
        ! awk -v e="$error" 'BEGIN { exit !(e <= 1e-9) }'; then
        tail -n 5 "$out"
        fail "$program on 4 ranks: status $status, maxerror '${error:-none}'"
    elif ! ours_ran; then
        fail "$program ran none of our transposes"
    else
        echo "ok: $program on 4 ranks, maxerror $error"
    fi
done

# FFTW's own transposes when told: the check above can tell them apart
if ! run off 2 "$bin/pfft_fft3d" -r 2 -p estimate -s 32 -d slabs; then
    tail -n 5 "$out"
    fail "pfft_fft3d with FFTW_MPI_INPLACE_ALGORITHM=off"
elif ours_ran; then
    fail "FFTW_MPI_INPLACE_ALGORITHM=off still ran our transposes"
else
    echo "ok: FFTW_MPI_INPLACE_ALGORITHM=off runs FFTW's own transposes"
fi

[ "$failures" -eq 0 ] || { echo "FAIL: $failures of PFFT's runs"; exit 1; }
echo "PASS: PFFT on the patched FFTW"
