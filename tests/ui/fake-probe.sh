#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A stand-in for parallax-probe in the Qt tests of the Probe tab (docs/probe.md): prints a few
# progress lines and writes a calibration file to --out, as the real probe does on a GPU.
# FAKE_PROBE_MODE=nodevice: the real probe's no-GPU answer (one line on stderr, exit 3);
# FAKE_PROBE_MODE=slow: prints one line, then measures "forever" (the Cancel test).
out=parallax-calibration.json
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    *) shift ;;
  esac
done
if [ "$FAKE_PROBE_MODE" = nodevice ]; then
  echo "parallax-probe: no CUDA device found: using datasheet numbers" >&2
  exit 3
fi
echo "parallax-probe 0.1.0 on NVIDIA H100 80GB HBM3 (fake probe) x8 (compute 9.0, 132 SMs, 85.0 GB)"
if [ "$FAKE_PROBE_MODE" = slow ]; then
  exec sleep 60
  exit 0
fi
echo ""
echo "GEMM, cuBLASLt, fp32 accumulation, bf16 output (TFLOP/s)"
echo "  qkv.fwd              bf16     8192    1280    8192     612.3     608.1     615.2  ok 0.031"
echo "  square               bf16     8192    8192    8192     346.3     340.0     350.0  ok 0.100"
echo ""
echo "HBM (GB/s)"
echo "  stream kernel, 1 GiB                                  3000.0    2990.0    3010.0"
cat > "$out" <<'JSON'
{
  "format": "parallax-calibration",
  "version": 1,
  "probe_version": "0.1.0",
  "date": "2026-01-15T10:00:00Z",
  "gpu": { "name": "NVIDIA H100 80GB HBM3 (fake probe)", "count": 8, "compute_capability": "9.0" },
  "method": { "warmup": 2, "repeats": 5 },
  "gemm": [
    { "label": "qkv.fwd", "m": 8192, "n": 1280, "k": 8192, "dtype": "bf16", "tflops_median": 612.3, "max_error_to_bound": 0.031 },
    { "label": "square", "m": 8192, "n": 8192, "k": 8192, "dtype": "bf16", "tflops_median": 346.3, "max_error_to_bound": 0.1 }
  ],
  "hbm": { "buffer_bytes": 1073741824, "stream_gb_per_s_median": 3000, "device_copy_gb_per_s_median": 2900 },
  "copies": { "buffer_bytes": 268435456, "host_to_device_gb_per_s_median": 53.5, "device_to_host_gb_per_s_median": 54.2,
              "peer_gb_per_s_median": 390 },
  "collectives": [
    { "kind": "all_reduce", "ranks": 8, "bytes": 1073741824, "bus_gb_per_s_median": 360 }
  ]
}
JSON
echo ""
echo "2 GEMM points, 1 collective points, 0 failures; wrote $out"
exit 0
