#!/bin/sh
# The PMPI layer passes third-party conformance tests unmodified: MPICH's
# own tests of MPI_Alltoall/v/w (test/mpi of MPICH's source, fetched from
# Debian's source package at test time and kept in $AIP_CACHE), built with
# MPICH's harness against the MPI under test, each run on MPI alone and with
# the layer preloaded (AIP_DEBUG=1).  Both runs must print MPICH's " No
# Errors"; in those that call MPI_IN_PLACE, rank 0's debug lines must show
# that ours ran (on 2 ranks or more: those tests take communicators of two
# or more ranks, except alltoallw_zeros and vw_inplacef, which use
# MPI_COMM_WORLD on any count).  Skipped (77) where the source cannot be had:
# no apt, no deb-src entry and no way to derive one, no network.
#
# The tests: every test of test/mpi that calls blocking MPI_Alltoall/v/w,
# and the nonblocking and persistent ones that call MPI_Ialltoall/v/w and
# MPI_Alltoall_init/v/w.
#   in place (ours runs): coll/alltoall1, alltoallv, alltoallw2,
#     alltoallw_zeros; coll/nonblocking (MPI_Ialltoall in place: ours; its
#     MPI_Ialltoallv/w and the out-of-place calls are MPI's, whose requests
#     then pass through the layer's MPI_Wait); f77/coll/vw_inplacef
#     (Fortran mpif.h: Alltoall, v, w);
#     f90/coll/vw_inplacef90 (use mpi) under MPICH only: Open MPI's mpi
#     module has no specific interface for MPI_IN_PLACE there, so it does
#     not compile against Open MPI.
#   passed to MPI (out of place, intercommunicators): coll/alltoallv0,
#     alltoallw1, coll13, icalltoall, icalltoallv, icalltoallw;
#     f77/coll/alltoallvf, alltoallwf, split_typef; errors/coll/noalias2
#     (aliased send and receive buffers must be an error) under MPICH only:
#     Open MPI does not check aliasing and the test hangs on MPI alone;
#     under MPICH only, coll/nonblocking2 and nonblocking3 (every nonblocking
#     collective among others: they crash on Open MPI 4.1 alone) and
#     coll/p_alltoall, p_alltoallv, p_alltoallw (persistent, out of place:
#     Open MPI 4.1 names them MPIX_Alltoall_init and they do not compile
#     there).  None calls MPI_Alltoall_init in place: pmpi_persistent_test
#     (pmpi.sh) does.
# Left out: the neighborhood variants and the large-count coll_large
# (MPI_Alltoallv_c), which the layer does not intercept;
# errors/coll/alltoalllength, an expected failure upstream (xfail=ticket3655);
# noalias3 (MPI_Ialltoall aliasing, as noalias2).
#
# Ranks: the in-place tests on 1 2 3 4, the others on 4
# ($PMPI_CONFORMANCE_RANKS and $PMPI_CONFORMANCE_OTHER_RANKS replace them),
# but nonblocking3 on 2: its 100000 random steps take 6 s on 2 ranks and
# over 50 s on 3 or 4 oversubscribed ranks here, MPI alone as preloaded.
# MPICH's test harness (util/mtest.c) is compiled with a minimal
# mpitestconf.h written here instead of running test/mpi's configure.
#
# Environment (from make check): MPIRUN, MPI_FLAVOR, AIP_LIBDIR, MPIFC,
# AIP_CACHE (default: $TESTBIN/../test-cache), MPICC (default:
# mpicc.$MPI_FLAVOR).
set -u
name=pmpi_conformance.sh
top=$(cd "$(dirname "$0")/../.." && pwd)
layer="$AIP_LIBDIR/liballtoall_inplace_pmpi.so"
[ -f "$layer" ] || { echo "no $layer"; exit 1; }
preload="env LD_PRELOAD=$layer LD_LIBRARY_PATH=$AIP_LIBDIR"
cache=${AIP_CACHE:-$TESTBIN/../test-cache}/mpich-test-src
mpicc=${MPICC:-mpicc.$MPI_FLAVOR}
mpifc=${MPIFC:-mpif90.$MPI_FLAVOR}
ranks=${PMPI_CONFORMANCE_RANKS:-1 2 3 4}
other_ranks=${PMPI_CONFORMANCE_OTHER_RANKS:-4}
unset AIP_PMPI_IN_PLACE AIP_PMPI_OUT_OF_PLACE # the layer's defaults
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

skip() { echo "$name: SKIP: $*" >&2; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# ---- MPICH's test/mpi, from Debian's source package, once -------------------
# $cache/<package>_<version>/test/mpi; Debian's patches do not touch test/mpi
# (checked below: if some day one does, the whole source is unpacked with
# dpkg-source, which applies them).
find_src() {
    for d in "$cache"/*/test/mpi; do
        [ -f "$d/coll/alltoall1.c" ] && src=$d
    done
    [ -n "${src:-}" ]
}

fetch_src() {
    command -v apt-get >/dev/null 2>&1 && command -v apt-cache >/dev/null 2>&1 ||
        skip "no apt-get: MPICH's source comes from Debian's source package"
    if ! apt-cache showsrc mpich 2>/dev/null | grep -q '^Package: mpich$'; then
        [ "$(id -u)" -eq 0 ] || sudo -n true 2>/dev/null ||
            skip "apt has no deb-src entry for mpich and deriving one needs root or sudo"
        "$top/scripts/deb-src.sh" mpich >"$tmp/deb-src.log" 2>&1 || {
            cat "$tmp/deb-src.log"
            skip "no source of mpich for apt (no deb-src entry could be derived)"
        }
    fi
    mkdir -p "$cache" || fail "cannot create $cache"
    cache=$(cd "$cache" && pwd)
    dl=$(mktemp -d "$cache/.download.XXXXXX")
    echo "== fetching MPICH's source into $cache"
    (cd "$dl" && apt-get source --download-only mpich) >"$tmp/fetch.log" 2>&1 || {
        cat "$tmp/fetch.log"
        rm -rf "$dl"
        skip "apt-get source --download-only mpich failed (network?)"
    }
    dsc=$(ls "$dl"/mpich_*.dsc | head -1)
    base=$(basename "$dsc" .dsc)
    (
        cd "$dl" || exit 1
        mkdir x && cd x || exit 1
        tar -xf ../"${base}".debian.tar.* debian/patches 2>/dev/null || true
        if grep -qs '^+++ [^ ]*test/mpi/' debian/patches/*; then
            echo "Debian patches test/mpi: unpacking the whole source with dpkg-source"
            command -v dpkg-source >/dev/null 2>&1 || { echo "no dpkg-source (dpkg-dev)"; exit 1; }
            dpkg-source -x "$dsc" full >/dev/null && mkdir -p "$base/test" &&
                mv full/test/mpi "$base/test/"
        else
            mkdir -p "$base/test" && orig=$(ls ../mpich_*.orig.tar.* | head -1) &&
                tar -xf "$orig" --wildcards '*/test/mpi/*' &&
                mv ./mpich-*/test/mpi "$base/test/"
        fi
    ) >"$tmp/unpack.log" 2>&1 || { cat "$tmp/unpack.log"; rm -rf "$dl"; fail "unpacking $dsc"; }
    # Another run may have won the race: keep the first.
    mv -T "$dl/x/$base" "$cache/$base" 2>/dev/null || true
    rm -rf "$dl"
}

src=""
find_src || { fetch_src; find_src || fail "no MPICH test/mpi in $cache"; }
echo "== MPICH's tests from $src"

# ---- Build them with MPICH's harness, against the MPI under test ---------------
in_place_c="alltoall1 alltoallv alltoallw2 alltoallw_zeros"
other_c="coll/alltoallv0 coll/alltoallw1 coll/coll13 coll/icalltoall coll/icalltoallv coll/icalltoallw
  coll/nonblocking"
in_place_f="f77/coll/vw_inplacef"
other_f="f77/coll/alltoallvf f77/coll/alltoallwf f77/coll/split_typef"
case "$MPI_FLAVOR" in
mpich)
    in_place_f="$in_place_f f90/coll/vw_inplacef90"
    other_c="$other_c errors/coll/noalias2 coll/nonblocking2 coll/nonblocking3 coll/p_alltoall
      coll/p_alltoallv coll/p_alltoallw" ;;
esac

command -v "$mpicc" >/dev/null 2>&1 || fail "no MPI C compiler '$mpicc'"
b=$tmp/build
mkdir -p "$b"
cat >"$b/mpitestconf.h" <<'EOF'
/* Written by pmpi_conformance.sh for MPICH's test harness (Linux, glibc). */
#define HAVE_STDARG_H 1
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDINT_H 1
#define HAVE_INTTYPES_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_USLEEP 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
EOF
cflags="-O1 -w -I$b -I$src/include -I$src/dtpools/include"
build() { # build OUTPUT COMPILER ARGS...: quiet unless it fails
    out=$1
    shift
    "$@" >"$tmp/cc.log" 2>&1 || { cat "$tmp/cc.log"; fail "building $out"; }
}
for u in mtest mtest_common mtest_single; do
    build "$u.o" "$mpicc" $cflags -c -o "$b/$u.o" "$src/util/$u.c"
done
harness="$b/mtest.o $b/mtest_common.o $b/mtest_single.o"
tests_in_place="" tests_other=""
for t in $in_place_c; do
    build "$t" "$mpicc" $cflags -o "$b/$t" "$src/coll/$t.c" $harness
    tests_in_place="$tests_in_place $t"
done
for t in $other_c; do
    build "${t##*/}" "$mpicc" $cflags -o "$b/${t##*/}" "$src/$t.c" $harness
    tests_other="$tests_other ${t##*/}"
done
if command -v "$mpifc" >/dev/null 2>&1; then
    build mtest_f77.o "$mpifc" -O1 -w -c -o "$b/mtest_f77.o" "$src/util/mtest_f77.f"
    build mtest_f90.o "$mpifc" -O1 -w -J "$b" -c -o "$b/mtest_f90.o" "$src/util/mtest_f90.f90"
    for t in $in_place_f $other_f; do
        case $t in
        *f90) build "${t##*/}" "$mpifc" -O1 -w -o "$b/${t##*/}" "$src/$t.f90" "$b/mtest_f90.o" ;;
        *) build "${t##*/}" "$mpifc" -O1 -w -o "$b/${t##*/}" "$src/$t.f" "$b/mtest_f77.o" ;;
        esac
    done
    for t in $in_place_f; do tests_in_place="$tests_in_place ${t##*/}"; done
    for t in $other_f; do tests_other="$tests_other ${t##*/}"; done
else
    echo "== no Fortran MPI compiler '$mpifc': the Fortran tests are left out"
fi

# ---- Run: MPI alone, then preloaded ----------------------------------------------
failed=""
# check TEST NP MODE: MODE alone (MPI alone), ours (preloaded: ours must
# run), layer (preloaded: ours may run), mpi (preloaded: ours must not run).
# A case that fails runs once more: CI saw one failure under MPICH
# (alltoallw_zeros, 2 ranks, preloaded) that 360 runs here, beside busy
# loops, did not reproduce.  A case that
# passes on its second run still counts as passed, and the final line names
# it with its first failure; a case that fails twice fails the test, and
# both runs' output is shown.
check() {
    run_case "$@" && return 0
    first_why=$why
    echo "  $1, $2 ranks, $3: once more"
    if run_case "$@"; then
        second_runs="$second_runs $1/$2/$3 (first: $first_why)"
        return 0
    fi
    failed="$failed $1/$2/$3 ($first_why; then $why)"
}

second_runs=""
run_case() {
    t=$1 np=$2 mode=$3 started=$(date +%s)
    case $mode in
    alone) "$MPIRUN" "$np" "$b/$t" >"$tmp/out" 2>&1 ;;
    *) AIP_DEBUG=1 "$MPIRUN" "$np" $preload "$b/$t" >"$tmp/out" 2>&1 ;;
    esac
    rc=$?
    ours=$(grep -c '^alltoall_inplace: MPI_I*[Aa]lltoall[vw]* on [0-9]* ranks' "$tmp/out")
    if [ "$rc" -ne 0 ] || ! grep -q '^ *No Errors *$' "$tmp/out"; then
        why="exit $rc, no \"No Errors\""
    elif [ "$mode" = ours ] && [ "$ours" -eq 0 ]; then
        why="no run of ours"
    elif [ "$mode" = mpi ] && [ "$ours" -ne 0 ]; then
        why="$ours runs of ours, none expected"
    else
        took="$(($(date +%s) - started)) s"
        case $mode in
        alone) echo "  $t, $np ranks, MPI alone: ok ($took)" ;;
        *) echo "  $t, $np ranks, layer: ok, $ours runs of ours ($took)" ;;
        esac
        return 0
    fi
    echo "  $t, $np ranks, $mode: FAIL ($why):"
    grep -v '^alltoall_inplace: ' "$tmp/out" | head -20 | sed 's/^/    /'
    return 1
}

echo "== in place: MPI alone, then the layer preloaded (AIP_DEBUG=1)"
for t in $tests_in_place; do
    for np in $ranks; do
        check "$t" "$np" alone
        case "$t:$np" in
        *:1) case $t in alltoallw_zeros | vw_inplacef*) mode=ours ;; *) mode=layer ;; esac ;;
        *) mode=ours ;;
        esac
        check "$t" "$np" "$mode"
    done
done
echo "== passed to MPI (but coll/nonblocking's in-place MPI_Ialltoall): MPI alone, then the layer preloaded"
for t in $tests_other; do
    nps=$other_ranks
    [ "$t" != nonblocking3 ] || nps=2
    for np in $nps; do
        check "$t" "$np" alone
        case $t in nonblocking) check "$t" "$np" ours ;; *) check "$t" "$np" mpi ;; esac
    done
done

[ -z "$second_runs" ] || echo "$name: passed on a second run:$second_runs"
[ -z "$failed" ] || fail "MPICH's tests failed:$failed"
echo "$name: all passed"
