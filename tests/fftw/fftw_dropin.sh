#!/bin/sh
# fftw_dropin.sh - the patched FFTW as a drop-in for programs built against
# Debian's FFTW-MPI: same SONAME (libfftw3_mpi.so.3) and ABI, so
# LD_LIBRARY_PATH alone swaps the library, and FFTW_MPI_INPLACE_ALGORITHM
# makes it use our transposes without recompiling.
#
# tests/fftw/fftw_dropin.c, which uses only the public API, is compiled here with
# the build's mpicc against Debian's libfftw3-mpi-dev and libfftw3-dev alone:
# the headers and libraries the compiler and linker actually opened are
# checked to be Debian's, and the program must need libfftw3_mpi.so.3.
# Then, on 2 ranks (16x12 transposes divide: hsa) and 3 (uneven: general),
# with FFTW_MPI_INPLACE_ALGORITHM set in every run so that only the library
# differs:
#
# - Debian's libraries (no LD_LIBRARY_PATH): ldd resolves libfftw3_mpi.so.3
#   to Debian's, and the printed plans have only FFTW's own transposes;
# - ours (LD_LIBRARY_PATH=$FFTW_STAGE/lib): ldd resolves to the stage, the
#   plans have only ours (hsa forced: mpi-transpose-inplace/hsa on 2 ranks,
#   mpi-transpose-inplace/general on 3; auto on 2 ranks: ours too);
#
# and every run's forward coefficients, printed with %.17g, must be
# byte-identical to Debian's: the transposes only move data, and ours is
# built from Debian's source with its SIMD flags (both report
# fftw-3.3.10-sse2-avx), so the same codelets do the same arithmetic.  Each
# run also loads libfftw3_mpi from where ldd said, and checks its round trip.
#
# SKIP (77) where Debian's libfftw3-mpi-dev or libfftw3-dev is missing (its
# fftw3-mpi.h includes fftw3.h, which only libfftw3-dev has), or where the
# build's MPI is not the one Debian's libfftw3_mpi.so.3 links (Open MPI's
# libmpi.so.40): a program of MPICH with Debian's FFTW-MPI mixes two MPIs
# and aborts in FFTW's first MPI call.
#
# Environment (from make check): MPIRUN, MPICC, FFTW_STAGE (else the
# directory above MPIBENCH's), MPI_FLAVOR.
set -u
SKIP=77
skip() { echo "SKIP: $*"; exit $SKIP; }
fail() { echo "FAIL: $*"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
source_file=$here/fftw_dropin.c
stage=${FFTW_STAGE:-$(dirname "$(dirname "${MPIBENCH:?no FFTW_STAGE nor MPIBENCH}")")}
ours=$stage/lib
case "${MPI_FLAVOR:-}" in
openmpi | mpich) default_cc=mpicc.$MPI_FLAVOR ;;
*) default_cc=mpicc ;;
esac
cc=${MPICC:-$default_cc}

# Debian's files, from the packages' own lists.
command -v dpkg-query > /dev/null || skip "no dpkg-query: not a Debian system"
package_file() { dpkg-query -L "$1" 2> /dev/null | grep "$2" | head -n 1; }
mpi_header=$(package_file libfftw3-mpi-dev '/fftw3-mpi\.h$')
mpi_devlib=$(package_file libfftw3-mpi-dev '/libfftw3_mpi\.so$')
fftw_header=$(package_file libfftw3-dev '/fftw3\.h$')
fftw_devlib=$(package_file libfftw3-dev '/libfftw3\.so$')
if [ -z "$mpi_header" ] || [ -z "$mpi_devlib" ]; then
    skip "Debian's libfftw3-mpi-dev is not installed (scripts/install-deps.sh)"
fi
if [ -z "$fftw_header" ] || [ -z "$fftw_devlib" ]; then
    skip "Debian's libfftw3-dev (fftw3.h, libfftw3.so) is not installed (scripts/install-deps.sh)"
fi
debian=$(dirname "$mpi_devlib")
[ -e "$debian/libfftw3_mpi.so.3" ] || skip "no $debian/libfftw3_mpi.so.3 (libfftw3-mpi3)"
[ -e "$ours/libfftw3_mpi.so.3" ] || fail "no patched FFTW at $ours"

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1

# Compile and link with nothing of ours in reach: no search-path variables,
# Debian's directories only; -M lists the headers the compiler read, -t the
# files the linker opened.
(
    unset CPATH C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH LD_RUN_PATH
    "$cc" -std=c99 -O2 -M "$source_file" > headers.txt &&
        "$cc" -std=c99 -O2 -o fftw_dropin "$source_file" -L"$debian" \
            -Wl,-t -lfftw3_mpi -lfftw3 -lm > link.txt 2>&1
) || { cat link.txt 2> /dev/null; fail "$cc could not compile $source_file against Debian's FFTW-MPI"; }
for file in "$mpi_header" "$fftw_header"; do
    grep -qF " $file" headers.txt || { cat headers.txt; fail "the compiler did not read $file"; }
done
grep -E 'fftw3(-mpi)?\.h' headers.txt | tr ' ' '\n' | grep -E 'fftw3(-mpi)?\.h' |
    grep -vxF -e "$mpi_header" -e "$fftw_header" &&
    { cat headers.txt; fail "the compiler read FFTW headers other than Debian's"; }
opened=$(grep -E 'libfftw3(_mpi)?\.so' link.txt)
for library in libfftw3_mpi.so libfftw3.so; do
    echo "$opened" | grep -q "^$debian/$library\$" ||
        { cat link.txt; fail "the linker did not take $debian/$library"; }
done
echo "$opened" | grep -v "^$debian/" &&
    { cat link.txt; fail "the linker opened FFTW libraries outside $debian"; }
echo "ok   compiled with $cc against $mpi_header and $debian/libfftw3_mpi.so"

# needed FILE: the shared libraries FILE needs, one a line.
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
needed fftw_dropin | grep -qx libfftw3_mpi.so.3 ||
    { readelf -d fftw_dropin; fail "fftw_dropin does not need libfftw3_mpi.so.3"; }
debian_mpi=$(needed "$debian/libfftw3_mpi.so.3" | grep -E '^lib(mpi|mpich)[._]')
build_mpi=$(needed fftw_dropin | grep -E '^lib(mpi|mpich)[._]')
if [ -z "$debian_mpi" ] || [ "$debian_mpi" != "$build_mpi" ]; then
    skip "Debian's libfftw3_mpi.so.3 is built for ${debian_mpi:-another MPI}, this build's MPI" \
        "(${MPI_FLAVOR:-?}) links ${build_mpi:-no known MPI library}: the two cannot mix"
fi

# with_library_path PATH COMMAND...: COMMAND with LD_LIBRARY_PATH=PATH, or
# without LD_LIBRARY_PATH where PATH is empty (Debian's libraries).
with_library_path() {
    (
        unset LD_LIBRARY_PATH
        [ -n "$1" ] && { LD_LIBRARY_PATH=$1; export LD_LIBRARY_PATH; }
        shift
        "$@"
    )
}

# physical_dir FILE: the directory of FILE with every link resolved (/lib is
# /usr/lib on merged-/usr systems).
physical_dir() { (cd "$(dirname "$1")" 2> /dev/null && pwd -P); }
debian_dir=$(physical_dir "$debian/libfftw3_mpi.so.3")
ours_dir=$(physical_dir "$ours/libfftw3_mpi.so.3")

# resolves DIR PATH: with_library_path PATH, ldd finds libfftw3_mpi.so.3 in DIR.
resolves() {
    found=$(with_library_path "$2" ldd ./fftw_dropin |
            sed -n 's/^[[:space:]]*libfftw3_mpi\.so\.3 => \([^ ]*\) .*/\1/p')
    if [ -z "$found" ] || [ "$(physical_dir "$found")" != "$1" ]; then
        fail "libfftw3_mpi.so.3 resolves to '$found', not to $1${2:+ with LD_LIBRARY_PATH=$2}"
    fi
}
resolves "$debian_dir" ""
resolves "$ours_dir" "$ours"
echo "ok   ldd: Debian's library by default, ours with LD_LIBRARY_PATH=$ours"

# run NAME NP ALGORITHM LIBRARY-PATH WANT: fftw_dropin on NP ranks, with
# FFTW_MPI_INPLACE_ALGORITHM=ALGORITHM and LD_LIBRARY_PATH=LIBRARY-PATH (if
# empty, none: Debian's libraries).  It must have loaded libfftw3_mpi from
# there, its plans' transposes must all match WANT (a regular expression),
# and its round trip must be right; its coefficients are left in NAME.coef.
failures=0
run() {
    name=$1 np=$2 algorithm=$3 path=$4 want=$5
    # shellcheck disable=SC2086 # MPIRUN as the other tests use it
    with_library_path "$path" env FFTW_MPI_INPLACE_ALGORITHM="$algorithm" \
        $MPIRUN "$np" ./fftw_dropin > "$name.out" 2>&1
    status=$?
    expected_dir=$debian_dir
    [ -n "$path" ] && expected_dir=$ours_dir
    loaded=$(sed -n 's/^library //p' "$name.out")
    grep '^coef ' "$name.out" > "$name.coef"
    got=$(grep -o 'mpi-transpose-[a-z/]*' "$name.out" | sort -u | tr '\n' ' ')
    if [ "$status" -ne 0 ] || [ -z "$loaded" ] ||
       [ "$(physical_dir "$loaded")" != "$expected_dir" ] ||
       [ "$(wc -l < "$name.coef")" -ne 1152 ] || ! grep -q '^roundtrip error' "$name.out" ||
       [ -z "$got" ] || grep -o 'mpi-transpose-[a-z/]*' "$name.out" | grep -qvxE "$want"; then
        echo "FAIL $name: expected $expected_dir/libfftw3_mpi.so.3 and transposes '$want';" \
            "got ${loaded:-no library}, '$got' (exit $status)"
        grep -v '^coef ' "$name.out"
        failures=$((failures + 1))
        return 1
    fi
    echo "ok   $name: $loaded, $got($(grep '^roundtrip error' "$name.out"))"
}

# same NAME REFERENCE: NAME's coefficients are REFERENCE's, byte for byte.
same() {
    if cmp -s "$2.coef" "$1.coef"; then
        echo "ok   $1: coefficients identical to $2's"
    else
        echo "FAIL $1: coefficients differ from $2's; the largest difference:"
        paste -d ' ' "$2.coef" "$1.coef" | awk '
            { for (f = 5; f <= 6; f++) { d = $f - $(f + 6); if (d < 0) d = -d; if (d > m) m = d } }
            END { printf "  %.3g\n", m }'
        failures=$((failures + 1))
    fi
}

theirs='mpi-transpose-(pairwise|recurse|alltoall)'
for np in 2 3; do
    forced=hsa
    [ "$np" -eq 3 ] && forced=general # 16 rows do not divide by 3: hsa cannot apply
    run "Debian np=$np" "$np" hsa "" "$theirs" || continue
    run "ours np=$np hsa" "$np" hsa "$ours" "mpi-transpose-inplace/$forced" &&
        same "ours np=$np hsa" "Debian np=$np"
done
run "ours np=2 auto" 2 auto "$ours" 'mpi-transpose-inplace/[a-z]+' &&
    same "ours np=2 auto" "Debian np=2"

[ "$failures" -eq 0 ] || { echo "$failures cases failed"; exit 1; }
echo "the patched FFTW is a drop-in for Debian's"
