args: recommend presets/scenarios/guide-70b-64xh100.parallax.json --top 0
exit: 2
stderr: --top
stdout: ignore
