args: evaluate --nodes 125000 --gpus-per-node 8
exit: 1
stderr: 1000000 GPUs \(nodes x gpus_per_node\) exceeds the supported 65536; model one representative slice
stdout: ignore
memory_mb: 1024
seconds: 30
