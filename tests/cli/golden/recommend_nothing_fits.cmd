args: recommend presets/scenarios/guide-405b-8xh100.parallax.json
exit: 0
