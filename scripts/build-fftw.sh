#!/bin/bash
# build-fftw.sh build|install - the patched FFTW, as `make` and
# `make install` of this project run it (see Makefile.am for the variables).
#
#   build    fetch or reuse the FFTW source, apply fftw-patches/, copy in
#            transpose/, configure and build FFTW with MPI against $MPICC and
#            liballtoall_inplace, then link the results (libraries, headers,
#            fftw3_mpi.pc, mpi-bench) into $FFTW_STAGE of the build tree;
#   install  `make install` FFTW under $PREFIX (honouring $DESTDIR), plus
#            mpi-bench in $BINDIR;
#   uninstall  removes what install installed (`make uninstall`, distcheck).
#
# A full FFTW build takes minutes, so configured trees are kept in
# $FFTW_CACHE/fftw-<key>, the key being a hash of what changes the result
# apart from our solver sources: the FFTW source, the patches, the MPI
# compiler and what it links, FFTW's configure flags, the prefix and the
# liballtoall_inplace flags.  transpose/*.[ch] are copied in at each build
# (only when they changed), so editing them rebuilds only FFTW's mpi/.
# A tree for a second MPI starts as a copy of the first's (copy_sibling).
# Builds sharing one tree are serialised with flock.
#
# Environment: FFTW_SOURCE (debian, a directory, or a fftw-3.3.x tarball),
# FFTW_CACHE, FFTW_CONFIGURE_FLAGS, FFTW_STAGE, MPICC, PREFIX, BINDIR,
# AIP_CFLAGS, AIP_LIBS, TOP_SRCDIR, JOBS (default: all cores),
# FFTW_LIBRARIES_ONLY (yes: make libfftw3 and libfftw3_mpi, no programs;
# bench/fftw_smpi.sh, whose smpicc cannot link FFTW's test programs),
# FFTW_EXTRA_PATCHES (patches applied after fftw-patches/: bench/fftw_smpi.sh's
# sampled rounds).
set -euo pipefail

die() { echo "build-fftw.sh: $*" >&2; exit 1; }

action=${1:-}
for var in FFTW_SOURCE FFTW_CACHE FFTW_STAGE MPICC PREFIX BINDIR AIP_CFLAGS \
           AIP_LIBS TOP_SRCDIR; do
    [ -n "${!var:-}" ] || die "$var is not set (run it through make)"
done
FFTW_CONFIGURE_FLAGS=${FFTW_CONFIGURE_FLAGS:-}
JOBS=${JOBS:-$(nproc)}
patches=("$TOP_SRCDIR"/fftw-patches/*.patch)
# shellcheck disable=SC2206 # a list of paths
[ -z "${FFTW_EXTRA_PATCHES:-}" ] || patches+=($FFTW_EXTRA_PATCHES)
solver_sources=("$TOP_SRCDIR"/transpose/*.[ch])
mkdir -p "$FFTW_CACHE"
# FFTW's serial library compiles alike for every MPI (its config.h is the
# same): where no built tree can be copied (copy_sibling), ccache
# (install-deps.sh) gives the second MPI's build the first's objects.
# Paths are relative to each tree (BASEDIR), and the tree's own directory is
# left out of the hash (only -g's comp_dir differs).
CCACHE_CC=""
if command -v ccache > /dev/null 2>&1; then
    export CCACHE_DIR="$FFTW_CACHE/ccache" CCACHE_BASEDIR="$FFTW_CACHE" CCACHE_NOHASHDIR=true
    CCACHE_CC="ccache ${CC:-gcc}"
fi

# ---- The source ---------------------------------------------------------------
# Prints the unpacked source directory; Debian's is fetched once per cache.
source_dir() {
    case "$FFTW_SOURCE" in
    debian)
        local dir="$FFTW_CACHE/debian-source"
        if ! ls -d "$dir"/fftw3-3.3.* >/dev/null 2>&1; then
            "$TOP_SRCDIR/scripts/fetch-fftw.sh" "$dir" >&2
        fi
        ls -d "$dir"/fftw3-3.3.* | head -n 1 ;;
    *) echo "$FFTW_SOURCE" ;;
    esac
}

source_identity() {
    local src=$1
    if [ -f "$src" ]; then
        sha256sum < "$src"
    else # a tree: its version and the digest of its files
        (cd "$src" && find . -path ./debian -prune -o -type f -print0 |
            LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum
    fi
}

mpi_identity() {
    local cc
    cc=$(command -v "$MPICC") || die "MPI compiler '$MPICC' not found"
    readlink -f "$cc"
    "$MPICC" -show 2>/dev/null || "$MPICC" --showme 2>/dev/null || true
}

default_flags() {
    local flags="--enable-shared --disable-static --enable-threads --disable-fortran"
    case "$(uname -m)" in
    x86_64|i?86) flags="$flags --enable-sse2 --enable-avx" ;;
    esac
    echo "$flags"
}

[ -n "$FFTW_CONFIGURE_FLAGS" ] || FFTW_CONFIGURE_FLAGS=$(default_flags)

# What FFTW's serial library depends on: trees of the same base key differ
# only in their MPI part (mpi/), prefix and liballtoall_inplace.
base_key() {
    { source_identity "$1"; cat "${patches[@]}"
      echo "$FFTW_CONFIGURE_FLAGS|${CC:-}|${CFLAGS:-}|$CCACHE_CC"; } | sha256sum | cut -c1-16
}

tree_dir() {
    local src=$1 key
    key=$( { source_identity "$src"; cat "${patches[@]}"; mpi_identity
             echo "$FFTW_CONFIGURE_FLAGS|$PREFIX|$AIP_CFLAGS|$AIP_LIBS"; } |
           sha256sum | cut -c1-16)
    echo "$FFTW_CACHE/fftw-$key"
}

# ---- Build ----------------------------------------------------------------------
unpack() {
    local src=$1 tree=$2
    rm -rf "$tree/src" "$tree/build"
    mkdir -p "$tree/src" "$tree/build"
    if [ -f "$src" ]; then
        tar -xf "$src" --strip-components=1 -C "$tree/src"
    else
        cp -a "$src/." "$tree/src/"
    fi
    [ -f "$tree/src/mpi/transpose-pairwise.c" ] ||
        die "$src does not look like an FFTW 3.3 source"
    for p in "${patches[@]}"; do
        patch -d "$tree/src" -p1 --batch --quiet < "$p" ||
            die "$(basename "$p") does not apply to $src"
    done
}

# Copies our solvers into FFTW's mpi/, leaving unchanged files alone so
# that make rebuilds only what was edited.
sync_solvers() {
    local tree=$1 f
    for f in "${solver_sources[@]}"; do
        cmp -s "$f" "$tree/src/mpi/$(basename "$f")" || cp "$f" "$tree/src/mpi/"
    done
}

configure_fftw() {
    local tree=$1
    echo "  autoreconf and configure FFTW (log: $tree/configure.log)"
    (cd "$tree/src" && autoreconf -fi) > "$tree/configure.log" 2>&1 ||
        { tail -n 20 "$tree/configure.log"; die "autoreconf of FFTW failed"; }
    # shellcheck disable=SC2086 # the flags are a word list
    (cd "$tree/build" && ../src/configure --prefix="$PREFIX" --enable-mpi \
        $FFTW_CONFIGURE_FLAGS MPICC="$MPICC" ${CCACHE_CC:+CC="$CCACHE_CC"} \
        AIP_CFLAGS="$AIP_CFLAGS" AIP_LIBS="$AIP_LIBS") >> "$tree/configure.log" 2>&1 ||
        { tail -n 30 "$tree/configure.log"; die "configure of FFTW failed"; }
    touch "$tree/.configured"
}

# A tree for a second MPI starts as a copy of a built tree of the same base
# key (the other MPI's), since FFTW's serial library, a thousand files, is the
# same for both: MPICH's build after Open MPI's took 160 s instead of 460 s
# here (configure, and make with every object a ccache hit).  The copy's
# config.status takes this tree's paths, prefix, MPICC and
# liballtoall_inplace and writes the Makefiles; mpi/ is removed, and every
# library and program removed to be linked again, so that nothing keeps the
# other tree's paths or MPI.  Returns 1, having made nothing, where no such
# tree is built or its config.status does not read as expected; the caller
# then configures from the source.
copy_sibling() {
    local tree=$1 base=$2 sibling="" dir var old new arg
    for dir in "$FFTW_CACHE"/fftw-*/; do
        dir=${dir%/}
        if [ "$dir" != "$tree" ] && [ -f "$dir/.built" ] &&
           [ "$(cat "$dir/.base" 2> /dev/null)" = "$base" ]; then
            sibling=$dir
            break
        fi
    done
    [ -n "$sibling" ] || return 1
    echo "  copy FFTW's configured and built tree $sibling"
    rm -rf "$tree/src" "$tree/build"
    ( flock 8 && cp -a "$sibling/src" "$sibling/build" "$tree/" ) 8> "$sibling.lock" ||
        return 1
    # In config.status, literal replacements (perl's \Q): the tree's path;
    # each value (S["VAR"]="...") and its place in the recorded configure
    # command line (VAR=... or --prefix=...).
    local status=$tree/build/config.status
    replace() { # OLD NEW
        OLD=$1 NEW=$2 perl -pi -e 's/\Q$ENV{OLD}\E/$ENV{NEW}/g' "$status"
    }
    replace "$sibling" "$tree"
    for var in prefix MPICC AIP_LIBS AIP_CFLAGS; do
        old=$(sed -n "s/^S\[\"$var\"\]=\"\(.*\)\"\$/\1/p" "$status")
        case $var in prefix) new=$PREFIX arg=--prefix ;; *) new=${!var} arg=$var ;; esac
        [ -n "$old" ] || { rm -rf "$tree/src" "$tree/build"; return 1; }
        replace "S[\"$var\"]=\"$old\"" "S[\"$var\"]=\"$new\""
        replace "$arg=$old" "$arg=$new"
    done
    rm -rf "$tree/build/mpi"
    find "$tree/build" \( -name '*.la' -o -name '*.lai' -o -path '*/.libs/*.so*' \
        -o -name 'FFTW3*.cmake' \) -delete
    grep -rlI 'temporary wrapper script for' "$tree/build" |
        while read -r program; do
            rm -f "$program" "$(dirname "$program")/.libs/$(basename "$program")" \
                "$(dirname "$program")/.libs/lt-$(basename "$program")"
        done
    (cd "$tree/build" && ./config.status) > "$tree/configure.log" 2>&1 ||
        { tail -n 20 "$tree/configure.log"; die "config.status of the copied FFTW failed"; }
    touch "$tree/.configured"
}

# libfftw3 and libfftw3_mpi without FFTW's programs: the serial library's
# directories, the library, then mpi/'s library alone.
make_libraries() {
    local tree=$1 ldflags=$2 dir
    for dir in support kernel simd-support dft rdft reodft api; do
        make -C "$tree/build/$dir" -j "$JOBS" || return 1
    done
    make -C "$tree/build" -j "$JOBS" LDFLAGS="$ldflags" libfftw3.la &&
        make -C "$tree/build/mpi" -j "$JOBS" LDFLAGS="$ldflags" libfftw3_mpi.la
}

make_fftw() {
    local tree=$1 ldflags
    echo "  make FFTW with $JOBS jobs (log: $tree/make.log)"
    # Programs linked against the uninstalled libfftw3_mpi must find the
    # uninstalled liballtoall_inplace it needs, not an older copy under the
    # prefix (the rpath), which lacks the newer symbols.
    ldflags=$(sed -n 's/^LDFLAGS = //p' "$tree/build/Makefile")
    case "$AIP_LIBS" in
    *.la) ldflags="$ldflags -Wl,-rpath-link,$(dirname "$AIP_LIBS")/.libs" ;;
    esac
    if [ "${FFTW_LIBRARIES_ONLY:-}" = yes ]; then
        make_libraries "$tree" "$ldflags"
    else
        make -C "$tree/build" -j "$JOBS" LDFLAGS="$ldflags"
    fi > "$tree/make.log" 2>&1 ||
        { grep -B2 -A8 -m 3 'error' "$tree/make.log" || tail -n 30 "$tree/make.log"
          die "make of FFTW failed"; }
}

# The build tree's view of the patched FFTW: symlinks into the cached tree.
stage() {
    local tree=$1 b=$1/build lib
    rm -rf "$FFTW_STAGE"
    mkdir -p "$FFTW_STAGE/lib/pkgconfig" "$FFTW_STAGE/include" "$FFTW_STAGE/bin"
    for lib in "$b"/.libs/libfftw3*.so* "$b"/threads/.libs/libfftw3*.so* \
               "$b"/mpi/.libs/libfftw3*_mpi.so*; do
        [ -e "$lib" ] && ln -s "$lib" "$FFTW_STAGE/lib/"
    done
    case "$AIP_LIBS" in  # the uninstalled liballtoall_inplace.la of make
    *.la) for lib in "$(dirname "$AIP_LIBS")"/.libs/liballtoall_inplace.so*; do
              ln -s "$lib" "$FFTW_STAGE/lib/"
          done ;;
    esac
    ln -s "$tree/src/api/fftw3.h" "$tree/src/mpi/fftw3-mpi.h" "$FFTW_STAGE/include/"
    ln -s "$b/mpi/mpi-bench" "$FFTW_STAGE/bin/mpi-bench"  # libtool's wrapper
    ln -s "$b" "$FFTW_STAGE/build"
    cat > "$FFTW_STAGE/lib/pkgconfig/fftw3_mpi.pc" <<EOF
# The patched FFTW of the build tree, uninstalled.
prefix=$FFTW_STAGE
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: fftw3_mpi
Description: FFTW's MPI transforms with bounded-memory in-place transposes
Version: 3.3.10
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lfftw3_mpi -lfftw3 -lm
Cflags: -I\${includedir}
EOF
}

build() {
    local src tree base
    src=$(source_dir)
    [ -e "$src" ] || die "FFTW source '$src' not found"
    tree=$(tree_dir "$src")
    mkdir -p "$tree"
    exec 9> "$tree.lock"
    flock 9
    echo "patched FFTW: $tree"
    base=$(base_key "$src")
    if [ ! -f "$tree/.configured" ] && ! copy_sibling "$tree" "$base"; then
        unpack "$src" "$tree"
        sync_solvers "$tree"
        configure_fftw "$tree"
    fi
    echo "$base" > "$tree/.base"
    sync_solvers "$tree"
    rm -f "$tree/.built"
    make_fftw "$tree"
    [ "${FFTW_LIBRARIES_ONLY:-}" = yes ] || touch "$tree/.built"
    stage "$tree"
}

# The configured tree the stage links to, for install and uninstall.
staged_tree() { readlink -f "$FFTW_STAGE/build" || die "build FFTW first"; }

# make_in_prefix TREE TARGET: FFTW's make install or uninstall, honouring DESTDIR.
make_in_prefix() {
    make -C "$1" "$2" DESTDIR="${DESTDIR:-}" > "$1/$2.log" 2>&1 ||
        { tail -n 30 "$1/$2.log"; die "make $2 of FFTW failed"; }
}

install_fftw() {
    local b
    b=$(staged_tree)
    make_in_prefix "$b" install
    mkdir -p "${DESTDIR:-}$BINDIR"
    "$b/libtool" --mode=install install -c "$b/mpi/mpi-bench" \
        "${DESTDIR:-}$BINDIR/mpi-bench" >> "$b/install.log" 2>&1 ||
        { tail -n 30 "$b/install.log"; die "installing mpi-bench failed"; }
}

uninstall_fftw() {
    local b
    b=$(staged_tree)
    make_in_prefix "$b" uninstall
    rm -f "${DESTDIR:-}$BINDIR/mpi-bench"
}

case "$action" in
build) build ;;
install) install_fftw ;;
uninstall) uninstall_fftw ;;
*) die "usage: build-fftw.sh build|install|uninstall" ;;
esac
