#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The test command: installs what is missing, checks formatting and license lines, then builds and
# tests everything under ASan + UBSan (CMakePresets.json; a unity build, about 40% less compile time),
# each test once, in one build folder:
#   1. the minimal configuration (asan-minimal: every optional part off, STYLE.md): core, CLI and their
#      tests (core, validation, CLI goldens without the renderer, fuzz corpus replays, scripts);
#   2. the same folder reconfigured with everything this machine can build (asan: the Qt UI, the CUDA
#      probe when nvcc is found, benchmarks), built incrementally (core and its tests are not compiled
#      again): the UI tests (offscreen), renders, the probe's non-GPU paths, the CLI goldens of the export
#      and schedule commands again, now with the renderer (ctest label cli-render), and each benchmark
#      smoke-run once;
#   3. clang-tidy over core/ with that folder's compile_commands.json, started in the background at the
#      lowest priority once the folder is configured; the last stage waits for it.
# The first sanitizer report fails the run. Each stage prints its wall time; a summary closes the run.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${PARALLAX_BUILD_DIR:-$repo/build}"
asan="${build}-asan"
jobs="$(nproc)"

stage_names=()
stage_seconds=()
stage_name=""
stage_start=$SECONDS
run_start=$SECONDS
end_stage() {
  if [[ -n "$stage_name" ]]; then
    stage_names+=("$stage_name")
    stage_seconds+=($((SECONDS - stage_start)))
    echo "== done: $stage_name ($((SECONDS - stage_start)) s)"
  fi
}
stage() {
  end_stage
  stage_name="$1"
  stage_start=$SECONDS
  echo "== $stage_name ($(date -u +%H:%M:%S) UTC)"
}
summary() {
  end_stage
  stage_name=""
  echo "== stage times"
  for i in "${!stage_names[@]}"; do
    printf '%6d s  %s\n' "${stage_seconds[$i]}" "${stage_names[$i]}"
  done
  printf '%6d s  total\n' $((SECONDS - run_start))
}
tidy_pid=""
trap 'rc=$?; [[ -n "$tidy_pid" ]] && kill -- "-$tidy_pid" 2>/dev/null; [[ $rc -ne 0 ]] && { summary; echo "== FAILED in: ${stage_names[-1]:-setup} (exit $rc)"; }' EXIT

stage "dependencies (scripts/install-deps.sh)"
bash "$repo/scripts/install-deps.sh"
export PATH="$PATH:/usr/local/cuda/bin"

stage "format check (clang-format, .clang-format) and license lines (SPDX)"
bash "$repo/scripts/check-format.sh"
bash "$repo/scripts/check-spdx.sh"

# The sanitizers' settings of the asan test preset (CMakePresets.json), for ctest and the benchmarks.
export QT_QPA_PLATFORM=offscreen
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$repo/tests/sanitizer/lsan.supp:print_suppressions=0"

stage "minimal configuration under ASan + UBSan (preset asan-minimal: UI, probe, benchmarks off) in $asan"
cmake --preset asan-minimal -S "$repo" -B "$asan"
# clang-tidy parses the sources itself and needs only compile_commands.json (core/ has no generated
# files), so it runs from here on at the lowest priority, in the cores the builds and tests leave idle
# (link steps, single-threaded tests and benchmarks); the last stage waits for it and fails on its result.
tidy_log="$asan/check-tidy.log"
# setsid gives it a session, and so a scheduling autogroup, of its own (sched(7), "The autogroup feature"):
# CPU is shared fairly between autogroups and `nice` ranks processes only inside one, so the autogroup's own
# nice value (/proc/self/autogroup) is what keeps it from taking half the machine from the build.
setsid bash -c 'echo 19 > /proc/self/autogroup 2>/dev/null; exec nice -n 19 bash "$0" "$1"' \
  "$repo/scripts/check-tidy.sh" "$asan" > "$tidy_log" 2>&1 &
tidy_pid=$!
cmake --build "$asan" -j "$jobs"

stage "tests of the minimal configuration (core, validation, CLI goldens, fuzz replays, scripts)"
ctest --test-dir "$asan" --output-on-failure -j "$jobs"

stage "full build under ASan + UBSan (preset asan: UI, probe when nvcc is found, benchmarks) in $asan"
# -U: the probe's option takes its computed default again (on when nvcc is found) after the minimal pass.
cmake --preset asan -S "$repo" -B "$asan" -U PARALLAX_BUILD_PROBE
cmake --build "$asan" -j "$jobs"

stage "tests the full build adds (UI offscreen, renders, probe's non-GPU paths, CLI goldens of the export commands)"
# Core, validation, fuzz and scripts tests are the minimal pass's binaries, unchanged: not run twice.
# Of the CLI goldens, only those of the commands that can use the renderer now linked in (cli-render:
# export, schedule) run again; the others' code is what the minimal pass ran.
ctest --test-dir "$asan" --output-on-failure -j "$jobs" -L '^(ui|render|probe|cli-render)$'

stage "benchmarks, each run once under the sanitizers (a smoke run, not a measurement: README.md)"
# One iteration each: the figures of an instrumented -O1 build mean nothing; that they run cleanly does.
for b in "$asan/benchmarks/parallax_benchmarks" "$asan/benchmarks/parallax_render_benchmarks"; do
  if [[ -x "$b" ]]; then
    # Less the 65,536-domain search rows (about 40 s each under ASan): the 2,048-domain rows run the same code.
    "$b" --benchmark_min_time=0.000001 --benchmark_filter='-RecommendTopologyForm/65536'
  fi
done

stage "clang-tidy over core/ (.clang-tidy): the rest of its background run"
tidy_rc=0
wait "$tidy_pid" || tidy_rc=$?
tidy_pid=""
cat "$tidy_log"
if [[ $tidy_rc -ne 0 ]]; then
  echo "check-tidy failed (exit $tidy_rc): the diagnostics are above" >&2
  exit "$tidy_rc"
fi

summary
