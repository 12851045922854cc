# plans.awk - the plan of each problem of an mpi-bench -v2 --verify run, for
# the scripts that check which solvers planned what (fftw_verify.sh,
# fftw_pipelined.sh).  Its input is the script's list of problems (the
# first field of each line that has one), the variable `out` names
# mpi-bench's output, `np` its rank count and `status` its exit status.
# The output is split at each problem's verify line ("PROBLEM err err
# err"): the lines since the previous one are its plan, and
# check(k, plan), which the script appends to this program with its own
# rules for the list's other columns, judges problem k.  A problem with no
# verify line fails.
NF { n++; prob[n] = $1 }
END {
    k = 1; plan = ""
    while ((getline line < out) > 0) {
        split(line, f, " ")
        if (k <= n && f[1] == prob[k] && f[2] ~ /^[0-9.e+-]+$/) {
            check(k, plan); k++; plan = ""
        } else plan = plan "\n" line
    }
    for (; k <= n; k++)
        printf "FAIL np=%d %s: no verify result (mpi-bench exit %d)\n",
               np, prob[k], status
}
