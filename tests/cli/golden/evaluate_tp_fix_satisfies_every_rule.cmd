args: evaluate --model megatron-gpt-1.7b --nodes 1 --gpus-per-node 8 --tp 7 --pp 1 --global-batch 64
exit: 1
stderr: heads=24 is not divisible by tp=7: use tp=8
stdout: ignore
memory_mb: 1024
seconds: 30
