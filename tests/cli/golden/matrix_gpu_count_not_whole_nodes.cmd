args: matrix --gpu-counts 8,12
exit: 2
stderr: --gpu-counts: 12 is not a whole number of 8-GPU nodes up to 65536
stdout: ignore
