args: evaluate --model llama3-8b --nodes 1 --tp 8 --pp 1 --global-batch 16 --seq-len 4096 --calibration tests/cli/data/calibration-half-gemm.json
exit: 0
