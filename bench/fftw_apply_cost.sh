#!/bin/bash
# fftw_apply_cost.sh [-n RANKS] [-s "N|N0xN1xN2 ..."] [-v "VARIANT ..."]
#                    [-r ROUNDS] [-t TIME_REPEAT] [-p measure|estimate|patient]
#                    [-w QUIET [-W SECONDS]] DIR...
# What one apply of an in-place 3D real forward transform costs besides the
# FFT and the exchange: mpi-bench -s irN0xN1xN2 (default sizes 64, where
# per-apply setup matters, and 256) on RANKS ranks (default 2), for
#
#   stock     FFTW's own in-place transposes (FFTW_MPI_INPLACE_ALGORITHM=off)
#   hsa       ours, -o inplace=hsa (FFTW_MPI_INPLACE_ALGORITHM=hsa)
#   general   ours, -o inplace=general (FFTW_MPI_INPLACE_ALGORITHM=general)
#   lsa, mpich, sa, auto   likewise (not run unless named with -v)
#
# for each build DIR (several: before and after a change, say, timed in the
# same interleaved session, which is the only fair comparison on a noisy
# machine), printing one table: the time per transform (mpi-bench's own
# timing: the median and min of its TIME_REPEAT measurements; over ROUNDS
# runs, the median of the runs' medians and the least min; runs
# interleaved, the order of the builds and variants rotating each round),
# the planning time (mpi-bench's "setup": the median; it plans twice, with
# FFTW_ESTIMATE to see that it can, then for real), and from one more run
# under the PMPI shim bench/mpi_calls.c (LD_PRELOAD) the calls per execute
# of the timed plan, its first execute left out (lazy setup is shown apart):
#
#   coll     collectives, communicator creation/freeing included
#   besides  those besides the exchange itself (all but MPI_Alltoall/v/w)
#   p2p      point-to-point messages posted (Send/Isend/Irecv/Sendrecv ...)
#   local    other MPI calls (Comm_get_attr, Comm_rank, Type_* ...)
#   waits    completion calls (Wait*, Test*: polling, varies run to run)
#   malloc   allocations by FFTW, liballtoall_inplace and mpi-bench
#            (those inside the MPI library: "other" in the details)
#   getenv   getenv calls (all callers)
#   1st      collectives of the plan's first execute beyond a later one
#   plan-ar  MPI_Allreduce calls during planning (both plans: FFTW's
#            planner, our solvers' choice, trial runs), and "env" the getenv
#            calls made by FFTW during planning: in our solvers' choice
#            (transpose-inplace-choice.c) each came with one MPI_Allreduce
#            of the agreement on FFTW_MPI_INPLACE_ALGORITHM
#
# Values are means over the ranks, "a-b" where the ranks differ.  Then, per
# row, every call per execute by function and caller (prog, fftw, aip,
# other: see bench/mpi_calls.c), and the medians of the timed runs.
#
# DIR: the install prefix of a build (bin/mpi-bench, lib/libfftw3_mpi.so;
# e.g. build/openmpi/install), its fftw/ stage directory, or the build
# directory itself.  Builds are named A, B, ... in the order given.
#
#   -n RANKS        default 2
#   -s SIZES        default "64 256"
#   -v VARIANTS     default "stock hsa general"
#   -r ROUNDS       timed runs per row (default 5)
#   -t TIME_REPEAT  mpi-bench --time-repeat (default 8)
#   -p PLANNER      default measure
#   -w QUIET        before each timed run, wait (up to -W SECONDS, default
#                   300) until the machine is quiet: at most QUIET other
#                   runnable tasks on average over 2 s (/proc/loadavg; 1,
#                   say, on a machine that others share); the end of the
#                   output says how many runs waited and how many gave up
#
# Environment: MPIRUN (command taking RANKS then the program, for every
# build; default a build's tests/mpirun.sh if DIR is or is in a build
# directory, else mpiexec of the MPI libfftw3_mpi links), MPICC (to build
# the shim; default that MPI's mpicc), SHIM (a built mpi_calls.so instead,
# e.g. bench/.libs/mpi_calls.so of a build), AIP_AUX_BYTES (our solvers'
# budget, default 1M).
set -eu
np=2 sizes="64 256" variants="stock hsa general" rounds=5 repeats=8 planner=measure quiet=
quiet_wait=300 waited=0 gave_up=0 timed_runs=0
usage() {
    echo "usage: fftw_apply_cost.sh [-n RANKS] [-s SIZES] [-v VARIANTS] [-r ROUNDS]" \
         "[-t TIME_REPEAT] [-p measure|estimate|patient] [-w QUIET [-W SECONDS]] DIR..." >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
    -n) np=$2; shift 2 ;;
    -s) sizes=$2; shift 2 ;;
    -v) variants=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    -t) repeats=$2; shift 2 ;;
    -p) planner=$2; shift 2 ;;
    -w) quiet=$2; shift 2 ;;
    -W) quiet_wait=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
case "$planner" in measure) planner_opt= ;; *) planner_opt="-o $planner" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- The builds ------------------------------------------------------------------
# per build b: name[b] (A, B, ...), fftw[b], mpibench[b], flavor[b], mpirun[b],
# shim[b], source[b]
names=(A B C D E F G H)
[ $# -le ${#names[@]} ] || { echo "fftw_apply_cost.sh: at most ${#names[@]} builds" >&2; exit 2; }
builds=()
b=0
for arg in "$@"; do
    dir=$(cd "$arg" && pwd)
    builddir=
    if [ -x "$dir/fftw/bin/mpi-bench" ]; then
        builddir=$dir fftw[b]=$dir/fftw
    elif [ -e "$dir/bin/mpi-bench" ]; then
        fftw[b]=$dir
        [ -f "$dir/../tests/mpirun.sh" ] && builddir=$(cd "$dir/.." && pwd)
    else
        echo "fftw_apply_cost.sh: no bin/mpi-bench or fftw/bin/mpi-bench in $dir" >&2
        exit 1
    fi
    mpibench[b]=${fftw[b]}/bin/mpi-bench
    lib=${fftw[b]}/lib/libfftw3_mpi.so
    if ldd "$lib" | grep -q 'libmpich'; then
        flavor[b]=mpich
    elif ldd "$lib" | grep -q 'libmpi\.so'; then
        flavor[b]=openmpi
    else
        echo "fftw_apply_cost.sh: which MPI does $lib link?" >&2
        exit 1
    fi
    if [ -n "${MPIRUN:-}" ]; then
        mpirun[b]=$MPIRUN
    elif [ -n "$builddir" ]; then
        mpirun[b]=$builddir/tests/mpirun.sh
    elif [ "${flavor[b]}" = openmpi ]; then
        mpirun[b]="env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpiexec.openmpi --oversubscribe -n"
    else
        mpirun[b]="mpiexec.mpich -n"
    fi
    if [ -n "${SHIM:-}" ]; then
        shim[b]=$SHIM
    else
        shim[b]=$tmp/mpi_calls-${flavor[b]}.so
        [ -f "${shim[b]}" ] || ${MPICC:-mpicc.${flavor[b]}} -O2 -shared -fPIC -o "${shim[b]}" \
            "$here/mpi_calls.c" -ldl -pthread
    fi
    source[b]=unknown
    if [ -n "$builddir" ] && [ -f "$builddir/Makefile" ]; then
        src=$(sed -n 's/^abs_top_srcdir = //p' "$builddir/Makefile")
        if [ -n "$src" ] && git -C "$src" rev-parse HEAD > /dev/null 2>&1; then
            dirty=
            [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
                dirty=", with uncommitted changes"
            source[b]="$(git -C "$src" rev-parse HEAD) ($src$dirty)"
        fi
    fi
    builds+=("$b")
    b=$((b + 1))
done

variant_env() {
    case "$1" in
    stock) echo FFTW_MPI_INPLACE_ALGORITHM=off ;;
    *) echo FFTW_MPI_INPLACE_ALGORITHM= ;;
    esac
}
variant_opts() {
    case "$1" in
    stock) ;;
    hsa|lsa|mpich|sa|general|auto) echo "-o inplace=$1" ;;
    *) echo "fftw_apply_cost.sh: unknown variant $1" >&2; exit 2 ;;
    esac
}
dims_of() { case "$1" in *x*) echo "$1" ;; *) echo "$1x$1x$1" ;; esac; }
for v in $variants; do variant_opts "$v" > /dev/null; done

# bench OUT PRELOAD BUILD SIZE VARIANT: mpi-bench's output (and the shim's
# lines) in OUT; the exit status
bench() {
    local out=$1 preload=$2 b=$3 dims v=$5
    dims=$(dims_of "$4")
    # shellcheck disable=SC2046,SC2086 # word lists
    env $(variant_env "$v") ${mpirun[b]} "$np" ${preload:+env LD_PRELOAD=$preload} \
        "${mpibench[b]}" $planner_opt --time-repeat "$repeats" $(variant_opts "$v") -v2 \
        -s "ir$dims" > "$out" 2>&1 ||
        { echo "mpi-bench ir$dims ($v, build ${names[b]}) failed:" >&2; tail -n 20 "$out" >&2
          return 1; }
}

# wait_quiet: with -w, until the other runnable tasks average at most $quiet
wait_quiet() {
    local t0=$SECONDS load first=1
    [ -n "$quiet" ] || return 0
    while :; do
        # procs_running counts the cut reading it
        load=$(for _ in 1 2 3 4 5 6 7 8 9 10; do cut -d' ' -f4 /proc/loadavg; sleep 0.2
               done | awk -F/ '{ s += $1 - 1 } END { print s / NR }')
        if awk -v l="$load" -v q="$quiet" 'BEGIN { exit !(l <= q) }'; then
            [ "$first" ] || waited=$((waited + 1))
            return 0
        fi
        first=
        if [ $((SECONDS - t0)) -ge "$quiet_wait" ]; then
            gave_up=$((gave_up + 1))
            return 0
        fi
    done
}

# ---- Header -------------------------------------------------------------------
echo "fftw_apply_cost.sh: mpi-bench -s ir<size> on $np ranks, FFTW_$(echo "$planner" |
     tr '[:lower:]' '[:upper:]'), aux budget ${AIP_AUX_BYTES:-1M}; $rounds interleaved runs of" \
     "--time-repeat $repeats per row"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(uname -n), $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' \
     /proc/cpuinfo | head -n 1), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
for b in "${builds[@]}"; do
    echo "build ${names[b]}: source ${source[b]}"
    echo "         FFTW ${fftw[b]}"
    echo "         MPI ${flavor[b]}, $(case ${flavor[b]} in
     openmpi) ompi_info --version 2>/dev/null | head -n 1 ;;
     *) mpichversion 2>/dev/null | head -n 1 | tr -s ' \t' ' ' ;; esac), run by ${mpirun[b]}"
done

# ---- Calls, under the shim --------------------------------------------------------
for s in $sizes; do
    for b in "${builds[@]}"; do
        for v in $variants; do
            bench "$tmp/calls-$b-$s-$v" "${shim[b]}" "$b" "$s" "$v"
        done
    done
done

# ---- Times, interleaved ------------------------------------------------------------
rows=()
for b in "${builds[@]}"; do
    for v in $variants; do rows+=("$b:$v"); done
done
for r in $(seq "$rounds"); do
    for s in $sizes; do
        # rotate the rows' order by one each round
        k=$(( (r - 1) % ${#rows[@]} ))
        for row in "${rows[@]:k}" "${rows[@]:0:k}"; do
            b=${row%%:*} v=${row#*:}
            wait_quiet
            timed_runs=$((timed_runs + 1))
            bench "$tmp/time" "" "$b" "$s" "$v"
            plan=$(grep -ao 'mpi-transpose-[a-z/]*' "$tmp/time" | sort -u | tr '\n' '+' |
                   sed 's/+$//')
            awk -v b="$b" -v v="$v" -v s="$s" -v plan="${plan:-none}" '
                function sec(x, u) {
                    return x * (u ~ /^s/ ? 1 : u ~ /^ms/ ? 1e-3 : u ~ /^us/ ? 1e-6 : 1e-9) }
                /^Problem:/ { split($0, a, "setup: "); split(a[2], c, " ");
                              setup = sec(c[1], c[2]) }
                /^Time: min/ { min = sec($3, $4); median = sec($(NF-1), $NF) }
                END { printf "%s %s %s %.9g %.9g %.9g %s\n", b, s, v, median, min, setup, plan }' \
                "$tmp/time" >> "$tmp/times"
        done
    done
done

# ---- The table ----------------------------------------------------------------
echo
printf '%-14s %-10s %10s %10s %9s |%6s %7s %5s %6s %7s %6s %6s |%4s |%6s %4s  %s\n' \
    problem "build" median min planning coll besides p2p local waits malloc getenv \
    1st plan-ar env "transposes in the plan"
for s in $sizes; do
  for v in $variants; do
    for b in "${builds[@]}"; do
        plan=$(grep -ao 'mpi-transpose-[a-z/]*' "$tmp/calls-$b-$s-$v" | sort -u | tr '\n' ' ' |
               sed 's/ $//')
        grep -a '^mpi_calls ' "$tmp/calls-$b-$s-$v" > "$tmp/lines" || true
        awk -v b="$b" -v s="$s" -v v="$v" '$1 == b && $2 == s && $3 == v' "$tmp/times" \
            > "$tmp/rows"
        label=$v
        [ ${#builds[@]} -eq 1 ] || label="${names[b]} $v"
        awk -v problem="ir$(dims_of "$s")" -v v="$label" -v plan="${plan:-(none)}" \
            -v details="$tmp/details" '
        function ms(x) {
            if (x >= 1) return sprintf("%.2f s", x)
            if (x >= 0.1) return sprintf("%.1f ms", x * 1e3)
            if (x >= 0.001) return sprintf("%.3f ms", x * 1e3)
            return sprintf("%.1f us", x * 1e6) }
        function med(a, n,   i, j, t) {
            for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) {
                t = a[j]; a[j] = a[j-1]; a[j-1] = t }
            return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2 }
        function num(x) {
            if (x == int(x)) return sprintf("%d", x)
            return sprintf(x < 10 ? "%.2f" : "%.1f", x) }
        # one value over the ranks: "a" or "min-max"
        function over_ranks(key,   r, lo, hi, x, sum, n) {
            n = 0; sum = 0
            for (r = 0; r < nranks; r++) {
                x = (r SUBSEP key) in per ? per[r, key] : 0
                if (n == 0 || x < lo) lo = x
                if (n == 0 || x > hi) hi = x
                sum += x; n++ }
            return hi - lo < 0.005 * (hi > 0 ? hi : 1) ? num(sum / n) : num(lo) "-" num(hi) }
        function add(r, key, x) { per[r, key] += x }
        BEGIN {
            split("Allreduce Reduce Bcast Barrier Allgather Allgatherv Gather Gatherv " \
                  "Scatter Scatterv Alltoall Alltoallv Alltoallw Scan Exscan " \
                  "Reduce_scatter_block Iallreduce Ibarrier Ialltoall Comm_dup Comm_split " \
                  "Comm_split_type Comm_create Comm_free", a)
            for (i in a) coll["MPI_" a[i]] = 1
            split("Send Ssend Recv Isend Issend Irecv Sendrecv Sendrecv_replace", a)
            for (i in a) p2p["MPI_" a[i]] = 1
            split("Wait Waitall Waitany Waitsome Test Testall Probe Iprobe", a)
            for (i in a) waits["MPI_" a[i]] = 1
            exchange["MPI_Alltoall"] = exchange["MPI_Alltoallv"] = exchange["MPI_Alltoallw"] = 1
        }
        FILENAME ~ /rows$/ { nt++; tmed[nt] = $4; tmin[nt] = $5; tset[nt] = $6
                             if (!($7 in seen)) { seen[$7] = 1; plans = plans " " $7 }
                             next }
        {   # a line of the shim
            r = $2; sub(/rank=/, "", r); if (r + 1 > nranks) nranks = r + 1
            phase = $3; sub(/phase=/, "", phase)
            if (phase == "execute" || phase == "first-execute") {
                pl = $4; sub(/plan=/, "", pl); n = $5; sub(/n=/, "", n); first = 6
            } else if (phase == "plan" || phase == "destroy") { n = $4; sub(/n=/, "", n); first = 5 }
            else first = 4
            for (i = first; i <= NF; i++) {
                split($i, kv, "="); key = kv[1]; x = kv[2]
                if (phase == "execute") { execs[r, pl] = n; count[r, pl, key] = x }
                else if (phase == "first-execute") firstc[r, pl, key] = x
                else if (phase == "plan") planc[r, key] += x
            }
        }
        END {
            # the timed plan: the one executed most, on each rank
            for (r = 0; r < nranks; r++) {
                best = ""
                for (k in execs) { split(k, kk, SUBSEP)
                    if (kk[1] == r && (best == "" || execs[k] > execs[r, best])) best = kk[2] }
                if (best == "") continue
                n = execs[r, best]
                for (k in count) { split(k, kk, SUBSEP)
                    if (kk[1] != r || kk[2] != best) continue
                    key = kk[3]; x = count[k] / n
                    add(r, "f:" key, x)
                    if (key ~ /@/) continue
                    if (key in coll) { add(r, "coll", x); if (!(key in exchange)) add(r, "besides", x) }
                    else if (key in p2p) add(r, "p2p", x)
                    else if (key in waits) add(r, "waits", x)
                    else if (key ~ /^MPI_/) add(r, "local", x)
                    else if (key == "malloc") add(r, "malloc", x)
                    else if (key == "getenv") add(r, "getenv", x)
                    names[key] = 1 }
                for (k in firstc) { split(k, kk, SUBSEP)
                    if (kk[1] == r && kk[2] == best && kk[3] in coll) add(r, "first", firstc[k]) }
                add(r, "first", -per[r, "coll"])
                add(r, "malloc", -((r SUBSEP "f:malloc@other") in per ? per[r, "f:malloc@other"] : 0))
                add(r, "planar", planc[r, "MPI_Allreduce"])
                add(r, "planenv", planc[r, "getenv@fftw"])
            }
            for (i = 1; i <= nt; i++) { a1[i] = tmed[i]; a2[i] = tset[i] }
            mn = tmin[1]; for (i = 2; i <= nt; i++) if (tmin[i] < mn) mn = tmin[i]
            printf "%-14s %-10s %10s %10s %9s |%6s %7s %5s %6s %7s %6s %6s |%4s |%6s %4s  %s\n",
                problem, v, nt ? ms(med(a1, nt)) : "-", nt ? ms(mn) : "-",
                nt ? ms(med(a2, nt)) : "-", over_ranks("coll"), over_ranks("besides"),
                over_ranks("p2p"), over_ranks("local"), over_ranks("waits"),
                over_ranks("malloc"), over_ranks("getenv"), over_ranks("first"),
                over_ranks("planar"), over_ranks("planenv"), plan
            # the details: per execute, by function and caller
            line = sprintf("%s %s, per execute (%s executes counted, by rank):", problem, v,
                           over_ranks_n())
            nk = 0
            for (key in names) sorted[++nk] = key
            for (i = 2; i <= nk; i++) for (j = i; j > 1 && sorted[j-1] > sorted[j]; j--) {
                t = sorted[j]; sorted[j] = sorted[j-1]; sorted[j-1] = t }
            for (i = 1; i <= nk; i++) {
                key = sorted[i]; who = ""
                split("prog fftw aip other", src, " ")
                for (j = 1; j <= 4; j++) {
                    x = over_ranks("f:" key "@" src[j])
                    if (x != "0") who = who (who == "" ? "" : ", ") src[j] " " x }
                line = line sprintf("\n    %-22s %8s  (%s)", key, over_ranks("f:" key), who) }
            times = ""
            for (i = 1; i <= nt; i++) times = times " " ms(tmed[i])
            line = line "\n    medians of the runs:" times "\n    transposes in the plans of the timed runs:" plans
            print line "\n" >> details
        }
        function over_ranks_n(   r, k, kk, s) {
            s = ""
            for (r = 0; r < nranks; r++) for (k in execs) { split(k, kk, SUBSEP)
                if (kk[1] == r && execs[k] >= m[r]) m[r] = execs[k] }
            for (r = 0; r < nranks; r++) s = s (s == "" ? "" : "/") m[r] + 0
            return s }
        ' "$tmp/rows" "$tmp/lines"
    done
  done
done
echo
echo "load average at the end $(cut -d' ' -f1-3 /proc/loadavg)${quiet:+; of $timed_runs timed runs,
$waited waited for at most $quiet other runnable tasks, $gave_up gave up after ${quiet_wait} s}"
echo
echo "Calls per execute of the timed plan (its first execute left out), by function and caller:"
echo
cat "$tmp/details"
