args: export presets/scenarios/serve-70b-bf16-2xh100.parallax.json --launch slurm -
exit: 2
stdout: ignore
stderr: --launch slurm: this is a serving design
