#!/bin/bash
# netns_testbed.sh - run an Open MPI program on a real multi-host test bed
# made of Linux network namespaces on this one machine.
#
#   tests/testbed/netns_testbed.sh [OPTIONS] RANKS_PER_HOST -- PROGRAM [ARGS...]
#
#   RANKS_PER_HOST  comma list, one entry per host: 2,2,2,2 is 4 hosts of
#                   2 ranks, 3,1,2 three uneven hosts.  mpirun starts the sum.
#   --map-by slot   block placement (default): ranks 0..n1-1 on host 1, ...
#   --map-by node   cyclic placement: rank r on host r mod H, skipping full
#                   hosts, so each host still gets its count
#   --mpirun PATH   Open MPI's launcher (default $MPIRUN_OMPI, else mpirun
#                   from PATH); anything but Open MPI's means SKIP (77)
#   -v, --verbose   (or AIP_NETNS_VERBOSE=1) print on stderr the setup time,
#                   the hostfile, the mpirun command line and, per host,
#                   the bytes its veth moved during the run
#   -h, --help      this text
#
# Why: the library treats ranks on one node (MPI_COMM_TYPE_SHARED, shared
# memory) and ranks on other nodes (the network) differently.  A plain
# mpirun puts every rank on one node; this bed gives each "host" its own
# network stack and hostname, so Open MPI sees several nodes, talks TCP
# between them over veth pairs and shared memory (vader) within each.
#
# How: per run (names carry $$, so concurrent runs do not clash) one
# namespace per host, aipbed<PID>-h<i>, and one more, aipbed<PID>-br, that
# holds a bridge.  Each host is joined to the bridge by a veth pair (eth0 in
# the host, h<i> on the bridge) and gets 10.213.0.<i>/24; the subnet exists
# only inside these namespaces: the root namespace's interfaces and routes
# are never touched and nothing is routed out.  Every process of a host runs
# under `ip netns exec NS unshare --uts` with its own hostname (= the
# namespace's name): Open MPI tells nodes apart by hostname (session
# directories, shared-memory segments, locality), and crashes or hangs when
# two "nodes" share one.  mpirun runs that way in host 1 with a hostfile
# (slots = ranks per host); it starts the other hosts' daemons through a
# generated rsh agent (plm_rsh_agent) that does the same for the host named.
# TCP (BTL and OOB) is restricted to the veth subnet.  Everything is local,
# so the environment (OMPI_ALLOW_RUN_AS_ROOT*, LD_LIBRARY_PATH, AIP_*, ...)
# reaches daemons and ranks by inheritance; AIP_* are also passed with -x.
# Namespaces, the temp dir (TMPDIR of the run: Open MPI's session dirs) and
# leftover shared-memory segments are removed on exit, failure, interrupt and
# timeout (trap); leftovers of dead earlier runs are reaped first.
#
# Other Open MPI settings go in the environment as OMPI_MCA_<param>=VALUE;
# the bed's own --mca settings above take precedence over them.
#
# Open MPI may print "plm:rsh: Warning: setpgid(...) failed in parent with
# errno=Permission denied": a harmless race (the agent had already exec'd and
# set its process group itself), more frequent than with ssh because the
# agent starts fast.
#
# Exit status: mpirun's; 124 when AIP_TEST_TIMEOUT (default 300 s) ran out;
# 77 (automake's SKIP), with the reason on stderr, when the bed cannot run
# here: not root, no `ip netns`, no `unshare`, mpirun not Open MPI, or the
# namespaces cannot be made.  2 for a usage error.
#
# Example:  tests/testbed/netns_testbed.sh --map-by node 2,2,2,2 -- \
#               build/openmpi/tests/alltoall_test --seed 1
set -u

prog=${0##*/}
SKIP=77
subnet=10.213.0        # .<host index>/24, private to the bed's namespaces

usage() { sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; }
die_usage() { echo "$prog: $*" >&2; echo "usage: $prog [--map-by node|slot] [--mpirun PATH] [-v] RANKS_PER_HOST -- PROGRAM [ARGS...]" >&2; exit 2; }
skip() { echo "$prog: SKIP: $*" >&2; exit $SKIP; }
say() { [ "$verbose" = 1 ] && echo "$prog: $*" >&2; return 0; }
now_ms() { local t; t=$(date +%s%N); echo $((t / 1000000)); }

# ---- Arguments ----------------------------------------------------------
map_by=slot
mpirun=${MPIRUN_OMPI:-mpirun}
verbose=${AIP_NETNS_VERBOSE:-0}
spec=""
while [ $# -gt 0 ]; do
    case $1 in
    --map-by) [ $# -ge 2 ] || die_usage "--map-by needs node or slot"; map_by=$2; shift 2 ;;
    --map-by=*) map_by=${1#*=}; shift ;;
    --mpirun) [ $# -ge 2 ] || die_usage "--mpirun needs a path"; mpirun=$2; shift 2 ;;
    --mpirun=*) mpirun=${1#*=}; shift ;;
    -v|--verbose) verbose=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) die_usage "unknown option $1" ;;
    *) [ -z "$spec" ] || die_usage "one RANKS_PER_HOST only (got '$spec' and '$1')"
       spec=$1; shift ;;
    esac
done
[ -n "$spec" ] || die_usage "RANKS_PER_HOST missing"
[ $# -gt 0 ] || die_usage "PROGRAM missing (after --)"
case $map_by in node|slot) ;; *) die_usage "--map-by must be node or slot, not '$map_by'" ;; esac
case $spec in *[!0-9,]*|,*|*,|*,,*) die_usage "RANKS_PER_HOST must be a comma list of counts, not '$spec'" ;; esac
IFS=, read -r -a counts <<<"$spec"
nhosts=${#counts[@]}
[ "$nhosts" -le 250 ] || die_usage "at most 250 hosts"
np=0
for c in "${counts[@]}"; do
    [ "$c" -ge 1 ] 2>/dev/null || die_usage "every host needs at least 1 rank ('$spec')"
    np=$((np + c))
done

# ---- Can the bed run here? ----------------------------------------------
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces)"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) not found"
ip netns list >/dev/null 2>&1 || skip "this ip has no 'ip netns'"
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) not found"
mpirun_path=$(command -v "$mpirun" 2>/dev/null) || skip "MPI launcher '$mpirun' not found (set MPIRUN_OMPI or --mpirun)"
# Open MPI's orterun says "mpirun (Open MPI) 4.1.4" or "mpiexec (OpenRTE) ...";
# MPICH's hydra says "HYDRA build details".
"$mpirun_path" --version 2>/dev/null | grep -Eq 'Open MPI|OpenRTE' ||
    skip "'$mpirun_path' is not Open MPI's mpirun (the bed needs Open MPI; set MPIRUN_OMPI or --mpirun)"

# ---- Names, teardown ----------------------------------------------------
prefix=aipbed$$-
brns=${prefix}br
hosts=()
for ((i = 1; i <= nhosts; i++)); do hosts+=("${prefix}h$i"); done
tmp=""
child=""

# Kill what still runs in a namespace (orted, ranks: only processes this bed
# started, found by namespace), then delete it.
ns_remove() {
    local ns=$1 pids
    # shellcheck disable=SC2086 # $pids: one word per process
    [ -e "/run/netns/$ns" ] || return 0
    pids=$(ip netns pids "$ns" 2>/dev/null)
    if [ -n "$pids" ]; then
        kill -TERM $pids 2>/dev/null
        sleep 0.2
        pids=$(ip netns pids "$ns" 2>/dev/null)
        [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
    fi
    ip netns del "$ns" 2>/dev/null
}

teardown() {
    local ns
    trap '' INT TERM HUP
    if [ -n "$child" ]; then
        kill -TERM "$child" 2>/dev/null
        wait "$child" 2>/dev/null
    fi
    for ns in "${hosts[@]}" "$brns"; do ns_remove "$ns"; done
    # vader's segments are named after the host; killed ranks leave them.
    rm -f /dev/shm/*"$prefix"* 2>/dev/null
    [ -z "$tmp" ] || rm -rf "$tmp"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# Leftovers of runs that died without teardown (kill -9, power loss): only
# names of this bed whose owner process is gone.  Our own names may exist
# if a dead run had our PID.
for f in /run/netns/aipbed*-*; do
    [ -e "$f" ] || continue
    ns=${f##*/}
    owner=${ns#aipbed}; owner=${owner%%-*}
    case $owner in ''|*[!0-9]*) continue ;; esac
    if [ "$owner" = $$ ] || ! kill -0 "$owner" 2>/dev/null; then
        say "removing stale namespace $ns"
        ns_remove "$ns"
        rm -f /dev/shm/*"aipbed$owner-"* 2>/dev/null
    fi
done

# ---- Setup --------------------------------------------------------------
tmp=$(mktemp -d "${TMPDIR:-/tmp}/${prefix}XXXXXX") || skip "cannot make a temp dir"
t0=$(now_ms)
ip netns add "$brns" 2>"$tmp/err" || skip "cannot create a network namespace: $(cat "$tmp/err")"
# One `ip -batch` per namespace: fewer processes, a faster setup.
# addrgenmode none: no IPv6 link-local addresses, so the subnet is the only
# address MPI finds on the veths and no neighbour discovery chatter adds to
# their byte counts.
{
    echo "link set lo up"
    echo "link add br0 type bridge"
    echo "link set br0 addrgenmode none"
    echo "link set br0 up"
} | ip -n "$brns" -batch - 2>"$tmp/err" || skip "cannot create the bridge: $(cat "$tmp/err")"
for ((i = 1; i <= nhosts; i++)); do
    ns=${hosts[i - 1]}
    ip netns add "$ns" 2>"$tmp/err" || skip "cannot create namespace $ns: $(cat "$tmp/err")"
    {
        echo "link add h$i type veth peer name eth0 netns $ns"
        echo "link set h$i master br0"
        echo "link set h$i addrgenmode none"
        echo "link set h$i up"
    } | ip -n "$brns" -batch - 2>"$tmp/err" || skip "cannot create the veth pair of $ns: $(cat "$tmp/err")"
    {
        echo "link set lo up"
        echo "addr add $subnet.$i/24 dev eth0"
        echo "link set eth0 addrgenmode none"
        echo "link set eth0 up"
    } | ip -n "$ns" -batch - 2>"$tmp/err" || skip "cannot configure $ns: $(cat "$tmp/err")"
done
t1=$(now_ms)
say "setup of $nhosts hosts + bridge: $((t1 - t0)) ms"

# The hostfile: slots = the ranks of each host; max_slots so that no
# placement (--map-by node with uneven hosts) oversubscribes one.
for ((i = 1; i <= nhosts; i++)); do
    c=${counts[i - 1]}
    echo "${hosts[i - 1]} slots=$c max_slots=$c"
done >"$tmp/hostfile"

# The rsh agent Open MPI calls as `agent HOST COMMAND...` for each remote
# daemon: like ssh, it runs COMMAND with a shell, but in HOST's namespace
# under HOST's hostname.  Hosts not of this bed are refused.
# shellcheck disable=SC2016 # the agent's own $1, $host, ...
{
    echo '#!/bin/sh'
    echo "# rsh agent of $prog run $$ (generated)"
    echo 'host=$1; shift'
    echo 'case $host in'
    echo "$(IFS='|'; echo "${hosts[*]}")) ;;"
    echo '*) echo "netns agent: unknown host $host" >&2; exit 255 ;;'
    echo 'esac'
    echo 'exec ip netns exec "$host" unshare --uts sh -c '\''hostname "$0" && eval "$1"'\'' "$host" "$*"'
} >"$tmp/agent"
chmod +x "$tmp/agent"

# ---- Run ----------------------------------------------------------------
# bind-to none: every host sees (and shares) all cores of this machine.
# no_tree_spawn: mpirun starts every daemon itself through the agent.
xenv=()
while IFS= read -r v; do xenv+=(-x "$v"); done < <(compgen -e | grep '^AIP_' || true)
# shellcheck disable=SC2054 # self,vader,tcp is one argument
cmd=("$mpirun_path" -np "$np" --hostfile "$tmp/hostfile" --map-by "$map_by" --bind-to none
     --mca plm_rsh_agent "$tmp/agent" --mca plm_rsh_no_tree_spawn 1
     --mca btl self,vader,tcp
     --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24"
     "${xenv[@]}" "$@")
say "hostfile: $(tr '\n' ' ' <"$tmp/hostfile")"
say "in ${hosts[0]}: ${cmd[*]}"

# Bytes through the bridge side of each host's veth (before/after).
veth_bytes() {
    local i
    for ((i = 1; i <= nhosts; i++)); do
        ip -n "$brns" -s link show dev "h$i" |
            awk '/RX:/ { getline; rx = $1 } /TX:/ { getline; tx = $1 } END { print rx + tx }'
    done
}
[ "$verbose" = 1 ] && mapfile -t before < <(veth_bytes)

limit=${AIP_TEST_TIMEOUT:-300}
# In the background, so that a signal runs the trap at once (bash runs
# traps only between foreground commands).  TMPDIR: Open MPI's session
# directories go into our temp dir and leave with it.
TMPDIR=$tmp OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    timeout -k 10 "$limit" ip netns exec "${hosts[0]}" unshare --uts \
    sh -c 'hostname "$0" && exec "$@"' "${hosts[0]}" "${cmd[@]}" &
child=$!
wait "$child"
rc=$?
child=""
[ "$rc" -ne 124 ] || echo "$prog: mpirun ran past AIP_TEST_TIMEOUT=$limit s, killed" >&2

if [ "$verbose" = 1 ]; then
    mapfile -t after < <(veth_bytes)
    for ((i = 1; i <= nhosts; i++)); do
        say "host $i (${hosts[i - 1]}, ${counts[i - 1]} ranks): $((after[i - 1] - before[i - 1])) bytes through its veth"
    done
fi
t2=$(now_ms)
teardown
trap - EXIT
say "run $((t2 - t1)) ms, teardown $(($(now_ms) - t2)) ms, exit $rc"
exit "$rc"
