# Issue 16: recommend on a deeply nested scenario
args: recommend tests/cli/data/deep.parallax.json
exit: 2
stderr: not accepted: nesting deeper than 64 levels
stdout: ignore
memory_mb: 1024
seconds: 30
