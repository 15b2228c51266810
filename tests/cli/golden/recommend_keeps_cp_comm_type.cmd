args: recommend --model llama3-8b --nodes 1 --gpus-per-node 8 --global-batch 16 --seq-len 32768 --cp-comm-type p2p --top 3
exit: 0
