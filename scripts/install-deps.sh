#!/bin/sh
# install-deps.sh - install the Debian packages the project needs, if missing.
# Idempotent: does nothing (not even apt-get update) when all are present.
set -eu

# FFTW's source comes from `apt-get source fftw3` (dpkg-dev, xz-utils), is
# patched (patch) and checked with its own tests/check.pl (perl).
# bench/alltoallv_figures.sh plots with gnuplot (gnuplot-nox: no X11).
# tests/testbed/netns_testbed.sh, the multi-host test bed, makes network namespaces
# with ip (iproute2) and gives each host its hostname with unshare (util-linux).
# tests/fftw/fftw_dropin.sh compiles a program against Debian's own FFTW-MPI
# (libfftw3-mpi-dev) and runs it on Debian's library and on ours; its
# fftw3-mpi.h includes fftw3.h, which is in libfftw3-dev, not a dependency.
# tests/mpi/pmpi.sh compiles a Fortran caller of the PMPI layer with the MPI's
# mpif90, which needs gfortran.  bench/peers/build.sh builds heFFTe with
# cmake, heFFTe and fftMPI with g++.  scripts/build-fftw.sh compiles FFTW's
# serial library once for both MPIs through ccache.
PACKAGES="gcc make autoconf automake libtool pkg-config time ccache
openmpi-bin libopenmpi-dev mpich libmpich-dev
dpkg-dev xz-utils patch perl gnuplot-nox iproute2 util-linux
libfftw3-mpi-dev libfftw3-dev gfortran cmake g++"

missing=""
for pkg in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $pkg"
    fi
done
if [ -z "$missing" ]; then
    echo "install-deps: all packages present"
    exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install-deps: installing$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
