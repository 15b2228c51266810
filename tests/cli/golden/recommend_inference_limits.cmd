args: recommend --model deepseek-v3 --gpu h200 --nodes 1 --gpus-per-node 8 --mode inference --weight-dtype fp8 --isl 2048 --osl 1024 --tpot-ms 50 --ttft-ms 200
exit: 0
