args: export presets/scenarios/deepseek-v3-2048xh800.parallax.json --launch nemo -
exit: 0
