# Issue 16: layers 1e30 in a published run was cast to int (UB; -2147483648 in release)
args: validate --data tests/fuzz/corpus/published_runs/regression-layers-1e30.json
exit: 1
memory_mb: 1024
seconds: 30
