#!/bin/sh
# deb-src.sh PACKAGE - make `apt-get source PACKAGE` possible.
#
# apt-get source needs a deb-src entry.  Where apt knows no source of
# PACKAGE, one is derived from the machine's own apt sources (the entries of
# this release's suites, with deb replaced by deb-src) and written next to
# them, and the indexes are updated; no host name comes from this
# repository.  Needs root or sudo for that step only.  Exits 0 when
# `apt-cache showsrc PACKAGE` knows the package afterwards, 1 otherwise.
# For FFTW's source (scripts/fetch-fftw.sh) and MPICH's test suite
# (tests/mpi/pmpi_conformance.sh).
set -eu
pkg=$1
derived=/etc/apt/sources.list.d/alltoall-inplace-src

known() { apt-cache showsrc "$pkg" 2>/dev/null | grep -q "^Package: $pkg\$"; }
known && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")

echo "deb-src: deriving deb-src entries for '$codename' from the machine's apt sources"
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
known
