args: check-log --log tests/data/torchtitan/synthetic-training.log presets/scenarios/llama3-70b-64xh100.parallax.json
exit: 0
