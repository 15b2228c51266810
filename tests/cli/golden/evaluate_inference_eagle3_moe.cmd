args: evaluate --model mixtral-8x7b --gpu h100-sxm --nodes 1 --gpus-per-node 8 --tp 8 --mode inference --speculative-tokens 2 --speculative-method eagle3
exit: 1
stdout: ignore
stderr: inference.speculative_method: eagle3 is modelled for dense models
