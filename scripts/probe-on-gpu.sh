#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds parallax-probe (Release) and runs it on this machine's GPUs, in one go, then compares it
# with PyTorch where PyTorch is installed (docs/probe.md, "Checking the probe on a GPU").
#
#   scripts/probe-on-gpu.sh [probe options...]        e.g. scripts/probe-on-gpu.sh --quick
#
# Environment: OUT (default ./probe-out) receives calibration.json, probe-stdout.txt,
# probe-exit-code, torch-reference.json and comparison.json; BUILD (default build-probe-release
# in the repository) is the CMake build folder; PROBE, when set, names an already built parallax-probe
# to run instead of building one (a machine without the nlohmann_json headers, say).
#
# Exit code: the probe's (0 done, 3 no GPU, 4 some measurements failed, 1 or 2 errors), except
# that a clean probe run that misses the torch comparison (GEMM within 5% of torch.matmul,
# device copy at least 90% of torch's) exits 5. Without torch the comparison is skipped, not failed.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${OUT:-./probe-out}"
build="${BUILD:-$repo/build-probe-release}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

generator=()
if command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi

if [[ -n "${PROBE:-}" ]]; then
  probe="$PROBE"
  if [[ ! -x "$probe" ]]; then
    echo "probe-on-gpu: PROBE=$probe is not an executable file" >&2
    exit 1
  fi
else
  echo "== configure and build parallax-probe (Release) in $build"
  if ! cmake -S "$repo" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
      -DPARALLAX_BUILD_UI=OFF -DPARALLAX_BUILD_PROBE=ON -DPARALLAX_BUILD_BENCHMARKS=OFF -DBUILD_TESTING=OFF; then
    echo "probe-on-gpu: configure failed (needs CMake >= 3.25, the CUDA toolkit with nvcc and cuBLAS," \
         "and the nlohmann_json headers)" >&2
    exit 1
  fi
  cmake --build "$build" --target parallax-probe -j "$(nproc)"
  probe="$(find "$build" -type f -name parallax-probe -perm -u+x | head -n 1)"
  if [[ -z "$probe" ]]; then
    echo "probe-on-gpu: the build produced no parallax-probe binary" >&2
    exit 1
  fi
fi

echo "== $probe --out $out/calibration.json $*"
set +e
"$probe" --out "$out/calibration.json" "$@" 2>&1 | tee "$out/probe-stdout.txt"
rc=${PIPESTATUS[0]}
set -e
echo "$rc" >"$out/probe-exit-code"
echo "== parallax-probe exit code $rc"
if [[ "$rc" -ne 0 && "$rc" -ne 4 ]]; then
  exit "$rc"
fi

if ! command -v python3 >/dev/null 2>&1; then
  echo "== python3 not found: no torch reference"
  exit "$rc"
fi
if ! python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
  echo "== torch with CUDA not available: no torch reference"
  exit "$rc"
fi

echo "== torch reference: torch.matmul bf16 8192^3 and a device-to-device copy"
python3 - "$out/calibration.json" "$out/torch-reference.json" <<'PY'
import json, sys
import torch

calibration_path, reference_path = sys.argv[1], sys.argv[2]
with open(calibration_path) as f:
    calibration = json.load(f)
# Same copy size as the probe's HBM measurement, so that both see the same cache effects.
copy_bytes = int(calibration.get("hbm", {}).get("buffer_bytes", 1 << 30))


def percentiles(values):
    values = sorted(values)

    def at(q):
        position = q * (len(values) - 1)
        below = int(position)
        above = min(below + 1, len(values) - 1)
        return values[below] + (position - below) * (values[above] - values[below])

    return at(0.5), at(0.1), at(0.9)


def seconds_per_call(fn, warmup=10, repeats=20, min_sample_s=1e-3):
    """CUDA-event timing like the probe's: warm-up, then samples of back-to-back calls."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record(); fn(); stop.record(); stop.synchronize()
    once = start.elapsed_time(stop) / 1e3
    calls = max(1, min(1000, int(min_sample_s / once) + 1)) if once < min_sample_s else 1
    samples = []
    for _ in range(repeats):
        start.record()
        for _ in range(calls):
            fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / 1e3 / calls)
    return samples


n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
matmul = [2.0 * n**3 / t / 1e12 for t in seconds_per_call(lambda: torch.matmul(a, b))]
del a, b

src = torch.randint(0, 256, (copy_bytes,), device="cuda", dtype=torch.uint8)
dst = torch.empty_like(src)
# Bytes read + written, as the probe counts its device-to-device copy.
copy = [2.0 * copy_bytes / t / 1e9 for t in seconds_per_call(lambda: dst.copy_(src))]

m_med, m_p10, m_p90 = percentiles(matmul)
c_med, c_p10, c_p90 = percentiles(copy)
reference = {
    "torch_version": torch.__version__,
    "cuda": torch.version.cuda,
    "gpu": torch.cuda.get_device_name(0),
    "matmul_bf16_8192": {"tflops_median": m_med, "tflops_p10": m_p10, "tflops_p90": m_p90},
    "device_copy": {"buffer_bytes": copy_bytes, "gb_per_s_median": c_med, "gb_per_s_p10": c_p10,
                    "gb_per_s_p90": c_p90},
}
with open(reference_path, "w") as f:
    json.dump(reference, f, indent=2)
    f.write("\n")
print(f"torch.matmul bf16 8192^3: {m_med:.1f} TFLOP/s [{m_p10:.1f}, {m_p90:.1f}]")
print(f"torch device copy ({copy_bytes >> 20} MiB, read + written): {c_med:.1f} GB/s [{c_p10:.1f}, {c_p90:.1f}]")
PY

echo "== comparison"
set +e
python3 - "$out/calibration.json" "$out/torch-reference.json" "$out/comparison.json" <<'PY'
import json, sys

calibration_path, reference_path, comparison_path = sys.argv[1:4]
with open(calibration_path) as f:
    calibration = json.load(f)
with open(reference_path) as f:
    reference = json.load(f)

checks = []
gemm = [g for g in calibration.get("gemm", [])
        if g["dtype"] == "bf16" and g["m"] == g["n"] == g["k"] == 8192]
torch_tflops = reference["matmul_bf16_8192"]["tflops_median"]
if gemm:
    ratio = gemm[0]["tflops_median"] / torch_tflops
    checks.append({"what": "bf16 GEMM 8192^3, probe / torch.matmul", "probe": gemm[0]["tflops_median"],
                   "torch": torch_tflops, "ratio": ratio, "required": "0.95 <= ratio <= 1.05",
                   "passed": 0.95 <= ratio <= 1.05})
else:
    checks.append({"what": "bf16 GEMM 8192^3", "passed": False,
                   "why": "the probe has no 8192^3 bf16 point (--max-square below 8192, or it failed)"})
copy = calibration.get("hbm", {}).get("device_copy_gb_per_s_median")
torch_copy = reference["device_copy"]["gb_per_s_median"]
if copy:
    ratio = copy / torch_copy
    checks.append({"what": "device-to-device copy, probe / torch", "probe": copy, "torch": torch_copy,
                   "ratio": ratio, "required": "ratio >= 0.90", "passed": ratio >= 0.90})
else:
    checks.append({"what": "device-to-device copy", "passed": False, "why": "the probe has no device copy figure"})

with open(comparison_path, "w") as f:
    json.dump({"checks": checks}, f, indent=2)
    f.write("\n")
for c in checks:
    detail = f"ratio {c['ratio']:.3f} ({c['required']})" if "ratio" in c else c["why"]
    print(f"{'PASS' if c['passed'] else 'FAIL'}  {c['what']}: {detail}")
sys.exit(0 if all(c["passed"] for c in checks) else 1)
PY
compared=$?
set -e
if [[ "$rc" -eq 0 && "$compared" -ne 0 ]]; then
  exit 5
fi
exit "$rc"
