args: recommend --model llama3-8b --nodes 2 --gpus-per-node 4 --global-batch 64 --seq-len 4096 --json --top 2
exit: 0
