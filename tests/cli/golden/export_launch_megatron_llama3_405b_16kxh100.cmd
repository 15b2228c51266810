args: export presets/scenarios/llama3-405b-16kxh100.parallax.json --launch megatron -
exit: 0
