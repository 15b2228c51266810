args: evaluate presets/scenarios/serve-dsv3-dpattn-8xh200.parallax.json --json
exit: 0
