#!/bin/sh
# fetch-fftw.sh [DIR] - unpack the source of Debian's fftw3 package (FFTW 3.3.10)
# into DIR (default: build/fftw-src), for the patched FFTW build.
#
# apt-get source needs a deb-src entry.  Where the machine has none, one is
# derived from its own apt sources (the entries of this release's suites,
# with deb replaced by deb-src) and written next to them; no host name comes
# from this repository.  Idempotent: an unpacked source is left alone.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$top/build/fftw-src}
derived=/etc/apt/sources.list.d/alltoall-inplace-src

if ls -d "$dest"/fftw3-*/ >/dev/null 2>&1; then
    echo "fetch-fftw: source already in $dest"
    exit 0
fi

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

if ! apt-cache showsrc fftw3 2>/dev/null | grep -q '^Package: fftw3'; then
    echo "fetch-fftw: deriving deb-src entries for '$codename' from the machine's apt sources"
    # deb822 files: copy each stanza of type deb that serves this release, as deb-src.
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && [ "$f" != "$derived.sources" ] || continue
        awk -v codename="$codename" '
            function flush() {
                if (stanza != "" && is_deb && serves) {
                    sub(/(^|\n)Types:[^\n]*/, "\nTypes: deb-src", stanza)
                    sub(/^\n/, "", stanza)
                    print stanza "\n"
                }
                stanza = ""; is_deb = 0; serves = 0
            }
            /^[ \t]*$/ { flush(); next }
            /^Types:/ { is_deb = ($0 ~ /(^|[ \t])deb([ \t]|$)/) }
            /^Suites:/ { serves = (index($0, codename) > 0) }
            { stanza = stanza (stanza == "" ? "" : "\n") $0 }
            END { flush() }' "$f"
    done | $SUDO tee "$derived.sources" >/dev/null
    # One-line format.
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk -v codename="$codename" '$1 == "deb" && index($0, " " codename) { $1 = "deb-src"; print }' |
        $SUDO tee "$derived.list" >/dev/null
    [ -s "$derived.sources" ] || $SUDO rm -f "$derived.sources"
    [ -s "$derived.list" ] || $SUDO rm -f "$derived.list"
    $SUDO apt-get update -q
fi

# dpkg-source, which apt-get source uses to unpack.
if ! command -v dpkg-source >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends dpkg-dev
fi

mkdir -p "$dest"
cd "$dest"
apt-get source fftw3
ls -d "$dest"/fftw3-*/
