args: ranks --model mixtral-8x7b --nodes 2 --gpus-per-node 8 --tp 2 --pp 2 --ep 4 --limit 4
exit: 0
