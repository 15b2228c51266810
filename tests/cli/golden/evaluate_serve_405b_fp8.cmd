args: evaluate presets/scenarios/serve-405b-fp8-8xh100.parallax.json
exit: 0
