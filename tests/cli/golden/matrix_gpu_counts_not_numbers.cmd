args: matrix --gpu-counts 8,64x
exit: 2
stderr: --gpu-counts: "64x" is not a positive whole number of GPUs
stdout: ignore
