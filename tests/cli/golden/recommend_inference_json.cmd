args: recommend --model llama3-70b --gpu h100-sxm --nodes 1 --gpus-per-node 8 --mode inference --isl 30720 --osl 2048 --concurrency 32 --json --top 3
exit: 0
