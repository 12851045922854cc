#!/bin/sh
# fftw_inplace.sh [-n RANKS] [-s N|N0xN1xN2] [-p measure|estimate|patient]
#                 [-r REPEATS] [-l MARGIN_MIB] [-P]
# The comparison a user of the patched FFTW wants: an in-place 3D real
# forward transform (mpi-bench -s irN0xN1xN2), run once per variant
#
#   stock in-place       FFTW's own transposes (FFTW_MPI_INPLACE_ALGORITHM=off)
#   ours, HSA / LSA      -o inplace=hsa / -o inplace=lsa (N0 and N1 divide by RANKS)
#   ours, general        -o inplace=general (uneven: they do not)
#   with -P, the pipelined transform (exchanges behind the FFTs):
#   ours, HSA pipelined  -o inplace=hsa-pipelined, forced
#   ours, planner's pick -o inplace: competing with the others (under
#                        MEASURE across nodes only, design.md says why)
#   stock out-of-place   orN0xN1xN2, FFTW's own transposes
#   ... destroying input dorN0xN1xN2 (FFTW_DESTROY_INPUT): FFTW's fastest,
#                        MPI_Alltoall between two arrays
#
# printing the time per transform (min and median of mpi-bench's runs), the
# largest peak resident memory of the ranks (VmHWM, from GNU time) in MiB,
# as a multiple of the local array, and what it holds beyond the local array
# and the MPI runtime's own peak (mpi-bench on ir16x16x16, measured first),
# and the transposes of the plan.  The local array is FFTW's padded r2c
# slab, N0/RANKS x N1 x 2(N2/2+1) doubles; out-of-place runs hold two.
#
#   -r REPEATS    mpi-bench's --time-repeat (default 8; 3 is plenty at 1024^3)
#   -l MARGIN     memory-limited: every rank runs under prlimit
#                 --data=<local array + MARGIN MiB>, a bound on its private
#                 writable memory (RLIMIT_DATA: malloc's heap and mmap'ed
#                 chunks, not the MPI runtime's shared segments); a variant
#                 that needs more says "out of memory" (FFTW's or mpi-bench's
#                 allocator failed) or "did not complete" (MPI_Abort swallowed
#                 the message) instead of its times
#   -P            also the pipelined transform (symmetric shapes): the
#                 two rows above
#
# Environment: MPIRUN (tests/mpirun.sh of the build), MPIBENCH (the patched
# mpi-bench), AIP_AUX_BYTES (our solvers' budget, default 1M).
set -eu
np=2 size=256 planner=measure repeats=8 margin="" pipelined=no
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -s) size=$2; shift 2 ;;
    -p) planner=$2; shift 2 ;;
    -r) repeats=$2; shift 2 ;;
    -l) margin=$2; shift 2 ;;
    -P) pipelined=yes; shift ;;
    *) echo "usage: fftw_inplace.sh [-n RANKS] [-s N|N0xN1xN2] [-p measure|estimate|patient]" \
            "[-r REPEATS] [-l MARGIN_MIB] [-P]" >&2
       exit 2 ;;
    esac
done
case "$size" in *x*) dims=$size ;; *) dims=${size}x${size}x${size} ;; esac
case "$planner" in measure) planner_opt= ;; *) planner_opt="-o $planner" ;; esac

# local array in bytes: (N0/np) x N1 x 2(N2/2+1) doubles
local_bytes=$(echo "$dims" | awk -F x -v np="$np" '{
    printf "%.0f", int(($1 + np - 1) / np) * $2 * 2 * int($3 / 2 + 1) * 8 }')
limit=${margin:+$((local_bytes + margin * 1048576))}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# bench NAME ENV PROBLEM OPTIONS...: mpi-bench's output in $tmp/out, each
# rank's peak RSS (KiB, from GNU time) a line of $tmp/rss; the exit status
bench() {
    name=$1 env=$2 problem=$3
    shift 3
    rm -f "$tmp/rss"
    # shellcheck disable=SC2086 # env is one assignment; options word lists
    env $env $MPIRUN "$np" /usr/bin/time -a -o "$tmp/rss" -f %M \
        ${limit:+prlimit --data=$limit} "$MPIBENCH" $planner_opt --time-repeat "$repeats" \
        "$@" -v2 -s "$problem" > "$tmp/out" 2>&1
}

peak_kib() { awk '$1 + 0 > peak { peak = $1 + 0 } END { print peak + 0 }' "$tmp/rss"; }

# The MPI runtime's own peak, to tell what the transform adds.
bench runtime FFTW_MPI_INPLACE_ALGORITHM=off ir16x16x16 ||
    { echo "mpi-bench fails on ir16x16x16:" >&2; tail -n 20 "$tmp/out" >&2; exit 1; }
runtime_kib=$(peak_kib)

echo "mpi-bench -s ir$dims on $np ranks, FFTW_$(echo "$planner" | tr a-z A-Z)," \
     "aux budget ${AIP_AUX_BYTES:-1M}; local array $(awk -v b="$local_bytes" \
     'BEGIN { printf "%.1f", b / 1048576 }') MiB per rank; MPI runtime's peak" \
     "$(awk -v k="$runtime_kib" 'BEGIN { printf "%.1f", k / 1024 }') MiB${limit:+;
each rank limited to local array + $margin MiB of private memory (prlimit --data=$limit)}"
printf '%-20s %10s %10s %11s %7s %9s  %s\n' variant "min time" median "peak RSS" "x local" \
       "beyond" "transposes in the plan"

# run NAME ENV PROBLEM OPTIONS...
run() {
    name=$1
    if ! bench "$@"; then
        [ -n "$limit" ] || { echo "$name: mpi-bench failed:" >&2; tail -n 20 "$tmp/out" >&2; return 1; }
        # FFTW's and mpi-bench's allocators assert; MPI_Abort may swallow the message
        why="did not complete"
        grep -q 'assertion failed: p$' "$tmp/out" && why="out of memory"
        printf '%-20s %21s %7.1f MiB\n' "$name" "$why" "$(peak_kib | awk '{ print $1 / 1024 }')"
        return 0
    fi
    awk -v name="$name" -v local="$local_bytes" -v runtime="$runtime_kib" \
        -v plan="$(grep -oE 'mpi-transpose-[a-z/]*|mpi-[a-z0-9-]*-pipelined/k[0-9]+-[a-z]*' \
                   "$tmp/out" | sort -u | tr '\n' ' ')" '
        FILENAME == "-" && /^Time: min/ { min = $3 " " $4; median = $(NF-1) " " $NF }
        FILENAME != "-" && $1 + 0 > peak { peak = $1 + 0 }
        END {
            sub(/,$/, "", min)
            printf "%-20s %10s %10s %7.1f MiB %7.2f %5.1f MiB  %s\n", name, min, median,
                   peak / 1024, peak * 1024 / local, (peak - runtime) / 1024 - local / 1048576,
                   plan == "" ? "(none)" : plan
        }' - "$tmp/rss" < "$tmp/out"
}

run "stock in-place" FFTW_MPI_INPLACE_ALGORITHM=off "ir$dims"
# The transposes split N0 and N1: the symmetric exchanges where both divide
# by the ranks, else the general one (which a forced hsa or lsa would give).
if echo "$dims" | awk -F x -v np="$np" '{ exit !($1 % np == 0 && $2 % np == 0) }'; then
    run "ours, HSA" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace=hsa
    run "ours, LSA" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace=lsa
    if [ $pipelined = yes ]; then
        run "ours, HSA pipelined" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace=hsa-pipelined
        run "ours, planner's pick" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace
    fi
else
    run "ours, general" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace=general
fi
run "stock out-of-place" FFTW_MPI_INPLACE_ALGORITHM=off "or$dims"
run "... destroying input" FFTW_MPI_INPLACE_ALGORITHM=off "dor$dims"
