args: export presets/scenarios/guide-70b-8xh100.parallax.json --launch megatron presets/scenarios/x.parallax.json
exit: 2
stderr: that is a scenario file name
stdout: ignore
