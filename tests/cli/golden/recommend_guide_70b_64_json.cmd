args: recommend presets/scenarios/guide-70b-64xh100.parallax.json --json --top 3
exit: 0
