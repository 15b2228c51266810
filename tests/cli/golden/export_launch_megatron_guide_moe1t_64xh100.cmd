args: export presets/scenarios/guide-moe1t-64xh100.parallax.json --launch megatron -
exit: 0
