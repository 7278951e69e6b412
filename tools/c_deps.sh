#!/bin/sh
# The C build requirements of libtl_runtime (make install), checked and installed without Python.
#
#     sh tools/c_deps.sh [--print-missing]
#
# Each requirement is checked on its own: the commands cc, make, ar, install and pkg-config on PATH,
# and the pkg-config modules libarchive, jansson and libcrypto (with dpkg-query's view of their
# Debian -dev packages when pkg-config itself is missing). The Debian packages of the missing ones
# are installed with one apt-get update and one apt-get install (through sudo unless root), then
# everything is checked again; exit status 1 names what is still missing. Nothing runs when nothing
# is missing. --print-missing prints the missing packages, one a line, and installs nothing.
# (tools/deps.py is the same for the whole project; this one serves hosts without Python.)
set -u

missing=""
want() {  # want PACKAGE: remember a missing Debian package once
  case " $missing " in *" $1 "*) ;; *) missing="${missing:+$missing }$1" ;; esac
}

check() {
  missing=""
  for pair in cc=gcc make=make ar=binutils install=coreutils pkg-config=pkg-config; do
    command -v "${pair%%=*}" >/dev/null 2>&1 || want "${pair#*=}"
  done
  for pair in libarchive=libarchive-dev jansson=libjansson-dev libcrypto=libssl-dev; do
    mod=${pair%%=*}
    pkg=${pair#*=}
    if command -v pkg-config >/dev/null 2>&1; then
      pkg-config --exists "$mod" || want "$pkg"
    elif ! dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null | grep -q '^ii'; then
      want "$pkg"
    fi
  done
}

check
if [ "${1:-}" = "--print-missing" ]; then
  [ -n "$missing" ] && printf '%s\n' $missing
  exit 0
elif [ -n "${1:-}" ]; then
  echo "c_deps.sh: unknown option $1 (expected --print-missing)" >&2
  exit 2
fi
[ -z "$missing" ] && exit 0

echo "c_deps.sh: installing the missing packages: $missing"
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
else
  sudo="sudo"
fi
# shellcheck disable=SC2086  # $missing is a list of package names
$sudo apt-get update -qq && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
check
if [ -n "$missing" ]; then
  echo "c_deps.sh: still missing after apt-get install: $missing" >&2
  exit 1
fi
exit 0
