args: export presets/scenarios/llama3-70b-64xh100.parallax.json
exit: 2
stderr: nothing to export
stdout: ignore
