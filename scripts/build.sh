#!/bin/sh
# build.sh [openmpi|mpich] - configure and build in build/<mpi>/ (an
# out-of-tree build, one per MPI, installed under build/<mpi>/install).
set -eu
mpi=${1:-openmpi}
top=$(cd "$(dirname "$0")/.." && pwd)
builddir="$top/build/$mpi"

cd "$top"
mkdir -p m4
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ]; then
    autoreconf -fi
fi
mkdir -p "$builddir"
cd "$builddir"
if [ ! -f Makefile ] || [ "$top/configure" -nt config.status ]; then
    "$top/configure" --with-mpi="$mpi" --prefix="$builddir/install" \
        --with-fftw-cache="$top/build/fftw-cache" CFLAGS="${CFLAGS:--O2 -g}"
fi
make -j"$(nproc)"
make install >/dev/null
