#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Prints the repository's files matching the given globs (git pathspec syntax: 'core/*.cpp'
# matches core/ only, ':(glob)' is added), one per line, relative to the repository root. Uses
# git when the root is a git checkout of its own, else find (a source tarball: `git archive HEAD |
# tar -x` has no .git, and one unpacked inside another repository must not list that one's files).
#   scripts/list-sources.sh 'core/*.cpp' 'core/schedule/*.cpp' '**/*.h'
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
top="$(git rev-parse --show-toplevel 2>/dev/null || true)"
if [[ -n "$top" && "$(cd "$top" && pwd -P)" == "$(pwd -P)" ]]; then
  specs=()
  for g in "$@"; do specs+=(":(glob)$g"); done
  git ls-files -- "${specs[@]}"
  exit 0
fi
# find: the same globs, '**/' meaning any depth; build folders and hidden folders are not sources.
for g in "$@"; do
  dir="${g%%[*?]*}"; dir="${dir%/*}"
  [[ "$g" == */* ]] || dir="."
  [[ -d "${dir:-.}" ]] || continue
  find "${dir:-.}" \( -path './build*' -o -path '*/.*' \) -prune -o -type f -print | sed 's|^\./||' |
    while IFS= read -r f; do
      # shellcheck disable=SC2053
      pattern="${g//\*\*\//*}"
      if [[ "$g" == *'**/'* ]]; then [[ "$f" == $pattern ]] && echo "$f"
      else
        # a single '*' does not cross '/'
        [[ "$f" == $g && "${f//[^\/]/}" == "${g//[^\/]/}" ]] && echo "$f"
      fi
    done
done | sort -u
