args: validate --data tests/cli/data/published_runs_unmodelled.json
exit: 1
stderr: no row could be modelled
stdout: ignore
