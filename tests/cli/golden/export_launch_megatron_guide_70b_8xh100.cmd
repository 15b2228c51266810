args: export presets/scenarios/guide-70b-8xh100.parallax.json --launch megatron -
exit: 0
