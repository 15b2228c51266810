args: validate --data tests/cli/data/published_runs_sample.json --scenario zerobubble_28.3B_p32_m128_1F1B
exit: 0
