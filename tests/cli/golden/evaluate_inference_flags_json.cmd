args: evaluate --model llama3-70b --gpu h100-sxm --nodes 1 --gpus-per-node 4 --tp 4 --mode inference --weight-dtype fp8 --kv-dtype fp8 --context-len 32768 --isl 30000 --osl 2000 --concurrency 32 --json
exit: 0
