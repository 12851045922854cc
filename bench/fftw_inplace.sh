#!/bin/sh
# fftw_inplace.sh [-n RANKS] [-s N|N0xN1xN2] [-p measure|estimate|patient]
# The comparison a user of the patched FFTW wants: an in-place 3D real
# forward transform (mpi-bench -s irN0xN1xN2), run once per variant
#
#   stock in-place       FFTW's own transposes (FFTW_MPI_INPLACE_ALGORITHM=off)
#   ours, HSA / LSA      -o inplace=hsa / -o inplace=lsa (N0 and N1 divide by RANKS)
#   ours, general        -o inplace=general (uneven: they do not)
#   stock out-of-place   orN0xN1xN2, FFTW's own transposes
#   ... destroying input dorN0xN1xN2 (FFTW_DESTROY_INPUT): FFTW's fastest,
#                        MPI_Alltoall between two arrays
#
# printing the time per transform (min and median of mpi-bench's runs), the
# largest peak resident memory of the ranks (VmHWM, from GNU time) in MiB
# and as a multiple of the local array, and the transposes of the plan.
# The local array is FFTW's padded r2c slab, N0/RANKS x N1 x 2(N2/2+1)
# doubles; out-of-place runs hold two of them.
#
# Environment: MPIRUN (tests/mpirun.sh of the build), MPIBENCH (the patched
# mpi-bench), AIP_AUX_BYTES (our solvers' budget, default 1M).
set -eu
np=2 size=256 planner=measure
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -s) size=$2; shift 2 ;;
    -p) planner=$2; shift 2 ;;
    *) echo "usage: fftw_inplace.sh [-n RANKS] [-s N|N0xN1xN2] [-p measure|estimate|patient]" >&2
       exit 2 ;;
    esac
done
case "$size" in *x*) dims=$size ;; *) dims=${size}x${size}x${size} ;; esac
case "$planner" in measure) planner_opt= ;; *) planner_opt="-o $planner" ;; esac

# local array in bytes: (N0/np) x N1 x 2(N2/2+1) doubles
local_bytes=$(echo "$dims" | awk -F x -v np="$np" '{
    printf "%.0f", int(($1 + np - 1) / np) * $2 * 2 * int($3 / 2 + 1) * 8 }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "mpi-bench -s ir$dims on $np ranks, FFTW_$(echo "$planner" | tr a-z A-Z)," \
     "aux budget ${AIP_AUX_BYTES:-1M}; local array $(awk -v b="$local_bytes" \
     'BEGIN { printf "%.1f", b / 1048576 }') MiB per rank"
printf '%-20s %10s %10s %11s %7s  %s\n' variant "min time" median "peak RSS" "x local" \
       "transposes in the plan"

# run NAME ENV PROBLEM OPTIONS...
run() {
    name=$1 env=$2 problem=$3
    shift 3
    rm -f "$tmp/rss"
    # GNU time appends each rank's peak RSS (KiB) to one file, a line each.
    # shellcheck disable=SC2086 # env is one assignment; options word lists
    if ! env $env $MPIRUN "$np" /usr/bin/time -a -o "$tmp/rss" -f %M \
            "$MPIBENCH" $planner_opt "$@" -v2 -s "$problem" > "$tmp/out" 2>&1; then
        echo "$name: mpi-bench failed:" >&2
        tail -n 20 "$tmp/out" >&2
        return 1
    fi
    awk -v name="$name" -v local="$local_bytes" \
        -v plan="$(grep -o 'mpi-transpose-[a-z/]*' "$tmp/out" | sort -u | tr '\n' ' ')" '
        FILENAME == "-" && /^Time: min/ { min = $3 " " $4; median = $(NF-1) " " $NF }
        FILENAME != "-" && $1 + 0 > peak { peak = $1 + 0 }
        END {
            sub(/,$/, "", min)
            printf "%-20s %10s %10s %7.1f MiB %7.2f  %s\n", name, min, median,
                   peak / 1024, peak * 1024 / local, plan == "" ? "(none)" : plan
        }' - "$tmp/rss" < "$tmp/out"
}

run "stock in-place" FFTW_MPI_INPLACE_ALGORITHM=off "ir$dims"
# The transposes split N0 and N1: the symmetric exchanges where both divide
# by the ranks, else the general one (which a forced hsa or lsa would give).
if echo "$dims" | awk -F x -v np="$np" '{ exit !($1 % np == 0 && $2 % np == 0) }'; then
    run "ours, HSA" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace=hsa
    run "ours, LSA" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace=lsa
else
    run "ours, general" FFTW_MPI_INPLACE_ALGORITHM= "ir$dims" -o inplace=general
fi
run "stock out-of-place" FFTW_MPI_INPLACE_ALGORITHM=off "or$dims"
run "... destroying input" FFTW_MPI_INPLACE_ALGORITHM=off "dor$dims"
