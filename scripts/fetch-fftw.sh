#!/bin/sh
# fetch-fftw.sh [DIR] - unpack the source of Debian's fftw3 package (FFTW 3.3.10)
# into DIR (default: build/fftw-src), for the patched FFTW build.
#
# apt-get source needs a deb-src entry: scripts/deb-src.sh derives one from
# the machine's own apt sources where it has none; no host name comes from
# this repository.  Idempotent: an unpacked source is left alone.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$top/build/fftw-src}

if ls -d "$dest"/fftw3-*/ >/dev/null 2>&1; then
    echo "fetch-fftw: source already in $dest"
    exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
"$top/scripts/deb-src.sh" fftw3

# dpkg-source, which apt-get source uses to unpack.
if ! command -v dpkg-source >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends dpkg-dev
fi

mkdir -p "$dest"
cd "$dest"
apt-get source fftw3
ls -d "$dest"/fftw3-*/
