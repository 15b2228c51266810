args: ranks --model llama3-8b --nodes 1 --gpus-per-node 8 --tp 2 --pp 2 --cp 2 --order tp-cp-ep-pp-dp
exit: 1
stderr: needs the expert data-parallel size .2. to equal dp .1.
stdout: ignore
