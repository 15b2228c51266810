args: evaluate --model gpt-neox-20b --gpu a100-sxm-80gb --nodes 12 --gpus-per-node 8 --tp 2 --pp 4 --vpp 1 --micro-batch 4 --global-batch 1536 --seq-len 2048 --recompute full --parallel-block off
exit: 0
