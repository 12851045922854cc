#!/bin/sh
# install_simgrid.sh - install SimGrid's SMPI (libsimgrid-dev: smpicc,
# smpirun) and g++ (bench/smpi/platforms.cpp) with apt-get where missing.
# The rest of the project does not need them.
set -eu
missing=""
command -v smpicc >/dev/null && command -v smpirun >/dev/null || missing="libsimgrid-dev"
command -v g++ >/dev/null || missing="$missing g++"
[ -n "$missing" ] || exit 0
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "install_simgrid: installing$missing" >&2
$SUDO apt-get update -q
# shellcheck disable=SC2086 # a list of packages
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
