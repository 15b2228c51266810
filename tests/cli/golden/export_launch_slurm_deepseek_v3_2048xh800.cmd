args: export presets/scenarios/deepseek-v3-2048xh800.parallax.json --launch slurm -
exit: 0
