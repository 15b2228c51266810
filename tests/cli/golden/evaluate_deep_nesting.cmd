args: evaluate tests/cli/data/deep.parallax.json
exit: 2
stderr: nesting deeper than 64 levels at line
stdout: ignore
memory_mb: 1024
seconds: 30
