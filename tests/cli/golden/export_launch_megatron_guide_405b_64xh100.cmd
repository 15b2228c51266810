args: export presets/scenarios/guide-405b-64xh100.parallax.json --launch megatron -
exit: 0
