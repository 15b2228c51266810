args: export --model tests/data/hf/deepseek-v3.config.json --nodes 8 --tp 1 --pp 4 --ep 16 --seq-len 4096 --global-batch 256 --launch megatron -
exit: 0
