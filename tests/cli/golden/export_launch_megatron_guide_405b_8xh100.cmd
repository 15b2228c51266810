args: export presets/scenarios/guide-405b-8xh100.parallax.json --launch megatron -
exit: 0
