args: export presets/scenarios/llama3-70b-64xh100.parallax.json --trace /tmp/trace.txt
exit: 2
stderr: a Chrome trace is written as .json
stdout: ignore
