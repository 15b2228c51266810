args: check-log --log presets/scenarios/llama3-70b-64xh100.parallax.json presets/scenarios/llama3-70b-64xh100.parallax.json
exit: 2
stdout: ignore
stderr: is it a training log
