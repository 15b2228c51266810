args: validate --data tests/cli/data/published_runs_sample.json
exit: 0
