#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's test command in a source tarball (`git archive HEAD | tar -x`, no .git): the scripts
# find their files with scripts/list-sources.sh, which then uses find instead of git. This unpacks
# HEAD (with the working tree's list-sources.sh), lists every glob set the scripts use there, and
# compares each with what git lists for HEAD; then runs check-spdx.sh in the tarball. Skipped (77)
# when the source tree is itself not a git checkout.
#   tests/scripts/sources-without-git.sh SOURCE_DIR
set -euo pipefail
src="$(cd "${1:?usage: sources-without-git.sh SOURCE_DIR}" && pwd)"
if ! command -v git >/dev/null || [[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null || true)" != "$src" ]]; then
  echo "not a git checkout: $src (nothing to compare with)"
  exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
git -C "$src" archive HEAD | tar -x -C "$tmp"
cp "$src/scripts/list-sources.sh" "$tmp/scripts/list-sources.sh"
# HEAD's file list through a scratch index, so that staged or untracked files do not count.
export GIT_INDEX_FILE="$tmp.index"
trap 'rm -rf "$tmp" "$tmp.index"' EXIT
git -C "$src" read-tree HEAD

# The glob sets of check-format.sh, check-spdx.sh and check-tidy.sh.
sets=(
  "**/*.cpp|**/*.h|**/*.cu"
  "**/*.cpp|**/*.h|**/*.cu|**/*.sh|**/*.cmake|**/CMakeLists.txt|CMakeLists.txt|.ci/run"
  "core/*.cpp|core/schedule/*.cpp|core/search/*.cpp|core/validation/*.cpp|core/io/*.cpp"
)
status=0
for set in "${sets[@]}"; do
  IFS='|' read -r -a globs <<<"$set"
  specs=()
  for g in "${globs[@]}"; do specs+=(":(glob)$g"); done
  git -C "$src" ls-files -- "${specs[@]}" | sort -u >"$tmp.git"
  # No git above the tarball either: GIT_CEILING_DIRECTORIES stops the search at its parent.
  rc=0
  (cd "$tmp" && GIT_CEILING_DIRECTORIES="$(dirname "$tmp")" bash scripts/list-sources.sh "${globs[@]}") >"$tmp.tar" \
    || rc=$?
  if [[ $rc -ne 0 ]]; then
    echo "list-sources.sh without .git failed (exit status $rc) for: ${globs[*]}"
    status=1
  fi
  sort -u -o "$tmp.tar" "$tmp.tar"
  if ! diff -u "$tmp.git" "$tmp.tar" >"$tmp.diff"; then
    echo "list-sources.sh without .git differs from git ls-files for: ${globs[*]}"
    cat "$tmp.diff"
    status=1
  else
    echo "same $(wc -l <"$tmp.git") files without .git: ${globs[*]}"
  fi
  rm -f "$tmp.git" "$tmp.tar" "$tmp.diff"
done
(cd "$tmp" && GIT_CEILING_DIRECTORIES="$(dirname "$tmp")" bash scripts/check-spdx.sh) || status=1
exit $status
