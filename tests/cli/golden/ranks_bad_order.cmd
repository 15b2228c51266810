args: ranks --model llama3-8b --nodes 1 --gpus-per-node 8 --tp 2 --pp 2 --order tp-dp
exit: 1
stderr: parallel.order: order "tp-dp" lacks pp but pp=2
stdout: ignore
