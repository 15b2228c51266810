args: export --model llama3-70b --gpu h100-sxm --nodes 1 --gpus-per-node 4 --tp 4 --mode inference --isl 1024 --osl 512 --concurrency 8 --speculative-tokens 3 --speculative-method eagle3 --launch vllm -
exit: 0
