args: evaluate --model llama3-70b --mode inference --tp 8 --speculative-tokens 3 --draft-model llama3-1b
exit: 1
stdout: ignore
stderr: inference.draft_model: unknown model preset "llama3-1b"
