args: evaluate tests/cli/data/100k-gpus.parallax.json
exit: 1
stderr: cluster.nodes: 100000 GPUs
stdout: ignore
memory_mb: 1024
seconds: 30
