args: evaluate --model llama3-70b --mode inference --tp 3 --gpus-per-node 3
exit: 1
stderr: parallel.tp: heads=64 is not divisible by tp=3
stdout: ignore
