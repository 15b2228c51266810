args: validate --data tests/cli/data/published_runs_unmodelled.json
exit: 1
memory_mb: 1024
seconds: 30
