#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs clang-tidy (.clang-tidy) over the Qt-free engine, using the build's compile_commands.json.
# In a unity build (the asan presets, the README's dev build) that file lists CMake's batches
# (Unity/unity_N_cxx.cxx, each #including up to eight sources) rather than the sources. A batch whose
# sources are all engine sources gets the checks as one translation unit: the heavy headers
# (nlohmann_json, the standard library) are parsed and matched once per batch instead of once per
# source (all of core/: 234 CPU-s against 1324 CPU-s source by source, stop 51). Its sources are then
# "headers" to clang-tidy, so the header filter takes core/*.cpp too, and bugprone-suspicious-include is
# off for the batch itself (CMake's #include of a .cpp is the batch). Each batched source but the first
# of its batch (which the batch parses with no neighbour before it) is then also parsed on its own with
# that one cheap check (about 2 s each), so that a source leaning on an include of its batch neighbours,
# or #including a .cpp, still fails here. A source in no such batch (a
# non-unity build, SKIP_UNITY_BUILD_INCLUSION) gets every check on its own.
#   scripts/check-tidy.sh [--plan] [BUILD]   (--plan: print the work, one "batch|alone|parse<TAB>file"
#   line each, and run nothing; tests/scripts/tidy-covers-every-source.sh checks it)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
plan=0
if [[ "${1:-}" == --plan ]]; then
  plan=1
  shift
fi
build="${1:-$repo/build}"
cd "$repo"
# The engine's own sources; core/probe/ is CUDA-side code whose headers clang-tidy cannot see here.
# list-sources.sh works without .git too (a source tarball).
mapfile -t files < <(bash scripts/list-sources.sh 'core/**/*.cpp' 'core/*.cpp' | grep -v '^core/probe/')
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check-tidy: no sources found under core/" >&2
  exit 1
fi
declare -A pending=() first_in_batch=()
for f in "${files[@]}"; do pending["$repo/$f"]=1; done

# The batches of compile_commands.json whose every #include is one of the engine's sources.
batches=()
while IFS= read -r batch; do
  [[ -f "$batch" ]] || continue
  mapfile -t included < <(sed -n 's/^#include "\(.*\)"$/\1/p' "$batch")
  [[ ${#included[@]} -gt 0 ]] || continue
  ours=1
  for src in "${included[@]}"; do [[ -n "${pending[$src]:-}" ]] || ours=0; done
  [[ $ours -eq 1 ]] || continue
  batches+=("$batch")
  for src in "${included[@]}"; do unset "pending[$src]"; done
  # The batch's first source is parsed with no neighbour before it: the batch itself checks it.
  first_in_batch["${included[0]}"]=1
done < <(sed -n 's/^ *"file": "\(.*\/Unity\/unity_[0-9]*_cxx\.cxx\)",\{0,1\}$/\1/p' "$build/compile_commands.json" | sort -u)
alone=("${!pending[@]}")

work="$(
  for b in "${batches[@]}"; do printf 'batch\t%s\n' "$b"; done
  for f in "${alone[@]}"; do printf 'alone\t%s\n' "$f"; done
  for f in "${files[@]}"; do
    [[ -n "${pending[$repo/$f]:-}" || -n "${first_in_batch[$repo/$f]:-}" ]] || printf 'parse\t%s\n' "$repo/$f"
  done
)"
if [[ $plan -eq 1 ]]; then
  printf '%s\n' "$work"
  exit 0
fi
header_filter='(core)/.*\.(h|cpp)$'
printf '%s\n' "$work" | xargs -P "$(nproc)" -d '\n' -n 1 bash -c '
  kind="${2%%	*}"; file="${2#*	}"
  case "$kind" in
    batch) exec clang-tidy -p "$0" --quiet --header-filter="$1" --checks=-bugprone-suspicious-include "$file" 2>/dev/null ;;
    parse) exec clang-tidy -p "$0" --quiet --checks="-*,bugprone-suspicious-include" "$file" 2>/dev/null ;;
    *) exec clang-tidy -p "$0" --quiet "$file" 2>/dev/null ;;
  esac
' "$build" "$header_filter"
echo "check-tidy: ${#files[@]} files clean ($((${#files[@]} - ${#alone[@]})) in ${#batches[@]} unity batches, ${#alone[@]} on their own)"
