args: recommend presets/scenarios/guide-70b-8xh100.parallax.json --lesson --top 1
exit: 0
