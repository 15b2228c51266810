args: export presets/scenarios/bloom-176b-384xa100.parallax.json --launch megatron -
exit: 0
