args: export presets/scenarios/serve-405b-bf16-nvl72.parallax.json --launch sglang -
exit: 0
