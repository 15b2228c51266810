args: evaluate presets/scenarios/guide-70b-8xh100.parallax.json --json
exit: 0
