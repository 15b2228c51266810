args: validate --data tests/cli/data/published_runs_sample.json --scenario opt175b
exit: 1
stderr: not modelled
stdout: ignore
