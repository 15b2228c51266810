# Issue 16: validate --data on a deeply nested file overflowed the stack (SourceConventions)
args: validate --data tests/cli/data/deep.parallax.json
exit: 2
stderr: --data tests/cli/data/deep.parallax.json: not accepted: nesting deeper than 64 levels
stdout: ignore
memory_mb: 1024
seconds: 30
