args: check-log presets/scenarios/llama3-70b-64xh100.parallax.json
exit: 2
stdout: ignore
stderr: give the training log
