args: schedule presets/scenarios/llama3-70b-64xh100.parallax.json --tp 3
exit: 1
stderr: parallel.tp: heads=64 is not divisible by tp=3
stdout: ignore
