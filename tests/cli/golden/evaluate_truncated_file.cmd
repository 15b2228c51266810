args: evaluate tests/cli/data/truncated.parallax.json
exit: 2
stderr: not valid JSON
stdout: ignore
memory_mb: 1024
seconds: 30
