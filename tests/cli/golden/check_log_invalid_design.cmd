args: check-log --log tests/data/megatron/synthetic-training.log presets/scenarios/llama3-70b-64xh100.parallax.json --tp 3
exit: 1
stdout: ignore
stderr: the engine rejects the design
