args: matrix --json --models llama3-70b,moe-1t --gpu-counts 8,64
exit: 0
