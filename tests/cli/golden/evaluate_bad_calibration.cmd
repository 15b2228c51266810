args: evaluate --calibration tests/cli/data/calibration-bad.json
exit: 2
stderr: gemm\[0\].tflops_median
stdout: ignore
memory_mb: 1024
seconds: 30
