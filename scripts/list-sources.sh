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
# find: the same globs as git's glob magic ('*' and '?' stay inside one folder, '**/' is any number
# of folders), over every file but the ignored ones (.gitignore: build folders, out/, caches) and .git.
listing="$(find . \( -path './build*' -o -path './out' -o -path './probe-out' -o -path './.git' -o -name .cache \) \
  -prune -o -type f ! -name compile_commands.json ! -name '*.user' -print | sed 's|^\./||')"
for g in "$@"; do
  re="$(printf '%s' "$g" | sed -e 's/[.+^$(){}|\\]/\\&/g' -e 's|\*\*/|\x01|g' -e 's|\*|[^/]*|g' -e 's|?|[^/]|g' \
    -e 's|\x01|(.*/)?|g')"
  grep -E "^${re}\$" <<<"$listing" || true
done | sort -u
