#!/bin/sh
# riscv64_sysroot.sh DEST - a riscv64 sysroot with Debian 13 (trixie) riscv64 libraries, so the
# cross-test driver (tests/cross/tl_run.c) opens .tlpkg packages on riscv64 as it does on aarch64.
#
# Debian 12 (bookworm) has no riscv64 architecture, so its multiarch cannot provide riscv64
# libarchive/jansson/libcrypto; Debian 13 has riscv64 as an official architecture. apt-get, with a
# private state and source list under DEST/apt (the machine's apt configuration is not changed),
# downloads the packages below from trixie and verifies them (InRelease signed by the Debian archive
# key of debian-archive-keyring, Packages index hash, then each .deb's SHA-256 against the index);
# dpkg -x unpacks them into DEST/root (lib -> usr/lib, as on a merged-/usr system).
# The driver is linked against DEST/root: trixie's glibc (dynamic; run with qemu-riscv64 -L
# DEST/root) and the static libarchive, jansson, libcrypto and the compressors libarchive's zip
# reader uses (static glibc 2.41 crashes bookworm's binutils 2.40 ld, the dynamic one does not).
# DEST/root/VERSIONS lists the unpacked packages and versions (the Makefile's stamp). Re-running
# replaces DEST.
set -eu
DEST=${1:?usage: riscv64_sysroot.sh DEST}
case "$DEST" in /*) ;; *) DEST="$(pwd)/$DEST" ;; esac     # apt reads relative Dir:: paths under /etc/apt
SUITE=${TRIXIE_SUITE:-trixie}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
PKGS="libc6 libc6-dev linux-libc-dev libgcc-s1 libarchive-dev libjansson-dev libssl-dev
      zlib1g-dev libbz2-dev liblzma-dev libzstd-dev nettle-dev"

for tool in apt-get dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "riscv64_sysroot.sh: needs $tool (a Debian system)" >&2; exit 1; }
done
[ -r "$KEYRING" ] || { echo "riscv64_sysroot.sh: needs $KEYRING (apt-get install debian-archive-keyring)" >&2; exit 1; }

rm -rf "$DEST"
A="$DEST/apt"
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/debs" "$A/etc/sources.list.d" "$A/etc/preferences.d"
: > "$A/status"
echo "deb [arch=riscv64 signed-by=$KEYRING] $MIRROR $SUITE main" > "$A/etc/sources.list"
APT="apt-get -q -o Dir::Etc::SourceList=$A/etc/sources.list -o Dir::Etc::SourceParts=$A/etc/sources.list.d
  -o Dir::Etc::Preferences=$A/etc/preferences -o Dir::Etc::PreferencesParts=$A/etc/preferences.d
  -o Dir::State::Lists=$A/lists -o Dir::State::status=$A/status -o Dir::Cache=$A/cache
  -o APT::Architecture=riscv64 -o APT::Architectures::=riscv64 -o Debug::NoLocking=1
  -o APT::Sandbox::User=$(id -un)"
$APT update
# shellcheck disable=SC2086
(cd "$A/debs" && $APT download $PKGS)

R="$DEST/root"
mkdir -p "$R/usr/lib"
ln -s usr/lib "$R/lib"
for deb in "$A"/debs/*.deb; do
  dpkg-deb -x "$deb" "$R"
  dpkg-deb --show --showformat='${Package} ${Version}\n' "$deb" >> "$R/VERSIONS"
done
for f in crt1.o libc.so libarchive.a libjansson.a libcrypto.a ld-linux-riscv64-lp64d.so.1; do
  [ -e "$R/usr/lib/riscv64-linux-gnu/$f" ] || [ -e "$R/usr/lib/$f" ] \
    || { echo "riscv64_sysroot.sh: $f missing from the unpacked packages" >&2; exit 1; }
done
rm -rf "$A"     # the index and the .debs (about 40 MB); VERSIONS keeps what was unpacked
echo "riscv64 sysroot ($SUITE): $R"
sed 's/^/  /' "$R/VERSIONS"
