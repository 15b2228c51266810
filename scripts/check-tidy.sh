#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs clang-tidy (.clang-tidy) over the Qt-free engine, using the build's compile_commands.json. In a unity
# build (the asan presets) that file lists the batches, not the sources: clang-tidy then takes a source's
# command from its target's batch (the same flags) and parses the file on its own, so a source that leans on
# an include of its batch neighbours fails here.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$repo/build}"
cd "$repo"
# The engine's own sources; core/probe/ is CUDA-side code whose headers clang-tidy cannot see here.
# list-sources.sh works without .git too (a source tarball).
mapfile -t files < <(bash scripts/list-sources.sh 'core/**/*.cpp' 'core/*.cpp' | grep -v '^core/probe/')
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check-tidy: no sources found under core/" >&2
  exit 1
fi
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null
echo "check-tidy: ${#files[@]} files clean"
