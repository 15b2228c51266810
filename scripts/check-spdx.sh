#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks that every source, header, CMake and shell file names its license (Apache-2.0, LICENSE) in an
# SPDX line near its top.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
mapfile -t files < <(bash scripts/list-sources.sh '**/*.cpp' '**/*.h' '**/*.cu' '**/*.sh' '**/*.cmake' \
  '**/CMakeLists.txt' 'CMakeLists.txt' '.ci/run' | grep -v '^tests/fuzz/corpus/' || true)
missing=0
for f in "${files[@]}"; do
  if ! head -n 3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
    echo "no SPDX line: $f (add: SPDX-License-Identifier: Apache-2.0)" >&2
    missing=$((missing + 1))
  fi
done
if [[ $missing -gt 0 ]]; then
  echo "check-spdx: $missing files without an SPDX line" >&2
  exit 1
fi
echo "check-spdx: ${#files[@]} files carry the Apache-2.0 SPDX line"
