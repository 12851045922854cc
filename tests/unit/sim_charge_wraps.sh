#!/bin/sh
# sim_charge_wraps.sh - the SMPI harness's wrappers and the one list of
# link flags that installs them agree (no SimGrid needed).
#
# bench/smpi/sim_charge.c replaces functions by defining __wrap_NAME (and
# calls the original as __real_NAME); only a link with --wrap=NAME makes
# the program call it.  Both harnesses (bench/fftw_smpi.sh,
# bench/cpmd_figures.sh) link with bench/smpi/sim_charge.ldflags.  A wrapper
# missing there is never called, or leaves __real_NAME undefined: that is
# how cpmd_figures.sh, with its own shorter list, stopped linking once the
# permutations were wrapped.  A --wrap there without its wrapper fails
# every link.  So each list must be the other.
set -u
here=$(cd "$(dirname "$0")" && pwd)
smpi=$(cd "$here/../../bench/smpi" && pwd)

defined=$(sed -n 's/^[a-z].*[ *]__wrap_\([A-Za-z0-9_]*\)(.*/\1/p' "$smpi/sim_charge.c" | sort -u)
listed=$(tr -s ', ' '\n' < "$smpi/sim_charge.ldflags" | sed -n 's/^.*--wrap=\([A-Za-z0-9_]*\)$/\1/p' |
             sort -u)
[ -n "$defined" ] || { echo "FAIL: no __wrap_ function found in sim_charge.c"; exit 1; }

status=0
for name in $defined; do
    echo "$listed" | grep -qx "$name" ||
        { echo "FAIL: sim_charge.c defines __wrap_$name, sim_charge.ldflags does not wrap it"; status=1; }
done
for name in $listed; do
    echo "$defined" | grep -qx "$name" ||
        { echo "FAIL: sim_charge.ldflags wraps $name, sim_charge.c has no __wrap_$name"; status=1; }
done
[ "$status" = 0 ] && echo "PASS: $(echo "$defined" | wc -l) wrappers, each linked by sim_charge.ldflags"
exit "$status"
