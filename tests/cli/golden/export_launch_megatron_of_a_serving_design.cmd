args: export presets/scenarios/serve-70b-bf16-2xh100.parallax.json --launch megatron -
exit: 2
stderr: this is a serving design .mode inference.; use --launch vllm, sglang or trtllm
stdout: ignore
