args: matrix --markdown --models llama3-8b,llama3-70b --gpu-counts 8,16 --global-batch 64 --seq-len 2048
exit: 0
