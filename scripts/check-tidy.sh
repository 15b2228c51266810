#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy) over the Qt-free engine, using the build's compile_commands.json.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$repo/build}"
cd "$repo"
# The engine's own sources; core/probe/ is CUDA-side code whose headers clang-tidy cannot see here.
mapfile -t files < <(git ls-files ':(glob)core/*.cpp' ':(glob)core/schedule/*.cpp' ':(glob)core/search/*.cpp' ':(glob)core/validation/*.cpp')
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet 2>/dev/null
echo "check-tidy: ${#files[@]} files clean"
