#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a C++ file differs from what clang-format (.clang-format) makes of it. The files go to
# clang-format in batches, one process per core (one process per file cost about a minute).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
mapfile -t files < <(bash scripts/list-sources.sh '**/*.cpp' '**/*.h' '**/*.cu')
existing=()
for f in "${files[@]}"; do
  [[ -f "$f" ]] && existing+=("$f")
done
# --dry-run --Werror: a file that would change is a "-Wclang-format-violations" error naming it.
report="$(printf '%s\0' "${existing[@]}" |
  xargs -0 -P "$(nproc)" -n 40 clang-format --style=file --dry-run --Werror 2>&1 >/dev/null || true)"
mapfile -t bad < <(grep -oE '^[^:[:space:]]+:[0-9]+:[0-9]+: error: code should be clang-formatted' <<<"$report" |
  cut -d: -f1 | sort -u)
if [[ ${#bad[@]} -ne 0 ]] || grep -q 'error' <<<"$report"; then
  for f in "${bad[@]}"; do
    echo "not formatted: $f (run: clang-format -i $f)"
  done
  [[ ${#bad[@]} -ne 0 ]] || echo "$report" >&2
  echo "check-format: run scripts/format.sh to fix" >&2
  exit 1
fi
echo "check-format: ${#existing[@]} files formatted"
