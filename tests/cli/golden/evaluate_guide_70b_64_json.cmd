args: evaluate presets/scenarios/guide-70b-64xh100.parallax.json --json
exit: 0
