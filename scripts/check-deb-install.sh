#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the .deb and installs it with apt-get in a fresh Debian 12 root made by debootstrap, then
# runs `parallax-cli presets` and `parallax --version` from the installed package. Needs root,
# network access to the Debian mirror and debootstrap (apt-get install debootstrap).
#   scripts/check-deb-install.sh [ROOT]      ROOT defaults to /tmp/parallax-deb-root (reused if present)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PARALLAX_BUILD_DIR:-$repo/build}"
root="${1:-/tmp/parallax-deb-root}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

(cd "$build" && cpack -G DEB)
deb="$(ls -t "$build"/parallax_*_amd64.deb | head -n 1)"
if [[ ! -x "$root/usr/bin/apt-get" ]]; then
  debootstrap --variant=minbase bookworm "$root" "$mirror"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
trap 'umount "$root/proc" 2>/dev/null || true' EXIT
cp "$deb" "$root/tmp/"
chroot "$root" /bin/bash -ec "
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq /tmp/$(basename "$deb") >/dev/null
  parallax-cli presets | head -n 5
  parallax --version
  QT_QPA_PLATFORM=offscreen parallax --screenshot /tmp/installed.png --size 1280x800
  ls -la /tmp/installed.png
"
echo "check-deb-install: $(basename "$deb") installs and runs in $root"
