#!/bin/sh
# build.sh [heffte|fftmpi|pfft ...] - build the distributed-FFT libraries that
# users pick instead of FFTW's MPI transforms, for the comparison with ours
# (default: all three), each from its upstream source with its own build
# system; no peer's code is kept in this repository.
#
#   heffte  heFFTe (CMake, FFTW backend on Debian's libfftw3): its benchmarks
#           speed3d_c2c and speed3d_r2c, and our driver heffte_fft3d.cpp
#   fftmpi  fftMPI (its Makefile, FFTW3 for the 1D FFTs): its test/test3d
#   pfft    PFFT (autotools) over $PFFT_FFTW: its tests time_c2c,
#           time_c2c_transposed, bench_c2c, simple_check_c2c_inplace and
#           simple_check_c2c_transposed_inplace, and our driver pfft_fft3d.c;
#           under openmpi also pfft-debian, the same over Debian's FFTW
#
# Each goes to $PEERS_DIR/<peer>/ (src, build, install, build.log) with its
# programs in bin/, and is built once: a stamp of the source's identity (git
# commit, tarball checksum or the contents' hash), the MPI, the FFTW and the
# flags skips the rebuild; the drivers are recompiled when their sources
# change.  Prints each peer's version, the source it was built from and the
# build time.  bench/peers/check.sh runs them.  On a shared machine run it as
# `nice -n 10 bench/peers/build.sh`.  Installs what is missing
# (scripts/install-deps.sh: the project's packages, cmake and g++ among them).
#
# Environment:
#   MPI        openmpi (default) or mpich: compiles with mpicc.$MPI and
#              mpicxx.$MPI by name, since Debian's plain mpicc may be either
#   PEERS_DIR  the cache (default: build/peers/$MPI of the project)
#   JOBS       make -j (default 2)
#   HEFFTE_SRC, FFTMPI_SRC, PFFT_SRC  each a source directory, a release
#              tarball (a file or an http(s) URL) or a git repository, bare or
#              not, of which HEFFTE_REV, FFTMPI_REV, PFFT_REV (default v2.4.1,
#              HEAD, v1.0.8-alpha) is built, not the work tree.  Default: the
#              upstream archives of those revisions (UPSTREAM_* below), with
#              curl or wget
#   PFFT_FFTW  the FFTW with MPI for PFFT, a prefix with include/fftw3-mpi.h
#              and lib/libfftw3_mpi.so (default build/$MPI/fftw, the project's
#              patched FFTW, which scripts/build.sh $MPI stages); pfft-debian
#              uses /usr, whose libfftw3_mpi links Open MPI only (PFFT_DEBIAN=no
#              leaves it out)
#
# Fixes to the peers' builds, applied here:
#   PFFT     configure.ac and m4/ax_cc_maxopt.m4 keep the user's CFLAGS only if
#            autoconf set ac_test_CFLAGS to "set"; autoconf >= 2.70 sets "y",
#            so configure replaced every CFLAGS with its own -O3 ... -ffast-math
#            -march=native.  A sed makes the tests check for emptiness, and the
#            configured Makefile is checked for those flags.  bootstrap.sh is
#            not run (it needs bash's `type -p`): autoreconf -fi is its work.
#            Static only, so that each program finds its FFTW through its own
#            run path (the patched and Debian's libfftw3_mpi share the soname).
#   heFFTe   CMAKE_DISABLE_FIND_PACKAGE_Git, or heFFTe's CMake runs `git log`
#            in build/peers/ and records this project's commit as its own.
#            Heffte_ENABLE_TESTING (default ON) is what builds the benchmarks;
#            only they and the library are made, not its tests and examples.
#   fftMPI   none: src/memory.cpp includes malloc.h only for the Intel
#            compiler, and what it uses (posix_memalign) is stdlib.h's.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
here="$top/bench/peers"
MPI=${MPI:-openmpi}
case "$MPI" in
openmpi | mpich) ;;
*) echo "build.sh: MPI must be openmpi or mpich, not '$MPI'" >&2; exit 2 ;;
esac
MPICC=mpicc.$MPI
MPICXX=mpicxx.$MPI
PEERS_DIR=${PEERS_DIR:-$top/build/peers/$MPI}
JOBS=${JOBS:-2}
PFFT_FFTW=${PFFT_FFTW:-$top/build/$MPI/fftw}
HEFFTE_REV=${HEFFTE_REV:-v2.4.1}
FFTMPI_REV=${FFTMPI_REV:-HEAD}
PFFT_REV=${PFFT_REV:-v1.0.8-alpha}
# fftMPI has no releases: the archive of the commit that HEAD was when this
# was written (2022-06-06)
UPSTREAM_HEFFTE=https://github.com/icl-utk-edu/heffte/archive/refs/tags/v2.4.1.tar.gz
UPSTREAM_FFTMPI=https://github.com/lammps/fftmpi/archive/3c2b939e12734282923b459268990364c116be48.tar.gz
UPSTREAM_PFFT=https://github.com/mpip/pfft/archive/refs/tags/v1.0.8-alpha.tar.gz
HEFFTE_SRC=${HEFFTE_SRC:-$UPSTREAM_HEFFTE}
FFTMPI_SRC=${FFTMPI_SRC:-$UPSTREAM_FFTMPI}
PFFT_SRC=${PFFT_SRC:-$UPSTREAM_PFFT}
# the peers' optimisation: heFFTe's Release (-O3), fftMPI's Makefile's, and
# the same -O3 for PFFT instead of its -ffast-math -march=native
FFTMPI_CCFLAGS="-g -O3"
PFFT_CFLAGS="-O3"
DRIVER_FLAGS="-O2 -g"

die() { echo "build.sh: $*" >&2; exit 1; }

# ---- Sources ----

# The git directory of $1 if it is a repository (bare or with a work tree).
git_dir_of() {
    if [ -e "$1/.git" ]; then
        git -C "$1" rev-parse --absolute-git-dir
    elif git --git-dir="$1" rev-parse --git-dir >/dev/null 2>&1; then
        echo "$1" # bare (a mirror may lack the config that says so)
    else
        return 1
    fi
}

# source_identity VAR SRC REV: what the source is, exactly enough to decide
# whether a build is stale.
source_identity() {
    case "$2" in
    http://* | https://*) echo "archive $2"; return ;;
    esac
    if gitdir=$(git_dir_of "$2"); then
        commit=$(git --git-dir="$gitdir" rev-parse -q --verify "$3^{commit}") ||
            die "$1=$2 has no revision '$3'"
        echo "git $commit = $3 of $2"
    elif [ -d "$2" ]; then
        echo "directory $2, contents $( (cd "$2" && find . -type f ! -path './.git/*' -print0 |
            LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16)"
    elif [ -f "$2" ]; then
        echo "tarball $2, sha256 $(sha256sum <"$2" | cut -c1-16)"
    else
        die "$1=$2 is neither a directory, a tarball, a git repository nor a URL"
    fi
}

# unpack TARBALL DEST: its contents, without the top directory, in DEST.
unpack() {
    tmp="$DEST_TMP/unpack"
    rm -rf "$tmp" && mkdir -p "$tmp"
    tar -xf "$1" -C "$tmp" || die "cannot unpack $1"
    set -- "$1" "$2" "$tmp"/*
    if [ $# -eq 3 ] && [ -d "$3" ]; then
        mv "$3" "$2"
    else
        mv "$tmp" "$2"
    fi
}

# fetch_source VAR SRC REV DEST: the source tree in DEST (a fresh directory).
fetch_source() {
    rm -rf "$4"
    case "$2" in
    http://* | https://*)
        file="$PEERS_DIR/downloads/$(basename "$2")"
        mkdir -p "$PEERS_DIR/downloads"
        if [ ! -s "$file" ]; then
            echo "  downloading $2"
            if curl -fsSL --connect-timeout 20 -o "$file.part" "$2" 2>/dev/null ||
                wget -q -T 20 -t 1 -O "$file.part" "$2" 2>/dev/null; then
                mv "$file.part" "$file"
            else
                rm -f "$file.part"
                die "cannot download $2 (no network?); set $1 to a source directory," \
                    "a release tarball or a git repository (${1%_SRC}_REV picks the revision)"
            fi
        fi
        unpack "$file" "$4"
        ;;
    *)
        if gitdir=$(git_dir_of "$2"); then
            mkdir -p "$4"
            git --git-dir="$gitdir" archive "$3^{commit}" | tar -x -C "$4"
        elif [ -d "$2" ]; then
            mkdir -p "$4"
            (cd "$2" && tar -cf - --exclude=./.git .) | tar -x -C "$4"
        else
            unpack "$2" "$4"
        fi
        ;;
    esac
}

# ---- Building ----

# in_log DIR COMMAND...: runs COMMAND with its output appended to
# DIR/build.log; on failure shows the log's end and stops.
in_log() {
    log="$1/build.log"
    shift
    echo "+ $*" >>"$log"
    "$@" >>"$log" 2>&1 || {
        tail -n 30 "$log" >&2
        die "failed: $* (log: $log)"
    }
}

# up_to_date DIR KEY PROGRAMS...: whether DIR was built with KEY and holds
# its programs (in DIR/bin).
up_to_date() {
    dir=$1 key=$2
    shift 2
    [ -f "$dir/stamp" ] && [ "$(sed -n '1,/^--$/p' "$dir/stamp")" = "$(printf '%s\n--' "$key")" ] ||
        return 1
    for program in "$@"; do
        [ -x "$dir/bin/$program" ] || return 1
    done
}

# begin DIR: a fresh DIR (its source, build, install and bin) and its clock.
begin() {
    rm -rf "$1"
    mkdir -p "$1/bin"
    DEST_TMP=$1
    started=$(date +%s)
}

# finish NAME DIR KEY VERSION: records the build (key, version, seconds) and says so.
finish() {
    seconds=$(($(date +%s) - started))
    printf '%s\n--\n%s\nbuilt in %d s on %s\n' "$3" "$4" "$seconds" "$(date '+%F %T')" >"$2/stamp"
    echo "$1: built $4 in $seconds s"
}

# report NAME DIR: the version and build time of an up-to-date build.
report() {
    echo "$1: up to date, $(sed '1,/^--$/d' "$2/stamp" | paste -sd ';' | sed 's/;/; /')"
}

# stale OUTPUT SOURCES...: whether OUTPUT is missing or older than a source.
stale() {
    output=$1
    shift
    [ -e "$output" ] || return 0
    for source in "$@"; do
        [ "$source" -nt "$output" ] && return 0
    done
    return 1
}

# The drivers' share of the project: the /proc reader of common/, compiled
# into DIR.
proc_memory_object() {
    object="$1/proc_memory.o"
    if stale "$object" "$top/common/proc_memory.c" "$top/common/proc_memory.h"; then
        $MPICC $DRIVER_FLAGS -c "$top/common/proc_memory.c" -o "$object"
    fi
    echo "$object"
}

build_heffte() {
    dir="$PEERS_DIR/heffte"
    identity=$(source_identity HEFFTE_SRC "$HEFFTE_SRC" "$HEFFTE_REV")
    cmake_flags="-DCMAKE_BUILD_TYPE=Release -DHeffte_ENABLE_FFTW=ON -DBUILD_SHARED_LIBS=ON"
    cmake_flags="$cmake_flags -DMPI_C_COMPILER=$MPICC -DMPI_CXX_COMPILER=$MPICXX"
    cmake_flags="$cmake_flags -DCMAKE_DISABLE_FIND_PACKAGE_Git=ON"
    key="heffte from $identity
mpi $MPI
cmake $cmake_flags"
    if up_to_date "$dir" "$key" speed3d_c2c speed3d_r2c; then
        report heffte "$dir"
    else
        echo "heffte: building from $identity"
        begin "$dir"
        fetch_source HEFFTE_SRC "$HEFFTE_SRC" "$HEFFTE_REV" "$dir/src"
        version=$(sed -n 's/^project("Heffte" VERSION \([0-9.]*\).*/\1/p' "$dir/src/CMakeLists.txt")
        mkdir -p "$dir/build"
        # shellcheck disable=SC2086 # the flags are words
        in_log "$dir" cmake -S "$dir/src" -B "$dir/build" -DCMAKE_INSTALL_PREFIX="$dir/install" $cmake_flags
        in_log "$dir" cmake --build "$dir/build" -j "$JOBS" --target Heffte speed3d_c2c speed3d_r2c
        in_log "$dir" cmake --install "$dir/build"
        ln -s ../build/benchmarks/speed3d_c2c ../build/benchmarks/speed3d_r2c "$dir/bin/"
        finish heffte "$dir" "$key" "heFFTe $version from $identity"
    fi
    # our driver, on the installed heFFTe; its FFTW calls are inline in heFFTe's headers
    driver="$dir/bin/heffte_fft3d"
    if stale "$driver" "$here/heffte_fft3d.cpp" "$here/fft3d_common.h" "$dir/stamp"; then
        echo "heffte: compiling heffte_fft3d"
        $MPICXX $DRIVER_FLAGS -I"$dir/install/include" "$here/heffte_fft3d.cpp" \
            "$(proc_memory_object "$dir")" -L"$dir/install/lib" \
            -Wl,-rpath,"$dir/install/lib" -lheffte -lfftw3 -lfftw3f -o "$driver"
    fi
}

build_fftmpi() {
    dir="$PEERS_DIR/fftmpi"
    identity=$(source_identity FFTMPI_SRC "$FFTMPI_SRC" "$FFTMPI_REV")
    make_flags="fft=FFTW3 p=DOUBLE CC=$MPICXX MPICC=$MPICXX"
    key="fftmpi from $identity
mpi $MPI
make $make_flags CCFLAGS=$FFTMPI_CCFLAGS"
    if up_to_date "$dir" "$key" test3d; then
        report fftmpi "$dir"
        return
    fi
    echo "fftmpi: building from $identity"
    begin "$dir"
    fetch_source FFTMPI_SRC "$FFTMPI_SRC" "$FFTMPI_REV" "$dir/src"
    version=$(sed -n 's/^#define FFTMPI_VERSION "\(.*\)"/\1/p' "$dir/src/src/version.h")
    # the static library (src/Makefile's static3d), so that test3d needs no run path
    # shellcheck disable=SC2086 # the flags are words
    in_log "$dir" make -C "$dir/src/src" -j "$JOBS" static3d $make_flags CCFLAGS="$FFTMPI_CCFLAGS"
    # shellcheck disable=SC2086
    in_log "$dir" make -C "$dir/src/test" test3d $make_flags CCFLAGS="$FFTMPI_CCFLAGS"
    ln -s ../src/test/test3d "$dir/bin/"
    finish fftmpi "$dir" "$key" "fftMPI of $version from $identity"
}

# build_pfft NAME FFTW_PREFIX
build_pfft() {
    name=$1 fftw=$2
    dir="$PEERS_DIR/$name"
    [ -f "$fftw/include/fftw3-mpi.h" ] ||
        die "$name: no FFTW with MPI at $fftw (PFFT_FFTW; for the default, run scripts/build.sh $MPI)"
    identity=$(source_identity PFFT_SRC "$PFFT_SRC" "$PFFT_REV")
    # /usr is found without flags; any other FFTW by its run path
    if [ "$fftw" = /usr ]; then fftw_ldflags=""; else fftw_ldflags="-Wl,-rpath,$fftw/lib"; fi
    tests="time_c2c time_c2c_transposed bench_c2c simple_check_c2c_inplace
        simple_check_c2c_transposed_inplace"
    key="pfft from $identity
mpi $MPI
fftw $fftw
CFLAGS=$PFFT_CFLAGS LDFLAGS=$fftw_ldflags"
    # shellcheck disable=SC2086 # the tests are words
    if up_to_date "$dir" "$key" $tests; then
        report "$name" "$dir"
    else
        echo "$name: building from $identity, over the FFTW in $fftw"
        begin "$dir"
        fetch_source PFFT_SRC "$PFFT_SRC" "$PFFT_REV" "$dir/src"
        version=$(sed -n 's/^AC_INIT(\[PFFT\],\[\([^]]*\)\].*/\1/p' "$dir/src/configure.ac")
        # keep our CFLAGS with autoconf >= 2.70 (see the top)
        sed -i 's/"x\$ac_test_CFLAGS" != "xset"/-z "$ac_test_CFLAGS"/' "$dir/src/configure.ac"
        sed -i 's/"\$ac_test_CFLAGS" != "set"/-z "$ac_test_CFLAGS"/' "$dir/src/m4/ax_cc_maxopt.m4"
        touch "$dir/src/ChangeLog" # automake wants it; bootstrap.sh makes it
        (cd "$dir/src" && in_log "$dir" autoreconf -fi)
        mkdir -p "$dir/build"
        (cd "$dir/build" && in_log "$dir" ../src/configure --prefix="$dir/install" \
            --with-fftw3="$fftw" --disable-fortran --disable-shared \
            CC="$MPICC" CFLAGS="$PFFT_CFLAGS" LDFLAGS="$fftw_ldflags")
        ! grep -E '^CFLAGS = .*(-ffast-math|-march=native)' "$dir/build/Makefile" >&2 ||
            die "$name: PFFT's configure still sets its own CFLAGS (the sed above no longer matches?)"
        in_log "$dir" make -C "$dir/build" -j "$JOBS"
        in_log "$dir" make -C "$dir/build" install
        # shellcheck disable=SC2086
        in_log "$dir" make -C "$dir/build/tests" -j "$JOBS" $tests
        for test in $tests; do
            ln -s "../build/tests/$test" "$dir/bin/"
        done
        echo "$version" >"$dir/version"
        finish "$name" "$dir" "$key" "PFFT $version from $identity, over the FFTW in $fftw"
    fi
    driver="$dir/bin/pfft_fft3d"
    if stale "$driver" "$here/pfft_fft3d.c" "$here/fft3d_common.h" "$dir/stamp"; then
        echo "$name: compiling pfft_fft3d"
        if [ "$fftw" = /usr ]; then fftw_flags=""; else fftw_flags="-I$fftw/include -L$fftw/lib"; fi
        # shellcheck disable=SC2086 # the flags are words
        $MPICC $DRIVER_FLAGS -DPFFT_SOURCE_VERSION="\"$(cat "$dir/version")\"" \
            -I"$dir/install/include" $fftw_flags "$here/pfft_fft3d.c" \
            "$(proc_memory_object "$dir")" -L"$dir/install/lib" -lpfft \
            $fftw_ldflags -lfftw3_mpi -lfftw3 -lm -o "$driver"
    fi
}

# ---- Main ----

peers=${*:-heffte fftmpi pfft}
for peer in $peers; do
    case "$peer" in
    heffte | fftmpi | pfft) ;;
    *) echo "usage: build.sh [heffte|fftmpi|pfft ...]" >&2; exit 2 ;;
    esac
done
"$top/scripts/install-deps.sh" >/dev/null # cmake and g++ among them
mkdir -p "$PEERS_DIR"
echo "build.sh: $MPI ($MPICC, $MPICXX), cache $PEERS_DIR"
for peer in $peers; do
    case "$peer" in
    heffte) build_heffte ;;
    fftmpi) build_fftmpi ;;
    pfft)
        build_pfft pfft "$PFFT_FFTW"
        if [ "$MPI" = openmpi ] && [ "$PFFT_FFTW" != /usr ] && [ "${PFFT_DEBIAN:-yes}" = yes ]; then
            build_pfft pfft-debian /usr
        fi
        ;;
    esac
done
