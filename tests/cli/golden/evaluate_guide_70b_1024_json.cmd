args: evaluate presets/scenarios/guide-70b-1024xh100.parallax.json --json
exit: 0
