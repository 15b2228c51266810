args: evaluate tests/cli/data/tp-zero.parallax.json
exit: 1
stderr: parallel.tp: must be >= 1, got 0
stdout: ignore
memory_mb: 1024
seconds: 30
