args: export presets/scenarios/guide-70b-8xh100.parallax.json --launch slurm -
exit: 2
stderr: unknown target "slurm"; use megatron, nemo or torchtitan
stdout: ignore
