#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets (clang, -fsanitize=fuzzer,address,undefined) and runs each for a
# given time on its corpus in tests/fuzz/corpus/<target>. New interesting inputs go to a scratch
# corpus in the build folder; a crash input is written beside it (crash-*) and the run stops with
# its report. Keep every crash input as a regression seed: copy it into
# tests/fuzz/corpus/<target>/regression-<what>, fix the defect, and the corpus replay in ctest
# keeps it fixed.
#   scripts/fuzz.sh [SECONDS per target, default 600] [target ...]
#   targets: scenario calibration published_runs cli_args launch_args hf_config training_log (default: all)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PARALLAX_FUZZ_BUILD_DIR:-$repo/build-fuzz}"
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(scenario calibration published_runs cli_args launch_args hf_config training_log)

declare -A binary=([scenario]=fuzz_Scenario [calibration]=fuzz_Calibration [published_runs]=fuzz_PublishedRuns
  [cli_args]=fuzz_CliArgs [launch_args]=fuzz_LaunchArgs [hf_config]=fuzz_HfConfig
  [training_log]=fuzz_TrainingLog)

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DPARALLAX_BUILD_FUZZERS=ON -DPARALLAX_BUILD_UI=OFF -DPARALLAX_BUILD_PROBE=OFF -DPARALLAX_BUILD_BENCHMARKS=OFF \
  >/dev/null
for t in "${targets[@]}"; do
  [ -n "${binary[$t]:-}" ] || { echo "fuzz.sh: unknown target $t (scenario calibration published_runs cli_args launch_args hf_config training_log)"; exit 2; }
  cmake --build "$build" -j "${PARALLAX_JOBS:-$(nproc)}" --target "${binary[$t]}"
done

status=0
for t in "${targets[@]}"; do
  work="$build/fuzz-work/$t"
  mkdir -p "$work/corpus"
  echo "== fuzz $t for ${seconds}s"
  # The CLI target opens the paths it is given relative to the source tree (presets/, tests/).
  (cd "$repo" && "$build/tests/fuzz/${binary[$t]}" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
    -max_len=262144 -artifact_prefix="$work/" -print_final_stats=1 "$work/corpus" "$repo/tests/fuzz/corpus/$t") \
    2>&1 | tee "$work/log.txt" | grep -E "^(#[0-9]+ +DONE|stat::|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)" \
    || true
  if ls "$work"/crash-* "$work"/leak-* "$work"/timeout-* "$work"/oom-* >/dev/null 2>&1; then
    echo "fuzz $t: findings in $work (see log.txt)"
    status=1
  fi
done
exit $status
