args: validate --data tests/cli/data/published_runs_unmodelled.json
exit: 1
