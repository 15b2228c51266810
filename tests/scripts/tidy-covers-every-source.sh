#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/check-tidy.sh checks every engine source: each core/ source (less core/probe/) gets the checks
# exactly once, either inside one unity batch or on its own, and each batched source but the first of its
# batch is also parsed on its own exactly once (so that a source leaning on its batch neighbours' includes
# still fails; the first has none before it). In a
# unity build at least one batch must be used, else the check silently takes five times the CPU.
# Reads the plan (`check-tidy.sh --plan`) of this build folder; skipped (77) without compile_commands.json.
#   tests/scripts/tidy-covers-every-source.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src="$(cd "${1:?usage: tidy-covers-every-source.sh SOURCE_DIR BUILD_DIR}" && pwd)"
build="$(cd "${2:?usage: tidy-covers-every-source.sh SOURCE_DIR BUILD_DIR}" && pwd)"
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "no compile_commands.json in $build"
  exit 77
fi
plan="$(bash "$src/scripts/check-tidy.sh" --plan "$build")"
mapfile -t sources < <(cd "$src" && bash scripts/list-sources.sh 'core/**/*.cpp' 'core/*.cpp' | grep -v '^core/probe/')

declare -A checked=() parsed=() first=()
batches=0
while IFS=$'\t' read -r kind file; do
  case "$kind" in
    batch)
      batches=$((batches + 1))
      first["$(sed -n 's/^#include "\(.*\)"$/\1/p' "$file" | head -n 1)"]=1
      while IFS= read -r inc; do checked["$inc"]=$((${checked["$inc"]:-0} + 1)); done \
        < <(sed -n 's/^#include "\(.*\)"$/\1/p' "$file")
      ;;
    alone) checked["$file"]=$((${checked["$file"]:-0} + 1)) ;;
    parse) parsed["$file"]=$((${parsed["$file"]:-0} + 1)) ;;
    *)
      echo "unknown plan line: $kind $file"
      exit 1
      ;;
  esac
done <<<"$plan"

failures=0
batched=0
for f in "${sources[@]}"; do
  path="$src/$f"
  if [[ "${checked[$path]:-0}" -ne 1 ]]; then
    echo "$f: checked ${checked[$path]:-0} times (want 1)"
    failures=$((failures + 1))
  fi
  alone_lines="$(grep -c "^alone	$path\$" <<<"$plan" || true)"
  want_parse=$((alone_lines == 0 && ${first[$path]:-0} == 0 ? 1 : 0))
  [[ $alone_lines -eq 0 ]] && batched=$((batched + 1))
  if [[ "${parsed[$path]:-0}" -ne $want_parse ]]; then
    echo "$f: parsed on its own ${parsed[$path]:-0} times (want $want_parse)"
    failures=$((failures + 1))
  fi
done
if grep -q '^CMAKE_UNITY_BUILD:BOOL=ON$' "$build/CMakeCache.txt" 2>/dev/null && [[ $batches -eq 0 ]]; then
  echo "a unity build, but check-tidy.sh uses none of its batches"
  failures=$((failures + 1))
fi
echo "${#sources[@]} sources: $batched in $batches batches, $((${#sources[@]} - batched)) on their own; $failures failures"
[[ $failures -eq 0 ]]
