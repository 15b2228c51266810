args: export presets/scenarios/llama3-405b-16kxh100.parallax.json --launch torchtitan -
exit: 0
