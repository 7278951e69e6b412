#!/bin/bash
# tools/fresh_root_test.sh [REF | --base-only] - the README's `make test` in a fresh clone inside a fresh Debian 12
# (bookworm) root, as a new user would meet the project on a fresh machine (`make test-fresh-root`).
#
# The root holds only what a fresh machine of this kind has: the compilers (gcc, g++ and libc6-dev,
# without which they compile nothing), make, git, python3, python3-venv, python3-pip and
# ca-certificates, with no recommended packages (so no python3-dev: `make` must install it) and no
# cross tools, qemu, clang, llvm, pkg-config, libarchive or arm64 libraries. A fresh machine of this
# kind also carries PyTorch's CPU wheel on disk with a pip configuration pointing at it, and trusts
# its network's TLS proxy; the root mirrors that (and nothing else of this machine): it gets copies
# of /etc/xdg/pip (pip.conf and its constraints), /etc/pip.conf, root's ~/.config/pip/pip.conf, the
# PIP_* environment variables, the CA certificates under /usr/local/share/ca-certificates and
# /etc/resolv.conf, and read-only bind mounts of /opt/wheels, /opt/pypi and /opt/pypi-more (see
# `pip config list`). Everything else the run needs, `make test` installs itself with apt-get and pip.
#
# Steps: the base root is made once by mmdebstrap (debootstrap when mmdebstrap is missing) and kept
# as a tarball, keyed by the suite and package list, under $FRESH_ROOT_DIR (default
# /work/fresh-root; FRESH_ROOT_REBUILD=1 makes it again); each run unpacks a new copy of it into
# $FRESH_ROOT_DIR/roots/<time> (earlier runs' roots are removed first, unless still mounted), mounts
# /proc, /sys, /dev, /dev/pts and /dev/shm (unmounted on exit), clones this repository at REF
# (default HEAD) into /root/tl-compiler, runs `make test` (or `make $FRESH_ROOT_TARGET`, e.g.
# FRESH_ROOT_TARGET="fuzz FUZZ_SECONDS=20") there as root through chroot and logs to
# $FRESH_ROOT_DIR/logs/<time>.log. The exit status is make's; the last lines of the log are printed.
# Needs root and network access (Debian mirror; the riscv64 sysroot comes from Debian 13).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && git rev-parse --show-toplevel)
REF=${1:-HEAD}
WORK=${FRESH_ROOT_DIR:-/work/fresh-root}
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
PKGS="gcc g++ libc6-dev make git python3 python3-venv python3-pip ca-certificates"
TARGET=${FRESH_ROOT_TARGET:-test}

[ "$(id -u)" = 0 ] || { echo "fresh_root_test.sh: needs root (mount, chroot)" >&2; exit 1; }
case "$(realpath -m "$WORK")/" in "$(realpath "$REPO")"/*)
  echo "fresh_root_test.sh: FRESH_ROOT_DIR must lie outside the repository" >&2; exit 1 ;; esac
[ "$REF" = --base-only ] || COMMIT=$(git -C "$REPO" rev-parse --verify "$REF^{commit}")
mkdir -p "$WORK/logs"
KEY=$(echo "$SUITE $MIRROR $PKGS" | sha256sum | cut -c1-12)
BASE="$WORK/base-$SUITE-$KEY.tar"
STAMP=$(date -u +%Y%m%d-%H%M%S)
ROOT="$WORK/roots/$STAMP"
LOG="$WORK/logs/$STAMP.log"

make_base() {
  local tmp="${BASE%.tar}.part.tar"   # mmdebstrap picks the format from the name
  rm -rf "$tmp"
  if ! command -v mmdebstrap >/dev/null && ! command -v debootstrap >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap \
      || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap
  fi
  if command -v mmdebstrap >/dev/null; then
    # minbase: Essential and Priority required, as a Debian container image; no recommends while
    # making it (python3-pip recommends python3-dev), the root's apt keeps Debian's defaults after
    mmdebstrap --variant=minbase --include="${PKGS// /,}" --aptopt='APT::Install-Recommends "false"' \
      --customize-hook='rm -f "$1/etc/apt/apt.conf.d/99mmdebstrap"' \
      "$SUITE" "$tmp" "deb $MIRROR $SUITE main" "deb $MIRROR $SUITE-updates main" \
      "deb http://deb.debian.org/debian-security $SUITE-security main"
  else
    local d="$WORK/debootstrap.part"
    rm -rf "$d"
    debootstrap --variant=minbase --include="${PKGS// /,}" "$SUITE" "$d" "$MIRROR"
    tar -C "$d" -cf "$tmp" . && rm -rf "$d"
  fi
  mv "$tmp" "$BASE"
}

MOUNTS=()
cleanup() {
  local i
  for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTS[i]}" 2>/dev/null || true; done
}
trap cleanup EXIT INT TERM
bind() {   # bind SRC DEST [ro]
  mkdir -p "$2"
  mount --bind "$1" "$2"
  MOUNTS+=("$2")
  if [ "${3:-}" = ro ]; then mount -o remount,bind,ro "$2"; fi
}

{ [ -s "$BASE" ] && [ "${FRESH_ROOT_REBUILD:-0}" != 1 ]; } || { echo "making $BASE"; make_base; }
if [ "$REF" = --base-only ]; then echo "base root: $BASE"; exit 0; fi
remove_root() {   # never through a mount that is still there (/dev is bound read-write)
  if awk -v r="$(realpath "$1")/" '{ if (index($5 "/", r) == 1) found = 1 } END { exit !found }' \
       /proc/self/mountinfo; then
    echo "fresh_root_test.sh: leaving $1 (still mounted: another run?)" >&2
  else
    rm -rf --one-file-system "$1"
  fi
}
for old in "$WORK"/root "$WORK"/roots/*; do if [ -d "$old" ]; then remove_root "$old"; fi; done
mkdir -p "$ROOT"
tar -C "$ROOT" -xf "$BASE"
for p in python3-dev pkg-config clang llvm qemu-user gcc-aarch64-linux-gnu libarchive-dev; do
  if chroot "$ROOT" dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii'; then
    echo "fresh_root_test.sh: the base root already holds $p" >&2; exit 1
  fi
done

# what a fresh machine of this kind has besides the packages (see the top of this file)
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
for f in /etc/pip.conf /etc/xdg/pip /root/.config/pip/pip.conf /usr/local/share/ca-certificates; do
  if [ -e "$f" ]; then mkdir -p "$ROOT$(dirname "$f")" && cp -a "$f" "$ROOT$(dirname "$f")/"; fi
done
chroot "$ROOT" update-ca-certificates >/dev/null
mkdir -p "$ROOT/proc" "$ROOT/sys"
mount -t proc proc "$ROOT/proc" && MOUNTS+=("$ROOT/proc")
bind /sys "$ROOT/sys" ro
bind /dev "$ROOT/dev"
bind /dev/pts "$ROOT/dev/pts"
bind /dev/shm "$ROOT/dev/shm"
for d in /opt/wheels /opt/pypi /opt/pypi-more; do
  if [ -d "$d" ]; then bind "$d" "$ROOT$d" ro; fi
done

git clone -q --no-hardlinks "$REPO" "$ROOT/root/tl-compiler"
git -C "$ROOT/root/tl-compiler" checkout -q --detach "$COMMIT"
ENV=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb)
while IFS= read -r v; do ENV+=("$v"); done < <(env | grep '^PIP_' || true)

echo "fresh root $ROOT ($SUITE, base $BASE), clone of $COMMIT; make $TARGET; log $LOG"
t0=$(date +%s)
set +e
chroot "$ROOT" /usr/bin/env -i "${ENV[@]}" /bin/bash -c "cd /root/tl-compiler && make $TARGET" >"$LOG" 2>&1
rc=$?
set -e
t1=$(date +%s)
tail -n 40 "$LOG"
echo "fresh_root_test.sh: make $TARGET exited $rc after $(( (t1 - t0) / 60 )) min $(( (t1 - t0) % 60 )) s (commit $COMMIT, log $LOG)"
exit "$rc"
