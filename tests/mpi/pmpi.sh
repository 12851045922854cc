#!/bin/sh
# The PMPI layer (liballtoall_inplace_pmpi): plain MPI programs, C and
# Fortran, get our in-place MPI_Alltoall/v/w by LD_PRELOAD or by linking.
#   1. pmpi_test on MPI alone: the test itself is right about MPI;
#   2. preloaded, on 1..5 ranks: the same results, and AIP_DEBUG shows that
#      ours ran each in-place call and MPI's own the gapped datatypes;
#      errors the layer defines; out-of-place calls with
#      AIP_PMPI_OUT_OF_PLACE=1; AIP_PMPI_IN_PLACE=0 passes everything on;
#      a bad setting is an error, and so is one that is bad or different on
#      one rank: the same class on every rank;
#   3. pmpi_linked_test: the layer linked before MPI, no preload;
#   4. memory: a 256 MiB in-place MPI_Alltoall on 2 ranks, and the same as a
#      persistent MPI_Alltoall_init, grow VmHWM by at most the budget (1 MiB)
#      + 4 MiB under the layer, by at least half a block (64 MiB) on MPI alone;
#   5. persistent requests (pmpi_persistent_test): MPI_Alltoall_init, _v and
#      _w in place, completed by each of MPI's request functions among MPI's
#      own requests, on MPI alone and then preloaded on 1..5 ranks, where
#      ours must run each in-place init and MPI's own the gapped one;
#      nonblocking ones (pmpi_ialltoall_test): in-place MPI_Ialltoall the
#      same way, where ours must run and the layer's messages the gapped
#      one, and with AIP_PMPI_IN_PLACE=0 never ours; its memory as in 4;
#   6. Fortran callers, mpif.h and `use mpi`, with the MPI's mpif90 ($MPIFC):
#      ours must run both in-place MPI_ALLTOALLW, the one over MPI_BOTTOM too,
#      and under MPICH an in-place MPI_ALLTOALL_INIT.
set -eu
srcdir=$(cd "$(dirname "$0")" && pwd) # before any cd: $0 may be relative
layer="$AIP_LIBDIR/liballtoall_inplace_pmpi.so"
[ -f "$layer" ] || { echo "no $layer"; exit 1; }
preload="env LD_PRELOAD=$layer LD_LIBRARY_PATH=$AIP_LIBDIR"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export AIP_AUX_BYTES=4K # blocks of the larger cases are cut into chunks

fail() { echo "FAIL: $*"; exit 1; }

# The debug lines of rank 0 in file $1 must name each of the calls after it.
ran_ours() {
    file=$1
    shift
    for call in "$@"; do
        grep -q "^alltoall_inplace: $call on [0-9]* ranks" "$file" ||
            { cat "$file"; fail "no run of ours for $call"; }
    done
}

echo "== pmpi_test on MPI alone"
"$MPIRUN" 4 "$TESTBIN/mpi/pmpi_test" --out-of-place

for np in 1 2 3 5; do
    echo "== pmpi_test, layer preloaded, $np ranks"
    AIP_DEBUG=1 "$MPIRUN" "$np" $preload "$TESTBIN/mpi/pmpi_test" --layer 2>"$tmp/err"
    ran_ours "$tmp/err" MPI_Alltoall MPI_Alltoallv MPI_Alltoallw
    grep -q "MPI_Alltoall: MPI's own (a datatype" "$tmp/err" &&
        grep -q "MPI_Alltoallv: MPI's own (a datatype" "$tmp/err" ||
        { cat "$tmp/err"; fail "gapped datatypes did not go to MPI's own"; }
done

echo "== out of place too (AIP_PMPI_OUT_OF_PLACE=1)"
AIP_DEBUG=1 AIP_PMPI_OUT_OF_PLACE=1 "$MPIRUN" 4 $preload "$TESTBIN/mpi/pmpi_test" --layer \
    --out-of-place 2>"$tmp/err"
n=$(grep -c "^alltoall_inplace: MPI_Alltoall on" "$tmp/err")
[ "$n" -ge 12 ] || { cat "$tmp/err"; fail "$n runs of ours; 4 in-place counts, 4 out of place and more expected"; }

echo "== AIP_PMPI_IN_PLACE=0: every call is MPI's"
AIP_DEBUG=1 AIP_PMPI_IN_PLACE=0 "$MPIRUN" 3 $preload "$TESTBIN/mpi/pmpi_test" 2>"$tmp/err"
if grep -q "^alltoall_inplace: MPI_Alltoall" "$tmp/err"; then
    cat "$tmp/err"
    fail "ours ran with AIP_PMPI_IN_PLACE=0"
fi

echo "== AIP_PMPI_IN_PLACE=yes: an error, said so"
if AIP_PMPI_IN_PLACE=yes "$MPIRUN" 2 $preload "$TESTBIN/mpi/pmpi_test" >"$tmp/out" 2>&1; then
    fail "a bad AIP_PMPI_IN_PLACE was accepted"
fi
grep -q "AIP_PMPI_IN_PLACE=yes: must be 0 or 1" "$tmp/out" || { cat "$tmp/out"; fail "no message"; }

# on_rank_1 VAR=VALUE PROGRAM ARGS...: PROGRAM with VAR=VALUE on world rank 1 alone
# (Open MPI's and MPICH's rank variables)
cat >"$tmp/on_rank_1" <<'EOF'
#!/bin/sh
assignment=$1
shift
if [ "${OMPI_COMM_WORLD_RANK:-${PMI_RANK:-}}" = 1 ]; then export "$assignment"; fi
exec "$@"
EOF
chmod +x "$tmp/on_rank_1"
# A variable bad on one rank, or 0 on one rank and 1 on the others: MPI_ERR_ARG on
# every rank for the calls it governs (a hang fails through the time limit)
for setting in AIP_PMPI_IN_PLACE=yes AIP_PMPI_IN_PLACE=0 AIP_PMPI_OUT_OF_PLACE=2 \
    AIP_PMPI_OUT_OF_PLACE=1; do
    echo "== $setting on rank 1 alone: the same error on every rank"
    which=in-place
    case $setting in AIP_PMPI_OUT_OF_PLACE=*) which=out-of-place ;; esac
    AIP_TEST_TIMEOUT=60 "$MPIRUN" 3 "$tmp/on_rank_1" "$setting" $preload "$TESTBIN/mpi/pmpi_test" \
        --bad-setting $which >"$tmp/out" 2>&1 || { cat "$tmp/out"; fail "$setting on rank 1"; }
    case $setting in
    *=yes | *=2) message="${setting}: must be 0 or 1" ;;
    *) message="the ranks gave different ${setting%=*}" ;;
    esac
    grep -q "$message" "$tmp/out" || { cat "$tmp/out"; fail "no message for $setting on rank 1"; }
done

echo "== pmpi_linked_test: linked before MPI"
AIP_DEBUG=1 "$MPIRUN" 3 "$TESTBIN/mpi/pmpi_linked_test" --layer 2>"$tmp/err"
ran_ours "$tmp/err" MPI_Alltoall MPI_Alltoallv MPI_Alltoallw

echo "== memory of a 256 MiB in-place MPI_Alltoall on 2 ranks"
AIP_AUX_BYTES=1M "$MPIRUN" 2 $preload "$TESTBIN/mpi/pmpi_memory_test" 256 --at-most 5
"$MPIRUN" 2 "$TESTBIN/mpi/pmpi_memory_test" 256 --at-least 64
echo "== the same as a persistent MPI_Alltoall_init, MPI_Start, MPI_Wait"
AIP_AUX_BYTES=1M "$MPIRUN" 2 $preload "$TESTBIN/mpi/pmpi_memory_test" 256 --persistent --at-most 5
"$MPIRUN" 2 "$TESTBIN/mpi/pmpi_memory_test" 256 --persistent --at-least 64

echo "== pmpi_persistent_test on MPI alone"
"$MPIRUN" 3 "$TESTBIN/mpi/pmpi_persistent_test"
for np in 1 2 3 5; do
    echo "== pmpi_persistent_test, layer preloaded, $np ranks"
    AIP_DEBUG=1 "$MPIRUN" "$np" $preload "$TESTBIN/mpi/pmpi_persistent_test" --layer \
        2>"$tmp/err"
    # MPIX_ on Open MPI 4.1
    ran_ours "$tmp/err" "MPIX*_Alltoall_init" "MPIX*_Alltoallv_init" "MPIX*_Alltoallw_init"
    grep -q "MPIX*_Alltoall_init: MPI's own (a datatype" "$tmp/err" ||
        { cat "$tmp/err"; fail "the gapped datatype did not go to MPI's own init"; }
done

echo "== pmpi_ialltoall_test on MPI alone"
"$MPIRUN" 3 "$TESTBIN/mpi/pmpi_ialltoall_test"
for np in 1 2 3 5; do
    echo "== pmpi_ialltoall_test, layer preloaded, $np ranks"
    AIP_DEBUG=1 "$MPIRUN" "$np" $preload "$TESTBIN/mpi/pmpi_ialltoall_test" --layer 2>"$tmp/err"
    ran_ours "$tmp/err" MPI_Ialltoall
    grep -q "MPI_Ialltoall: MPI's semantics, by the layer's messages" "$tmp/err" ||
        { cat "$tmp/err"; fail "the gapped datatype did not run MPI's semantics"; }
done
echo "== pmpi_ialltoall_test, AIP_PMPI_IN_PLACE=0: never ours"
AIP_DEBUG=1 AIP_PMPI_IN_PLACE=0 "$MPIRUN" 3 $preload "$TESTBIN/mpi/pmpi_ialltoall_test" --layer \
    2>"$tmp/err"
if grep -q "^alltoall_inplace: MPI_Ialltoall on [0-9]* ranks" "$tmp/err"; then
    cat "$tmp/err"
    fail "ours ran with AIP_PMPI_IN_PLACE=0"
fi
echo "== memory of a 256 MiB in-place MPI_Ialltoall, MPI_Wait on 2 ranks"
AIP_AUX_BYTES=1M "$MPIRUN" 2 $preload "$TESTBIN/mpi/pmpi_memory_test" 256 --nonblocking --at-most 5
"$MPIRUN" 2 "$TESTBIN/mpi/pmpi_memory_test" 256 --nonblocking --at-least 64

if ! command -v "$MPIFC" >/dev/null 2>&1; then
    echo "SKIP: no Fortran MPI compiler '$MPIFC' (gfortran and the MPI's Fortran package)"
    exit 0
fi
for binding in mpif.h "use mpi"; do
    echo "== Fortran callers ($binding)"
    define="" persistent=""
    [ "$binding" = mpif.h ] || define=-DUSE_MPI_MODULE
    # MPICH's Fortran bindings call the C functions: its persistent calls reach the layer
    [ "$MPI_FLAVOR" != mpich ] || { define="$define -DWITH_PERSISTENT"; persistent=MPI_Alltoall_init; }
    (cd "$tmp" && "$MPIFC" -O1 $define -o pmpi_fortran "$srcdir/pmpi_fortran.F90")
    "$MPIRUN" 3 "$tmp/pmpi_fortran"
    AIP_DEBUG=1 "$MPIRUN" 3 $preload "$tmp/pmpi_fortran" 2>"$tmp/err"
    ran_ours "$tmp/err" MPI_Alltoall MPI_Alltoallv MPI_Alltoallw $persistent
    [ "$(grep -c "^alltoall_inplace: MPI_Alltoallw on" "$tmp/err")" -ge 2 ] ||
        { cat "$tmp/err"; fail "MPI_ALLTOALLW over MPI_BOTTOM did not run ours"; }
done
echo "pmpi.sh: all passed"
