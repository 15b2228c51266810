args: evaluate --model llama3-70b --gpu h100-sxm --nodes 1 --gpus-per-node 4 --tp 4 --mode inference --speculative-tokens 3 --draft-model megatron-gpt-1.7b
exit: 1
stdout: ignore
stderr: inference.draft_model: .*must share the model's tokenizer
