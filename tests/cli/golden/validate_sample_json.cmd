args: validate --data tests/cli/data/published_runs_sample.json --json
exit: 0
