args: recommend presets/scenarios/guide-70b-64xh100.parallax.json
exit: 0
