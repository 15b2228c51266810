args: matrix --gpu a100-sxm-80gb --dtype fp8 --models llama3-8b --gpu-counts 8
exit: 2
stderr: --dtype: NVIDIA A100 SXM4 80GB has no fp8 tensor cores: use bf16
stdout: ignore
