args: ranks --model llama3-8b --nodes 1 --gpus-per-node 8 --tp 2 --pp 2 --order tp-cp-ep-pp-dp --json
exit: 0
