args: evaluate --model llama3-8b --gpu h100-sxm --nodes 1 --gpus-per-node 8 --tp 8 --global-batch 8
exit: 1
stderr: no FILE: the fields no flag sets are the default scenario's, llama3-70b-64xh100: tp 8, pp 8
stdout: ignore
