args: export presets/scenarios/llama3-70b-64xh100.parallax.json --launch megatron -
exit: 0
