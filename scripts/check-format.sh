#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when a C++ file differs from what clang-format (.clang-format) makes of it.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
mapfile -t files < <(bash scripts/list-sources.sh '**/*.cpp' '**/*.h' '**/*.cu')
bad=0
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! clang-format --style=file "$f" | cmp -s - "$f"; then
    echo "not formatted: $f (run: clang-format -i $f)"
    bad=1
  fi
done
if [[ $bad -ne 0 ]]; then
  echo "check-format: run scripts/format.sh to fix" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
