args: validate --serving --data tests/cli/data/published_serving_sample.json --json
exit: 0
