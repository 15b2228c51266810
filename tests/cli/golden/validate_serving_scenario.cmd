args: validate --serving --scenario vllm_8b
exit: 2
stderr: does not combine with --serving
stdout: ignore
