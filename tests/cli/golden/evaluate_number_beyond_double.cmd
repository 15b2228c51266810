args: evaluate tests/cli/data/tp-1e400.parallax.json
exit: 1
stderr: parallel.tp: a number is outside the range of a double
stdout: ignore
memory_mb: 1024
seconds: 30
