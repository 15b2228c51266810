#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Formats every tracked C++ file in place with clang-format (.clang-format).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/list-sources.sh '**/*.cpp' '**/*.h' '**/*.cu' | xargs -r clang-format -i --style=file
