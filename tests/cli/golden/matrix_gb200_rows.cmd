args: matrix --gpu gb200 --gpu-counts 72,576 --models llama3-405b,deepseek-v3
exit: 0
