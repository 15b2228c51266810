args: matrix --models llama3-70b,llama-9000
exit: 2
stderr: --models: no model preset "llama-9000"; use one of
stdout: ignore
