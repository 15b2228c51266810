#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The newcomer's first command: installs what is missing, builds, and launches the desktop app
# with the default scenario (Llama 3 70B on 64 H100). Arguments are passed to the app, e.g. a
# scenario file. Without a display it starts under Xvfb when available, else the CLI report is printed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PARALLAX_BUILD_DIR:-$repo/build}"
bash "$repo/scripts/install-deps.sh"
# A unity build (CMake batches a target's files into one translation unit): a shorter first build, since the
# JSON and standard-library templates each file instantiates are compiled once per batch, not once per file.
bash "$repo/scripts/build.sh" -DPARALLAX_BUILD_BENCHMARKS=OFF -DCMAKE_UNITY_BUILD=ON
gui="$build/app/parallax"
if [[ -x "$gui" ]]; then
  if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" || -n "${QT_QPA_PLATFORM:-}" ]]; then
    exec "$gui" "$@"
  fi
  echo "run: no display found; starting the app under Xvfb (set DISPLAY to use your own)" >&2
  exec xvfb-run -a -s "-screen 0 1600x1000x24" "$gui" "$@"
fi
exec "$build/app/parallax-cli" evaluate "$@"
