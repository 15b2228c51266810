args: ranks --model llama3-8b --nodes 2 --gpus-per-node 8 --tp 8 --pp 2 --dim dp
exit: 0
