args: export presets/scenarios/gpt3-175b-1536xa100.parallax.json --launch megatron -
exit: 0
