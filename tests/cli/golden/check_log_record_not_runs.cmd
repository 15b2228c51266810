args: check-log --log tests/data/megatron/synthetic-training.log presets/scenarios/llama3-70b-64xh100.parallax.json --record presets/scenarios/llama3-70b-64xh100.parallax.json
exit: 2
stdout: ignore
stderr: --record: presets/scenarios/llama3-70b-64xh100.parallax.json: not a JSON array of run records
