#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Configures and builds Parallax in build/ (RelWithDebInfo). Extra arguments go to the configure step.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PARALLAX_BUILD_DIR:-$repo/build}"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build "$build" -j "$(nproc)"
