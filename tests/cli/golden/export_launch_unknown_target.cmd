args: export presets/scenarios/guide-70b-8xh100.parallax.json --launch deepspeed -
exit: 2
stderr: unknown target "deepspeed"; use megatron, nemo, torchtitan or slurm
stdout: ignore
