#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs what Parallax needs to build, test and run on Debian 12 (bookworm), from Debian's own
# packages. Safe to run again: it only calls apt-get when something is missing.
#   scripts/install-deps.sh            build + test + GUI dependencies
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  qt6-base-dev libqt6opengl6-dev qt6-charts-dev qt6-svg-dev qt6-qpa-plugins
  xvfb xauth fonts-dejavu-core
  clang-format clang-tidy
  clang libclang-rt-14-dev   # libFuzzer + sanitizer runtimes for the fuzz targets (scripts/fuzz.sh)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages are present"
  exit 0
fi

as_root=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "install-deps: missing packages (${missing[*]}) and not root; run this script as root" >&2
    exit 1
  fi
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
