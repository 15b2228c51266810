args: export presets/scenarios/guide-moe1t-8xh100.parallax.json --launch megatron -
exit: 0
