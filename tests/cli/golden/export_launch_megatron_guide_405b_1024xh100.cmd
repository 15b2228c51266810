args: export presets/scenarios/guide-405b-1024xh100.parallax.json --launch megatron -
exit: 0
