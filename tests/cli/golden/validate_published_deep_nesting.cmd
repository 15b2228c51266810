# Issue 16: a deeply nested published-run file
args: validate --data tests/fuzz/corpus/published_runs/regression-deep.json
exit: 2
stderr: not accepted: nesting deeper than 64 levels
stdout: ignore
memory_mb: 1024
seconds: 30
