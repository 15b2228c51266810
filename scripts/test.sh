#!/usr/bin/env bash
# The test command: installs what is missing, builds everything that this machine can build
# (core, CLI, Qt UI, the CUDA probe when nvcc is found, benchmarks), runs every test (core,
# validation, CLI goldens, UI under the offscreen platform, renders, probe's non-GPU paths),
# checks formatting and clang-tidy, then builds and tests once more with every optional part off.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PARALLAX_BUILD_DIR:-$repo/build}"
minimal="${build}-minimal"
jobs="$(nproc)"

bash "$repo/scripts/install-deps.sh"
export PATH="$PATH:/usr/local/cuda/bin"

echo "== format check (clang-format, .clang-format)"
bash "$repo/scripts/check-format.sh"

echo "== full build in $build"
bash "$repo/scripts/build.sh"
echo "== clang-tidy over core/ (.clang-tidy)"
bash "$repo/scripts/check-tidy.sh" "$build"
echo "== tests"
QT_QPA_PLATFORM=offscreen ctest --test-dir "$build" --output-on-failure -j "$jobs"

echo "== minimal build (UI, probe and benchmarks off) in $minimal"
cmake -S "$repo" -B "$minimal" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPARALLAX_BUILD_UI=OFF -DPARALLAX_BUILD_PROBE=OFF -DPARALLAX_BUILD_BENCHMARKS=OFF
cmake --build "$minimal" -j "$jobs"
ctest --test-dir "$minimal" --output-on-failure -j "$jobs"
